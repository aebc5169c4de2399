//! What a command costs in store operations: renaming or deleting a directory of
//! 10,000 files rewrites the directories on the way to the root, never the files
//! or their content; what grows with the files is their versions (one record
//! each, and the log leaves holding their slots), as the memory-store model asks.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use common::{Harness, file};
use memdir::__hooks::{LOG_FANOUT, height};
use memdir::config::Config;
use memdir::{Engine, MemoryStore, block_on};

/// The most log nodes a command that gives 10,000 memories a version each writes
/// in a log that grows to 20,000 slots: the leaves of the new slots, the leaves
/// holding each memory's first slot (its newest version changes), and at most every
/// inner node of the log. 1,335 at the fanout of 16: 2 * 625 + 79 + 5 + 1.
fn most_log_writes() -> u64 {
    let leaves = 2 * 10_000u64.div_ceil(LOG_FANOUT);
    let inner: u64 = (1..=height(20_000, LOG_FANOUT))
        .map(|level| 20_000u64.div_ceil(LOG_FANOUT.pow(level + 1)))
        .sum();
    leaves + inner
}

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
    let s = &store.shared;
    // The tree: new nodes root, a, b, c; then the commit and the head.
    assert_eq!(s.count("set", "tree"), 4);
    assert_eq!(s.count("set", "commit"), 1);
    assert_eq!(s.count("cas", "head"), 1);
    // One `modified` record per file; no content is read or written.
    assert_eq!(s.count("set", "rec"), 10_000);
    assert_eq!(s.count("get", "blob") + s.count("set", "blob"), 0);
    let log = s.count("set", "log");
    assert_eq!(most_log_writes(), 1_335);
    assert!(log <= most_log_writes(), "{log} log nodes");
    assert_eq!(writes, 4 + 1 + 1 + 10_000 + log);
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
    let s = &store.shared;
    // New nodes root, a, b; one `deleted` record per file; no content touched.
    assert_eq!(s.count("set", "tree"), 3);
    assert_eq!(s.count("set", "rec"), 10_000);
    assert_eq!(s.count("get", "blob") + s.count("set", "blob"), 0);
    assert!(s.count("set", "log") <= most_log_writes());
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
    // Everything it needs is cached: it writes a blob, the root, its version's
    // record and log leaf, the commit, and swaps; nothing is read.
    assert_eq!(
        *store.shared.by_key.borrow(),
        [
            ("cas head", 1),
            ("set blob", 1),
            ("set commit", 1),
            ("set log", 1),
            ("set rec", 1),
            ("set tree", 1)
        ]
        .into_iter()
        .map(|(k, n)| (String::from(k), n))
        .collect()
    );
}
