//! What a command costs in store operations: renaming or deleting a directory of
//! 10,000 files rewrites the directories on the way to the root, never the files.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{Harness, file};
use memdir::{Config, Engine, MemoryStore, block_on};

fn ten_thousand() -> MemoryStore {
    let store = MemoryStore::new();
    let entries: Vec<_> = (0..10_000)
        .map(|i| file(&format!("/memories/a/b/big/f{i:05}.md"), &format!("{i}")))
        .collect();
    block_on(Engine::new(store.clone(), Config::default()).import(&entries)).unwrap();
    store
}

#[test]
fn renaming_a_directory_of_ten_thousand_files_costs_o_depth() {
    let store = Harness::new(ten_thousand());
    let engine = Engine::new(&store, Config::default());
    let r = block_on(engine.execute_json(
        r#"{"command":"rename","old_path":"/memories/a/b/big","new_path":"/memories/c/big2"}"#,
    ));
    assert_eq!(
        r.content,
        "Successfully renamed /memories/a/b/big to /memories/c/big2"
    );
    let (ops, writes) = (store.shared.ops.get(), store.shared.writes.get());
    println!(
        "rename of 10,000 files: {ops} store operations, {writes} writes ({:?})",
        store.shared.by_kind.borrow()
    );
    // New nodes: root, a, b, c; then the commit and the head: 6 writes. Reads: the
    // head, its commit, and the four directories on the two paths.
    assert!(writes <= 6, "{writes} writes");
    assert!(ops <= 14, "{ops} operations");
    let entries = block_on(Engine::new(&store.inner, Config::default()).entries()).unwrap();
    assert_eq!(
        entries
            .iter()
            .filter(|e| e.path.starts_with("/memories/c/big2/f"))
            .count(),
        10_000
    );
    assert!(
        !entries
            .iter()
            .any(|e| e.path.starts_with("/memories/a/b/big"))
    );
}

#[test]
fn deleting_a_directory_of_ten_thousand_files_costs_o_depth() {
    let store = Harness::new(ten_thousand());
    let engine = Engine::new(&store, Config::default());
    let r = block_on(engine.execute_json(r#"{"command":"delete","path":"/memories/a/b/big"}"#));
    assert_eq!(r.content, "Successfully deleted /memories/a/b/big");
    assert!(
        store.shared.writes.get() <= 5,
        "{} writes",
        store.shared.writes.get()
    );
}

#[test]
fn an_uncontended_edit_with_a_warm_cache_is_one_publish() {
    let store = Harness::new(MemoryStore::new());
    let engine = Engine::new(&store, Config::default());
    block_on(
        engine.execute_json(r#"{"command":"create","path":"/memories/n.md","file_text":"a"}"#),
    );
    store.shared.reset();
    let r = block_on(engine.execute_json(
        r#"{"command":"insert","path":"/memories/n.md","insert_line":1,"insert_text":"b"}"#,
    ));
    assert!(!r.is_error);
    // Everything it needs is cached: it writes a blob, the root, the commit and swaps.
    assert_eq!(
        *store.shared.by_kind.borrow(),
        [("cas", 1), ("set", 3)].into_iter().collect()
    );
}
