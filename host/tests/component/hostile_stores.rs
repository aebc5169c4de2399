//! Every tampered store of `tests/conformance/hostile-stores.json` through the
//! component (`execute-json` and `entries`) over both backends: the exact answers,
//! the store left as loaded, and nothing written beside the directory store.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use memdir::conformance::{self as data, Face};
use memdir::{ToolResult, block_on, store_dir};
use memdir_host::{Backend, DirBackend, HostLimits, MemoryBackend};

use crate::support::{self, KINDS, Kind, TempDir};

/// The component in the host, as the engine face the shared check drives.
struct Component(memdir_host::Host);

impl Face for Component {
    async fn entries(&mut self) -> Result<(), String> {
        self.0.entries().map(drop).map_err(|e| e.message)
    }
    async fn execute_json(&mut self, input: &str) -> ToolResult {
        self.0.execute_json(input)
    }
}

/// The names in `dir`; with `keys: false`, only those that are no key's file.
fn names(dir: &Path, keys: bool) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("reading a directory")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .into_string()
                .expect("a UTF-8 name")
        })
        .filter(|n| keys || store_dir::key_of(n).is_none())
        .collect()
}

fn run(kind: Kind, case: &data::HostileStore, probes: &[String]) -> Result<(), String> {
    let base = TempDir::new("tampered");
    let dir = base.0.join("store");
    std::fs::write(base.0.join("outside.txt"), "beside the store").expect("writing outside.txt");
    let backend: Arc<dyn Backend> = match kind {
        Kind::Memory => Arc::new(MemoryBackend::new()),
        Kind::Dir => Arc::new(DirBackend::open(&dir).expect("opening a directory store")),
    };
    block_on(data::load_hostile(&&*backend, case))?;
    let not_keys = (kind == Kind::Dir).then(|| names(&dir, false));
    let mut face = Component(support::runtime().host(backend.clone(), HostLimits::default()));
    block_on(data::check_hostile(&&*backend, &mut face, probes, case))?;
    let beside = names(&base.0, true);
    let want: BTreeSet<String> = match kind {
        Kind::Memory => ["outside.txt".into()].into(),
        Kind::Dir => ["outside.txt".into(), "store".into()].into(),
    };
    if beside != want
        || std::fs::read_to_string(base.0.join("outside.txt"))
            .ok()
            .as_deref()
            != Some("beside the store")
    {
        return Err(format!("beside the store: {beside:?}"));
    }
    if kind == Kind::Dir && not_keys != Some(names(&dir, false)) {
        return Err(format!(
            "files that are no key changed: {:?}",
            names(&dir, false)
        ));
    }
    Ok(())
}

#[test]
fn every_tampered_store_is_answered_as_damage_on_both_backends() {
    let data =
        data::hostile_stores(&support::load("hostile-stores.json")).expect("hostile-stores.json");
    assert!(!data.cases.is_empty(), "no tampered stores");
    let mut failures = Vec::new();
    for kind in KINDS {
        for case in &data.cases {
            if let Err(e) = run(kind, case, &data.probes) {
                failures.push(format!("{kind:?} {}: {e}", case.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs failed:\n{}",
        failures.len(),
        2 * data.cases.len(),
        failures.join("\n")
    );
}
