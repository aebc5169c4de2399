//! The WIT interface is written by hand (an interface cannot be generated from
//! the engine at build time without a build step every host would pay), so this
//! holds it to the engine's definition of the memory tool: one function per
//! command of `memdir::COMMANDS`, its parameters the command's fields in the
//! schema of `memdir::MEMORY_TOOL`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use serde_json::Value;

const WIT: &str = include_str!("../../wit/memdir.wit");

/// The parameters of `name: func(...)` in the WIT, in snake case.
fn wit_params(name: &str) -> Vec<String> {
    let head = format!("    {}: func(", name.replace('_', "-"));
    let line = WIT
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no WIT function for {name}"));
    let inside = &line[head.len()..line.find(')').unwrap()];
    inside
        .split(", ")
        // A piece without a colon is the rest of a type (`tuple<s64, s64>`).
        .filter_map(|p| p.split_once(':'))
        .map(|(name, _)| name.trim().replace('-', "_"))
        .collect()
}

/// The schema's fields whose description says they belong to `command`.
fn schema_fields(command: &str) -> Vec<String> {
    let schema: Value = serde_json::from_str(memdir::MEMORY_TOOL.input_schema).unwrap();
    schema["properties"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, p)| {
            // "view, create: …": the commands a field belongs to lead its description.
            let d = p["description"].as_str().unwrap();
            d.split_once(':')
                .is_some_and(|(names, _)| names.split(", ").any(|n| n == command))
        })
        .map(|(k, _)| k.clone())
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn the_wit_has_one_function_per_command_taking_its_schema_fields() {
    for command in memdir::COMMANDS {
        // A JSON object's fields have no order; a WIT function's parameters do.
        assert_eq!(
            sorted(wit_params(command)),
            sorted(schema_fields(command)),
            "{command}"
        );
    }
}
