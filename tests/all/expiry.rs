//! The expiry sweep: entries not written for a while go, in one commit; recent
//! ones, and the directories above them, stay.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::cell::Cell;
use std::rc::Rc;

use common::Harness;
use memdir::__hooks::LOG_FANOUT;
use memdir::config::Config;
use memdir::{Engine, ExpireReport, MemoryStore, block_on};
use serde_json::json;

fn engine_with_clock(
    store: &Harness<MemoryStore>,
) -> (Engine<&Harness<MemoryStore>>, Rc<Cell<u64>>) {
    let now = Rc::new(Cell::new(0));
    let mut e = Engine::new(store, Config::default());
    let clock = now.clone();
    e.set_clock(Box::new(move || clock.get()));
    (e, now)
}

fn run(e: &Engine<&Harness<MemoryStore>>, input: serde_json::Value) {
    let r = block_on(e.execute(&input));
    assert!(!r.is_error, "{}", r.content);
}

#[test]
fn removes_what_was_not_written_since_the_cutoff() {
    let store = Harness::new(MemoryStore::new());
    let (e, now) = engine_with_clock(&store);
    now.set(1_000);
    run(
        &e,
        json!({"command":"create","path":"/memories/old/a.md","file_text":"aaaa"}),
    );
    run(
        &e,
        json!({"command":"create","path":"/memories/old/b.md","file_text":"bb"}),
    );
    run(
        &e,
        json!({"command":"create","path":"/memories/mixed/stale.md","file_text":"s"}),
    );
    now.set(5_000);
    run(
        &e,
        json!({"command":"create","path":"/memories/mixed/fresh.md","file_text":"f"}),
    );
    run(
        &e,
        json!({"command":"create","path":"/memories/top.md","file_text":"t"}),
    );
    // A rename moves a file without writing it: it keeps its age.
    run(
        &e,
        json!({"command":"rename","old_path":"/memories/old/b.md","new_path":"/memories/moved.md"}),
    );
    now.set(10_000);
    // Written before 10,000 - 6,000 = 4,000: old/a.md, mixed/stale.md, moved.md; and
    // old/, which the sweep empties (its rename at 5,000 wrote no file in it).
    let report = block_on(e.expire(6_000)).unwrap();
    assert_eq!(
        report,
        ExpireReport {
            removed: 4,
            bytes: 4 + 1 + 2
        }
    );
    let paths: Vec<String> = block_on(e.entries())
        .unwrap()
        .into_iter()
        .map(|x| x.path)
        .collect();
    assert_eq!(
        paths,
        [
            "/memories/mixed",
            "/memories/mixed/fresh.md",
            "/memories/top.md"
        ]
    );
    // Nothing left to expire: no commit at all.
    store.shared.reset();
    assert_eq!(block_on(e.expire(6_000)).unwrap(), ExpireReport::default());
    assert_eq!(store.shared.writes.get(), 0);
    // Much later everything goes, the emptied directories with it.
    now.set(100_000);
    assert_eq!(
        block_on(e.expire(1_000)).unwrap(),
        ExpireReport {
            removed: 2,
            bytes: 2
        }
    ); // mixed/ whole, top.md
    assert!(block_on(e.entries()).unwrap().is_empty());
}

#[test]
fn a_sweep_reads_only_directories_with_something_recent() {
    let store = Harness::new(MemoryStore::new());
    let (e, now) = engine_with_clock(&store);
    now.set(1);
    for i in 0..50 {
        run(
            &e,
            json!({"command":"create","path":format!("/memories/archive/{i}.md"),"file_text":"x"}),
        );
    }
    now.set(1_000_000);
    run(
        &e,
        json!({"command":"create","path":"/memories/today.md","file_text":"y"}),
    );
    let fresh = Engine::new(&store, Config::default());
    store.shared.reset();
    let mut fresh = fresh;
    fresh.set_clock(Box::new(|| 1_000_000));
    assert_eq!(
        block_on(fresh.expire(1_000)).unwrap(),
        ExpireReport {
            removed: 1,
            bytes: 50
        }
    );
    // Deciding reads the head, its commit and the root node only: nothing in
    // `archive` is recent, so it goes whole without being swept. It is read once
    // afterwards, for the ids of its 50 memories (each gets a `deleted` version),
    // and the log's nodes that hold their first slots (51 slots: a top and the 4
    // leaves of 16 beneath it): no file's content is read.
    assert_eq!(store.shared.count("get", "tree"), 2);
    assert_eq!(store.shared.count("get", "blob"), 0);
    assert_eq!(
        store.shared.count("get", "log"),
        1 + 51u64.div_ceil(LOG_FANOUT)
    );
    assert_eq!(store.shared.count("set", "rec"), 50);
}
