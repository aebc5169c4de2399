//! Version retention: what a pass drops and keeps, what the API then answers, that a
//! store's bytes follow what is live plus what is kept (not every version ever
//! made), that a pass is bounded on a hostile log, and gc's minimum age.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::cell::Cell;
use std::rc::Rc;

use memdir::config::{Config, MAX_RETAIN_SCAN};
use memdir::{Engine, MemoryStore, RetainReport, Store, block_on};
use serde_json::{Value, json};

const DAY: u64 = 24 * 60 * 60 * 1000;
const PERIOD: u64 = 30 * DAY;

/// An engine over a fresh memory store with a store record, and its clock.
fn engine(config: Config) -> (Engine<MemoryStore>, MemoryStore, Rc<Cell<u64>>) {
    let store = MemoryStore::new();
    let mut engine = Engine::new(store.clone(), config);
    let now = Rc::new(Cell::new(1_795_000_000_000u64));
    let clock = now.clone();
    engine.set_clock(Box::new(move || clock.get()));
    let made = block_on(engine.api(&json!({
        "op": "store.create", "id": common::STORE_ID, "body": r#"{"name":"Prefs"}"#
    })));
    assert_eq!(made.status, 200, "{:?}", made.body);
    (engine, store, now)
}

fn call(engine: &Engine<impl Store>, request: Value) -> (u16, Value) {
    let r = block_on(engine.api(&request));
    (r.status, r.body)
}

fn ok(engine: &Engine<impl Store>, request: Value) -> Value {
    let (status, body) = call(engine, request.clone());
    assert_eq!(status, 200, "{request} -> {body}");
    body
}

fn create(engine: &Engine<impl Store>, path: &str, content: &str) -> String {
    let body = json!({"path": path, "content": content}).to_string();
    let m = ok(engine, json!({"op": "memory.create", "body": body}));
    m["id"].as_str().unwrap().to_owned()
}

fn update(engine: &Engine<impl Store>, id: &str, content: &str) -> String {
    let body = json!({"content": content}).to_string();
    let m = ok(
        engine,
        json!({"op": "memory.update", "id": id, "body": body}),
    );
    m["memory_version_id"].as_str().unwrap().to_owned()
}

/// Every version id `version.list` answers (all pages), newest first.
fn version_ids(engine: &Engine<impl Store>, query: Value) -> Vec<String> {
    let mut ids = Vec::new();
    let mut query = query;
    loop {
        let page = ok(
            engine,
            json!({"op": "version.list", "query": query.clone()}),
        );
        for v in page["data"].as_array().unwrap() {
            ids.push(v["id"].as_str().unwrap().to_owned());
        }
        match page["next_page"].as_str() {
            Some(token) => query["page"] = json!(token),
            None => return ids,
        }
    }
}

fn retain(engine: &Engine<impl Store>) -> RetainReport {
    block_on(engine.retain(PERIOD)).unwrap()
}

fn the_head_commit(store: &MemoryStore) -> Value {
    let head = String::from_utf8(block_on(store.get("head")).unwrap().unwrap()).unwrap();
    serde_json::from_slice(
        &block_on(store.get(&format!("commit/{head}")))
            .unwrap()
            .unwrap(),
    )
    .unwrap()
}

fn bytes_holding(store: &MemoryStore, text: &str) -> Vec<String> {
    common::dump(store)
        .into_iter()
        .filter(|(_, v)| v.windows(text.len()).any(|w| w == text.as_bytes()))
        .map(|(k, _)| k)
        .collect()
}

#[test]
fn a_pass_drops_old_versions_but_keeps_each_live_memorys_current_one() {
    let (e, _, now) = engine(Config::default());
    let a = create(&e, "/a.md", "a one");
    update(&e, &a, "a two");
    let a3 = update(&e, &a, "a three");
    let b = create(&e, "/b.md", "b one");
    ok(&e, json!({"op": "memory.delete", "id": b}));
    let before = version_ids(&e, json!({}));
    assert_eq!(before.len(), 5);
    now.set(now.get() + PERIOD + 1);
    let c = create(&e, "/c.md", "c one");
    let c1 = version_ids(&e, json!({"memory_id": c}))[0].clone();

    assert_eq!(
        retain(&e),
        RetainReport {
            dropped: 4,
            more: false
        }
    );
    assert_eq!(version_ids(&e, json!({})), [c1.clone(), a3.clone()]);
    assert_eq!(
        version_ids(&e, json!({"memory_id": a})),
        std::slice::from_ref(&a3)
    );
    for gone in [&before[1], &before[3], &before[4]] {
        let (status, body) = call(&e, json!({"op": "version.retrieve", "id": gone}));
        assert_eq!(status, 404);
        assert_eq!(
            body["error"]["message"],
            format!("No memory version {gone:?} in this store.")
        );
        let (status, _) = call(
            &e,
            json!({"op": "version.redact", "id": gone, "body": "{}"}),
        );
        assert_eq!(status, 404);
    }
    // The memory lives on, its current version named; the deleted one is unknown.
    let m = ok(&e, json!({"op": "memory.retrieve", "id": a}));
    assert_eq!(m["memory_version_id"], json!(a3));
    assert_eq!(m["content"], "a three");
    let (status, _) = call(&e, json!({"op": "memory.retrieve", "id": b}));
    assert_eq!(status, 404);
    // A second pass finds nothing more to drop.
    assert_eq!(retain(&e), RetainReport::default());
    // The memory goes on changing; its chain ends at the version retention kept,
    // which the next pass drops, being no longer current.
    let a4 = update(&e, &a, "a four");
    assert_eq!(version_ids(&e, json!({"memory_id": a})), [a4.clone(), a3]);
    assert_eq!(
        retain(&e),
        RetainReport {
            dropped: 1,
            more: false
        }
    );
    assert_eq!(version_ids(&e, json!({"memory_id": a})), [a4]);
}

#[test]
fn a_store_holds_what_is_live_plus_what_is_kept_not_every_version_made() {
    let (e, store, now) = engine(Config::default());
    let id = create(&e, "/notes.md", "version 0");
    let other = create(&e, "/other.md", "stays as it was");
    for i in 1..=4_200 {
        update(&e, &id, &format!("version {i}"));
    }
    let records = |store: &MemoryStore| {
        common::dump(store)
            .iter()
            .filter(|(k, _)| k.starts_with("rec/"))
            .count()
    };
    assert!(records(&store) > 4_200);
    now.set(now.get() + PERIOD + 1);
    let kept = update(&e, &id, "the newest");

    assert_eq!(
        retain(&e),
        RetainReport {
            dropped: 4_201,
            more: false
        }
    );
    for _ in 0..2 {
        block_on(e.gc(0)).unwrap();
    }
    let dump = common::dump(&store);
    // Two live memories: the current version of each (the newest, and `other`'s
    // first), and a log of 4,203 slots (three levels of inner nodes) in seven
    // nodes: the top, and on the way down to each of the two leaves left, the first
    // (indexing both memories) and the newest's, one node a level; the 261 leaves
    // between are pruned.
    assert_eq!(records(&store), 2);
    let log_nodes = dump.iter().filter(|(k, _)| k.starts_with("log/")).count();
    assert_eq!(
        log_nodes,
        7,
        "{:?}",
        dump.iter().map(|(k, _)| k).collect::<Vec<_>>()
    );
    assert!(bytes_holding(&store, "version 4200").is_empty());
    assert!(bytes_holding(&store, "version 1").is_empty());
    let total: usize = dump.iter().map(|(k, v)| k.len() + v.len()).sum();
    assert!(total < 16 * 1024, "{total} bytes stored");
    assert_eq!(
        version_ids(&e, json!({})),
        [
            kept.clone(),
            version_ids(&e, json!({"memory_id": other}))[0].clone()
        ]
    );
    let m = ok(&e, json!({"op": "memory.retrieve", "id": id}));
    assert_eq!(
        (m["content"].as_str(), m["memory_version_id"].as_str()),
        (Some("the newest"), Some(kept.as_str()))
    );
}

#[test]
fn a_log_whose_every_version_is_dropped_is_stored_nowhere_and_grows_again() {
    let (e, store, now) = engine(Config::default());
    let x = create(&e, "/x.md", "x");
    ok(&e, json!({"op": "memory.delete", "id": x}));
    now.set(now.get() + PERIOD + 1);
    assert_eq!(
        retain(&e),
        RetainReport {
            dropped: 2,
            more: false
        }
    );
    assert_eq!(the_head_commit(&store)["log"], json!("0".repeat(64)));
    assert_eq!(version_ids(&e, json!({})), Vec::<String>::new());
    let y = create(&e, "/y.md", "y");
    let y1 = version_ids(&e, json!({"memory_id": y}));
    assert_eq!(version_ids(&e, json!({})), y1);
    assert_eq!(
        ok(&e, json!({"op": "memory.retrieve", "id": y}))["content"],
        "y"
    );
    for _ in 0..2 {
        block_on(e.gc(0)).unwrap();
    }
    assert!(bytes_holding(&store, "x.md").is_empty());
}

#[test]
fn young_versions_stay_and_a_read_only_store_is_left_alone() {
    let (e, store, now) = engine(Config::default());
    let a = create(&e, "/a.md", "one");
    update(&e, &a, "two");
    now.set(now.get() + PERIOD - 1);
    assert_eq!(retain(&e), RetainReport::default());
    assert_eq!(version_ids(&e, json!({})).len(), 2);

    now.set(now.get() + 2);
    let before = common::dump(&store);
    let ro = Engine::new(
        store.clone(),
        Config {
            read_only: true,
            ..Config::default()
        },
    );
    assert_eq!(block_on(ro.retain(0)).unwrap(), RetainReport::default());
    assert_eq!(common::dump(&store), before);
}

#[test]
fn a_pass_over_a_log_claiming_64_to_the_6th_versions_reads_a_bounded_number() {
    common::finishes_within(
        120,
        "the pass finished (a walk over every claimed version never does)",
        retain_in_hostile_log,
    );
}

fn retain_in_hostile_log() {
    let (e, store, now) = engine(Config::default());
    let a = create(&e, "/a.md", "one");
    update(&e, &a, "two");
    common::claim_64_to_the_6th_versions(&store);

    now.set(now.get() + PERIOD + 1);
    let report = block_on(e.retain(0)).unwrap();
    assert!(report.more, "{report:?}");
    assert!(report.dropped <= MAX_RETAIN_SCAN, "{report:?}");
}

#[test]
fn a_servers_gc_deletes_only_what_was_unreferenced_for_its_minimum_age() {
    let (e, store, now) = engine(Config::default());
    let a = create(&e, "/a.md", "first text");
    update(&e, &a, "second text");
    now.set(now.get() + PERIOD + 1);
    retain(&e);
    let held = |store: &MemoryStore| !bytes_holding(store, "first text").is_empty();
    let age = 5 * 60 * 1000;
    assert_eq!(block_on(e.gc_after(0, age)).unwrap().deleted, 0);
    now.set(now.get() + age - 1);
    // Too soon after the pass that found it unreferenced: nothing goes.
    assert_eq!(block_on(e.gc_after(0, age)).unwrap().deleted, 0);
    assert!(held(&store));
    now.set(now.get() + 1);
    assert!(block_on(e.gc_after(0, age)).unwrap().deleted > 0);
    assert!(!held(&store));

    // A pass recorded by a clock far ahead restarts the wait; it does not stop gc.
    let b = create(&e, "/b.md", "third text");
    update(&e, &b, "fourth text");
    now.set(now.get() + PERIOD + 1);
    retain(&e);
    block_on(store.set("gc/pending-at", b"18446744073709551615")).unwrap();
    assert_eq!(block_on(e.gc_after(0, age)).unwrap().deleted, 0);
    now.set(now.get() + age);
    block_on(e.gc_after(0, age)).unwrap();
    now.set(now.get() + age);
    assert!(block_on(e.gc_after(0, age)).unwrap().deleted > 0);
    assert!(bytes_holding(&store, "third text").is_empty());
}
