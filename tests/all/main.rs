//! The engine's integration tests, as one test binary (as wasmtime keeps its own in
//! `tests/all/main.rs`): each former `tests/<name>.rs` is a module here, so the engine
//! and the dev-dependencies are linked once rather than once per file, which is most
//! of a clean test build's time and of its disk. A module's tests are named
//! `<module>::<test>`: `cargo test -p memdir --test all sync::` runs one module's.
//! Each module keeps its own lint allowances; `common` is the store wrapper they
//! share (and `cargo bench --bench engine` includes by path).

mod access;
mod api;
mod atomicity;
mod block_on;
mod common;
mod concurrency;
mod conformance;
mod cost;
mod expiry;
mod gc;
mod hostile_store;
mod layers;
mod model;
mod mounts;
mod old_stores;
mod records;
mod redaction;
mod retention;
mod seal;
mod search;
mod search_conformance;
mod search_crash;
mod search_model;
mod search_rank;
mod search_tokens;
mod semantic;
mod semantic_model;
mod shard;
mod sync;
mod texts;
mod tool_definition;
mod toolset;
mod typed;
mod unicode_tables;
mod version_cost;
mod view_overlap;

use std::collections::BTreeSet;
use std::path::Path;
use std::{fs, io};

/// Every file and folder of `tests/all/` is a module above, and no `.rs` file sits
/// directly in `tests/`: with `autotests = false` cargo builds neither a file left
/// out of this list nor a new `tests/<name>.rs`, so their tests would never run and
/// nothing would say so.
#[test]
fn every_test_file_is_a_module_of_this_binary() -> io::Result<()> {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = fs::read_to_string(tests.join("all/main.rs"))?;
    let declared: BTreeSet<String> = main
        .lines()
        .filter_map(|line| line.strip_prefix("mod ")?.strip_suffix(';'))
        .map(String::from)
        .collect();
    let mut files = BTreeSet::new();
    for entry in fs::read_dir(tests.join("all"))? {
        let path = entry?.path();
        let Some(name) = path.file_stem().and_then(|n| n.to_str()) else {
            continue;
        };
        if path.is_dir() || (path.extension().is_some_and(|e| e == "rs") && name != "main") {
            files.insert(name.to_owned());
        }
    }
    assert_eq!(declared, files, "tests/all/main.rs declares every module");
    let mut loose = Vec::new();
    for entry in fs::read_dir(&tests)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            loose.push(
                path.strip_prefix(&tests)
                    .unwrap_or(&path)
                    .display()
                    .to_string(),
            );
        }
    }
    assert_eq!(
        loose,
        Vec::<String>::new(),
        "move these into tests/all/ as modules"
    );
    Ok(())
}
