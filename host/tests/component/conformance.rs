//! The conformance data through the component in the host, over both backends:
//! every case of cases.json (raw face, and the typed exports where the input maps
//! onto them) and every hostile path in every argument position. The data is read
//! by `memdir::conformance`, as every Rust runner reads it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use memdir::conformance::{self as data, Case};
use memdir_host::{Backend, CallErrorKind, HostLimits, ToolConfig};
use serde_json::Value;

use crate::support::{self, KINDS, Kind, Probe};

fn seeded(kind: Kind, case: &Case) -> (Arc<dyn Backend>, Option<support::TempDir>) {
    let (backend, dir) = support::fresh(kind);
    support::seed(&backend, case.config(), &case.before);
    (backend, dir)
}

fn host_for(case: &Case, backend: Arc<dyn Backend>) -> memdir_host::Host {
    let mut host = support::runtime().host(backend, HostLimits::default());
    host.configure(ToolConfig {
        engine: case.config(),
        ..ToolConfig::default()
    });
    host
}

/// The case through `execute`: exact answer, the tree afterwards, and no store
/// operation at all where the case says the refusal comes before storage.
fn run_case(kind: Kind, case: &Case) -> Result<(), String> {
    let (backend, _dir) = seeded(kind, case);
    let probe = Arc::new(Probe::new(backend.clone()));
    let r = host_for(case, probe.clone()).execute_json(&case.input);
    data::check_answer(case, &r)?;
    let ops = probe.ops.load(Ordering::SeqCst);
    if case.no_store_ops && ops != 0 {
        return Err(format!(
            "{ops} store operations; this refusal must make none"
        ));
    }
    let entries = memdir::block_on(memdir::Engine::new(&*backend, case.config()).entries())
        .map_err(|e| e.to_string())?;
    data::check_tree(case, entries)
}

/// The same case through the typed export of its command, when every field it
/// carries has the type that export takes. `None`: the input does not map.
fn run_typed(kind: Kind, case: &Case) -> Option<Result<(), String>> {
    let input: Value = serde_json::from_str(&case.input).ok()?;
    let input = input.as_object()?;
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let (backend, _dir) = seeded(kind, case);
    let mut host = host_for(case, backend);
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
    // A failure of the typed face is the engine's answer, never the sandbox's.
    if let Err(e) = &got
        && !matches!(e.kind, CallErrorKind::Tool(_))
    {
        return Some(Err(format!("typed export failed in the sandbox: {e}")));
    }
    let got = got.unwrap_or_else(|e| format!("Error: {e}"));
    Some(if got == case.content {
        Ok(())
    } else {
        Err(format!("typed export: {}", data::diff(&case.content, &got)))
    })
}

#[test]
fn every_case_through_the_component_over_both_backends() {
    let cases = data::cases(&support::load("cases.json")).expect("cases.json");
    let mut failures = Vec::new();
    let mut typed = 0;
    for kind in KINDS {
        for case in &cases {
            if let Err(e) = run_case(kind, case) {
                failures.push(format!("{kind:?} {}: {e}", case.name));
            }
            match run_typed(kind, case) {
                Some(Ok(())) => typed += 1,
                Some(Err(e)) => failures.push(format!("{kind:?} {}: {e}", case.name)),
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
    assert!(
        failures.is_empty(),
        "{} conformance failures through the component (listed above)",
        failures.len()
    );
}

#[test]
fn every_hostile_path_in_every_position_is_refused_with_no_store_operation() {
    let paths =
        data::hostile_paths(&support::load("hostile-paths.json")).expect("hostile-paths.json");
    let mut failures = Vec::new();
    let mut refused = 0;
    for kind in KINDS {
        let (backend, _dir) = support::fresh(kind);
        support::seed(
            &backend,
            memdir::config::Config::default(),
            &data::hostile_seed(),
        );
        let before = support::raw(&backend);
        let probe = Arc::new(Probe::new(backend.clone()));
        let mut host = support::runtime().host(probe.clone(), HostLimits::default());
        for hostile in &paths {
            let want = format!("Error: {}", hostile.message);
            for pos in data::POSITIONS {
                probe.ops.store(0, Ordering::SeqCst);
                let r = host.execute_json(&data::hostile_input(pos, &hostile.path).to_string());
                let ops = probe.ops.load(Ordering::SeqCst);
                if r.is_error && r.content == want && ops == 0 {
                    refused += 1;
                } else {
                    let shown: String = hostile.path.chars().take(60).collect();
                    failures.push(format!(
                        "{kind:?} {pos} {shown:?}: {ops} store ops; {}",
                        data::diff(&want, &r.content)
                    ));
                }
            }
        }
        if support::raw(&backend) != before {
            failures.push(format!("{kind:?}: the store changed"));
        }
    }
    println!(
        "component hostile paths: {} paths x 7 positions x 2 backends, {refused} refused cleanly",
        paths.len()
    );
    for f in failures.iter().take(30) {
        println!("  FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} hostile-path failures through the component (listed above)",
        failures.len()
    );
}
