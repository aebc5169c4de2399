//! The conformance data through the component in the host, over both backends:
//! every case of cases.json (raw face, and the typed exports where the input maps
//! onto them) and every hostile path in every argument position.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use memdir_host::{Backend, HostLimits, ToolConfig};
use serde_json::{Value, json};

use crate::support::{self, KINDS, Kind, Probe};

fn tool_config(case: &Value) -> ToolConfig {
    ToolConfig { limits: support::config_for(case).limits, ..ToolConfig::default() }
}

fn seeded(kind: Kind, case: &Value) -> (Arc<dyn Backend>, Option<support::TempDir>) {
    let (backend, dir) = support::fresh(kind);
    support::seed(&backend, support::config_for(case), &support::entries_of(&case["before"]));
    (backend, dir)
}

/// The case through `execute`: exact answer, the tree afterwards, and no store
/// operation at all where the case says the refusal comes before storage.
fn run_case(kind: Kind, case: &Value) -> Result<(), String> {
    let want = case["content"].as_str().ok_or("no content")?;
    let want_error = case["is_error"].as_bool().ok_or("no is_error")?;
    let text = match (case.get("input_text"), case.get("input")) {
        (Some(Value::String(t)), _) => t.clone(),
        (_, Some(v)) => v.to_string(),
        _ => return Err("neither input nor input_text".into()),
    };
    let (backend, _dir) = seeded(kind, case);
    let probe = Arc::new(Probe::new(backend.clone()));
    let mut host = support::runtime().host(probe.clone(), HostLimits::default());
    host.configure(tool_config(case));
    let r = host.execute(&text);
    if r.content != want || r.is_error != want_error {
        return Err(format!("is_error {} (want {want_error}); {}", r.is_error, support::diff(want, &r.content)));
    }
    let ops = probe.ops.load(Ordering::SeqCst);
    if case.get("no_store_ops") == Some(&Value::Bool(true)) && ops != 0 {
        return Err(format!("{ops} store operations; this refusal must make none"));
    }
    let want_tree = support::tree_of_state(case.get("after").unwrap_or(&case["before"]));
    let got_tree = support::tree(&backend);
    if got_tree != want_tree {
        let wrong: Vec<_> = want_tree.keys().chain(got_tree.keys()).filter(|k| want_tree.get(*k) != got_tree.get(*k)).collect();
        return Err(format!("tree afterwards differs at {wrong:?}"));
    }
    Ok(())
}

/// The same case through the typed export of its command, when every field it
/// carries has the type that export takes. `None`: the input does not map.
fn run_typed(kind: Kind, case: &Value) -> Option<Result<(), String>> {
    let input = case.get("input")?.as_object()?;
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let (backend, _dir) = seeded(kind, case);
    let mut host = support::runtime().host(backend, HostLimits::default());
    host.configure(tool_config(case));
    let got = match input.get("command")?.as_str()? {
        "view" => {
            let range = match input.get("view_range") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) if a.len() == 2 => Some((a[0].as_i64()?, a[1].as_i64()?)),
                Some(_) => return None,
            };
            host.view(s("path")?, range)
        }
        "create" => host.create(s("path")?, s("file_text")?),
        "str_replace" => {
            let new_str = match input.get("new_str") {
                None | Some(Value::Null) => "",
                Some(v) => v.as_str()?,
            };
            host.str_replace(s("path")?, s("old_str")?, new_str)
        }
        "insert" => {
            let line = input.get("insert_line")?;
            // Only integers written as integers: `2.0` stays a float in the engine.
            if !(line.is_i64() || line.is_u64()) {
                return None;
            }
            host.insert(s("path")?, line.as_i64()?, s("insert_text")?)
        }
        "delete" => host.delete(s("path")?),
        "rename" => host.rename(s("old_path")?, s("new_path")?),
        _ => return None,
    };
    let want = case["content"].as_str()?;
    let got = match got {
        Ok(t) => t,
        Err(m) => format!("Error: {m}"),
    };
    Some(if got == want { Ok(()) } else { Err(format!("typed export: {}", support::diff(want, &got))) })
}

#[test]
fn every_case_through_the_component_over_both_backends() {
    let data = support::load("cases.json");
    let cases = data["cases"].as_array().expect("cases");
    let mut failures = Vec::new();
    let mut typed = 0;
    for kind in KINDS {
        for case in cases {
            let name = case["name"].as_str().expect("name");
            if let Err(e) = run_case(kind, case) {
                failures.push(format!("{kind:?} {name}: {e}"));
            }
            match run_typed(kind, case) {
                Some(Ok(())) => typed += 1,
                Some(Err(e)) => failures.push(format!("{kind:?} {name}: {e}")),
                None => {}
            }
        }
    }
    println!(
        "component conformance: {} cases x {} backends, {typed} typed-export runs, {} failures",
        cases.len(),
        KINDS.len(),
        failures.len()
    );
    for f in failures.iter().take(40) {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} conformance failures through the component (listed above)", failures.len());
}

const POSITIONS: [&str; 7] =
    ["view.path", "create.path", "str_replace.path", "insert.path", "delete.path", "rename.old_path", "rename.new_path"];

fn hostile_input(position: &str, p: &str) -> Value {
    match position {
        "view.path" => json!({"command": "view", "path": p}),
        "create.path" => json!({"command": "create", "path": p, "file_text": "x"}),
        "str_replace.path" => json!({"command": "str_replace", "path": p, "old_str": "a", "new_str": "b"}),
        "insert.path" => json!({"command": "insert", "path": p, "insert_line": 0, "insert_text": "x"}),
        "delete.path" => json!({"command": "delete", "path": p}),
        "rename.old_path" => json!({"command": "rename", "old_path": p, "new_path": "/memories/b.txt"}),
        "rename.new_path" => json!({"command": "rename", "old_path": "/memories/a.txt", "new_path": p}),
        _ => unreachable!("a position of POSITIONS"),
    }
}

#[test]
fn every_hostile_path_in_every_position_is_refused_with_no_store_operation() {
    let data = support::load("hostile-paths.json");
    let paths = data["paths"].as_array().expect("paths");
    let mut failures = Vec::new();
    let mut refused = 0;
    for kind in KINDS {
        let (backend, _dir) = support::fresh(kind);
        let a = memdir::Entry { path: "/memories/a.txt".into(), content: Some("a".into()) };
        support::seed(&backend, memdir::Config::default(), &[a]);
        let before = support::raw(&backend);
        let probe = Arc::new(Probe::new(backend.clone()));
        let mut host = support::runtime().host(probe.clone(), HostLimits::default());
        for entry in paths {
            let p = entry["path"].as_str().expect("path");
            let want = format!("Error: {}", entry["message"].as_str().expect("message"));
            for pos in POSITIONS {
                probe.ops.store(0, Ordering::SeqCst);
                let r = host.execute(&hostile_input(pos, p).to_string());
                let ops = probe.ops.load(Ordering::SeqCst);
                if r.is_error && r.content == want && ops == 0 {
                    refused += 1;
                } else {
                    let shown: String = p.chars().take(60).collect();
                    failures.push(format!("{kind:?} {pos} {shown:?}: {ops} store ops; {}", support::diff(&want, &r.content)));
                }
            }
        }
        if support::raw(&backend) != before {
            failures.push(format!("{kind:?}: the store changed"));
        }
    }
    println!("component hostile paths: {} paths x 7 positions x 2 backends, {refused} refused cleanly", paths.len());
    for f in failures.iter().take(30) {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} hostile-path failures through the component (listed above)", failures.len());
}
