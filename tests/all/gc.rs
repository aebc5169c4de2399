//! Garbage collection deletes what no kept commit reaches, and only what was already
//! unreferenced at the previous pass, so another writer's unpublished objects survive.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::pin::pin;
use std::task::{Context, Poll, Waker};

use common::Harness;
use memdir::config::Config;
use memdir::{Engine, GcReport, MemoryStore, block_on};

#[test]
fn collects_history_but_keeps_the_tree() {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    for i in 0..20 {
        let input =
            format!(r#"{{"command":"create","path":"/memories/f{i}.md","file_text":"v{i}"}}"#);
        assert!(!block_on(engine.execute_json(&input)).is_error);
        let input = format!(
            r#"{{"command":"str_replace","path":"/memories/f{i}.md","old_str":"v{i}","new_str":"w{i}"}}"#
        );
        assert!(!block_on(engine.execute_json(&input)).is_error);
    }
    let before = block_on(engine.entries()).unwrap();
    let keys_before = store.len();
    let first = block_on(engine.gc(0)).unwrap();
    assert_eq!(first.deleted, 0, "the first pass only marks candidates");
    let second = block_on(engine.gc(0)).unwrap();
    assert_eq!(
        second,
        GcReport {
            // The head commit, the root, the 20 files; and their history: 40
            // version records, the log (a top and its 3 leaves of 16 slots), and
            // the 20 first contents the `created` versions still hold.
            reachable: 1 + 1 + 20 + 40 + 4 + 20,
            deleted: first.pending,
            pending: 0
        }
    );
    // head + gc/pending + gc/pending-at + commit + root + 20 blobs, and the history above
    assert_eq!(
        store.len(),
        3 + 1 + 1 + 20 + 40 + 4 + 20,
        "{keys_before} keys before"
    );
    let history = block_on(engine.api(&serde_json::json!({"op": "version.list"})));
    assert_eq!(
        history.body["data"][19]["content_sha256"]
            .as_str()
            .map(str::len),
        Some(64)
    );
    let fresh = Engine::new(store.clone(), Config::default());
    assert_eq!(block_on(fresh.entries()).unwrap(), before);
    assert!(
        !block_on(fresh.execute_json(r#"{"command":"delete","path":"/memories/f3.md"}"#)).is_error
    );
}

#[test]
fn an_unpublished_object_survives_a_pass() {
    let backing = MemoryStore::new();
    let writer_store = Harness {
        yielding: true,
        ..Harness::new(backing.clone())
    };
    let writer = Engine::new(&writer_store, Config::default());
    let collector = Engine::new(backing.clone(), Config::default());
    let input =
        r#"{"command":"create","path":"/memories/late.md","file_text":"written before the sweep"}"#;
    let mut fut = pin!(writer.execute_json(input));
    let mut cx = Context::from_waker(Waker::noop());
    // Drive the writer until it has written its blob but not yet moved the head.
    while backing.is_empty() {
        assert!(matches!(fut.as_mut().poll(&mut cx), Poll::Pending));
    }
    block_on(collector.gc(0)).unwrap();
    let done = loop {
        if let Poll::Ready(r) = fut.as_mut().poll(&mut cx) {
            break r;
        }
    };
    assert!(!done.is_error, "{}", done.content);
    block_on(collector.gc(0)).unwrap();
    let reader = Engine::new(backing.clone(), Config::default());
    let view = block_on(reader.execute_json(r#"{"command":"view","path":"/memories/late.md"}"#));
    assert_eq!(
        view.content,
        "Here's the content of /memories/late.md with line numbers:\n     1\twritten before the sweep"
    );
}

#[test]
fn a_pass_lists_the_store_once() {
    // One listing of every key: a store directory reads itself whole for a
    // listing, and a listing for each kind of object read it five times a pass.
    let store = Harness::new(MemoryStore::new());
    let engine = Engine::new(&store, Config::default());
    let input = r#"{"command":"create","path":"/memories/a.md","file_text":"a"}"#;
    assert!(!block_on(engine.execute_json(input)).is_error);
    store.shared.reset();
    block_on(engine.gc(0)).unwrap();
    assert_eq!(store.shared.by_kind.borrow().get("list"), Some(&1));
    assert_eq!(store.shared.count("list", ""), 1);
}
