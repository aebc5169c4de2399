//! What reading versions and lists costs as the history grows: with 10,000 versions
//! in the store, listing one memory's versions, the newest versions, one prefix's
//! memories, or retrieving one memory or version reads store values in proportion
//! to what it returns (one record per version, the log nodes on the way to those
//! versions' slots, the tree nodes on the way to the prefix), exactly as many as
//! with 100 versions but for the log's one extra level; and a write is still one
//! compare-and-swap. Each read is measured on a fresh engine, so no cache hides one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;
#[path = "common/history.rs"]
mod history;

use std::collections::{BTreeMap, BTreeSet};

use common::Harness;
use history::History;
use memdir::__hooks::{LOG_FANOUT, height};
use memdir::config::Config;
use memdir::{Engine, MemoryStore, block_on};
use serde_json::{Value, json};

/// The answer to `request` from a fresh engine over `store`, and the store
/// operations it made, by kind and key prefix ("get rec", "cas head").
fn cold(store: &MemoryStore, request: Value) -> (Value, BTreeMap<String, u64>) {
    let counted = Harness::new(store.clone());
    let engine = Engine::new(&counted, Config::default());
    let r = block_on(engine.api(&request));
    assert_eq!(r.status, 200, "{request}: {}", r.body);
    let ops = counted.shared.by_key.borrow().clone();
    (r.body, ops)
}

/// The distinct log nodes on the paths from the top to the slots of `versions`
/// (numbers from 1) that a log of `total` versions holds: what reading them costs
/// cold (a slot past the log is on the way to the nodes the log already has).
fn log_nodes(versions: &[u64], total: u64) -> u64 {
    let mut nodes = BTreeSet::new();
    for level in 0..=height(total, LOG_FANOUT) {
        let span = LOG_FANOUT.pow(level + 1);
        nodes.extend(
            versions
                .iter()
                .map(|v| (level, (v - 1) / span))
                .filter(|(_, node)| node * span < total),
        );
    }
    nodes.len() as u64
}

/// The most nodes of a log of `total` versions that a walk to `slots` slots reads:
/// on each level below the top, one a slot or every node of the level, then the top.
fn most_log_reads(slots: u64, total: u64) -> u64 {
    let below: u64 = (0..height(total, LOG_FANOUT))
        .map(|level| slots.min(total.div_ceil(LOG_FANOUT.pow(level + 1))))
        .sum();
    below + 1
}

fn number(id: &str) -> u64 {
    id.rsplit('_').next().unwrap().parse().unwrap()
}

fn ids(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

/// `ops` as the reads it made: every `get` and `list`, with nothing else.
fn only_reads(ops: &BTreeMap<String, u64>) {
    for k in ops.keys() {
        assert!(
            k.starts_with("get ") || k.starts_with("list "),
            "a read wrote: {ops:?}"
        );
    }
}

fn built(n: u64) -> (MemoryStore, History) {
    let store = MemoryStore::new();
    let h = history::build(&Engine::new(store.clone(), Config::default()), n);
    (store, h)
}

/// The reads of each listing, at one history size; returns them for comparison.
fn check_reads(store: &MemoryStore, h: &History) -> Vec<(&'static str, u64)> {
    let n = h.versions;
    let mut totals = Vec::new();
    let total = |ops: &BTreeMap<String, u64>| ops.values().sum::<u64>();
    // One read of the head and of the commit it names, whatever the operation.
    let head = [("get commit", 1), ("get head", 1)];

    // One memory's versions, a page of 20: one record each, and the log nodes on
    // the way to them and to the memory's first slot; to find the newest, the
    // record its first slot names (the version that created it: edits of content
    // are named by its file, not its first slot) and the tree on the way to its
    // file (the root holds it), which names the newest.
    let (body, ops) = cold(
        store,
        json!({"op": "version.list", "query": {"memory_id": h.hot_id, "limit": "20"}}),
    );
    only_reads(&ops);
    let want: Vec<String> = h.hot_versions[..20]
        .iter()
        .map(|v| format!("memver_local_{v}"))
        .collect();
    assert_eq!(ids(&body), want);
    assert!(body["next_page"].is_string());
    let first = *h.hot_versions.last().unwrap();
    let slots: Vec<u64> = h.hot_versions[..20]
        .iter()
        .copied()
        .chain([first])
        .collect();
    let expected: BTreeMap<String, u64> = head
        .into_iter()
        .chain([
            ("get log", log_nodes(&slots, n)),
            ("get rec", 21),
            ("get tree", 1),
        ])
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(ops, expected, "version.list of one memory at {n} versions");
    totals.push(("version.list memory_id", total(&ops)));

    // The newest 20 versions of the store: consecutive slots.
    let (body, ops) = cold(
        store,
        json!({"op": "version.list", "query": {"limit": "20"}}),
    );
    let newest: Vec<u64> = (n - 19..=n).rev().collect();
    assert_eq!(
        ids(&body),
        newest
            .iter()
            .map(|v| format!("memver_local_{v}"))
            .collect::<Vec<_>>()
    );
    let expected: BTreeMap<String, u64> = head
        .into_iter()
        .chain([("get log", log_nodes(&newest, n)), ("get rec", 20)])
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(ops, expected, "version.list at {n} versions");
    totals.push(("version.list", total(&ops)));

    // One version, with its content: its slot, record and blob.
    let newest_hot = h.hot_versions[0];
    let (body, ops) = cold(
        store,
        json!({"op": "version.retrieve", "id": format!("memver_local_{newest_hot}")}),
    );
    assert_eq!(
        body["content"],
        json!(format!("hot v{}", history::HOT_EDITS))
    );
    let expected: BTreeMap<String, u64> = head
        .into_iter()
        .chain([
            ("get blob", 1),
            ("get log", log_nodes(&[newest_hot], n)),
            ("get rec", 1),
        ])
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(ops, expected, "version.retrieve at {n} versions");
    totals.push(("version.retrieve", total(&ops)));

    // One prefix of 20 memories: the root and the prefix's directory node, and
    // each memory's first slot (its newest version number and time); no record.
    let (body, ops) = cold(
        store,
        json!({"op": "memory.list", "query": {"path_prefix": "/list/", "limit": "20"}}),
    );
    let paths: Vec<&str> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    let want: Vec<String> = (0..history::LISTED)
        .map(|i| format!("/list/m{i:02}.md"))
        .collect();
    assert_eq!(paths, want);
    assert!(body["next_page"].is_null());
    let firsts: Vec<u64> = ids(&body).iter().map(|id| number(id)).collect();
    let expected: BTreeMap<String, u64> = head
        .into_iter()
        .chain([("get log", log_nodes(&firsts, n)), ("get tree", 2)])
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(ops, expected, "memory.list of one prefix at {n} versions");
    totals.push(("memory.list path_prefix", total(&ops)));

    // One memory: its first slot and the record it names (the version that
    // created it, and says where it is), its file there (the root holds it; it
    // names the newest version, an edit) and its content.
    let (body, ops) = cold(store, json!({"op": "memory.retrieve", "id": h.hot_id}));
    assert_eq!(
        body["memory_version_id"],
        json!(format!("memver_local_{newest_hot}"))
    );
    let expected: BTreeMap<String, u64> = head
        .into_iter()
        .chain([
            ("get blob", 1),
            ("get log", log_nodes(&[first], n)),
            ("get rec", 1),
            ("get tree", 1),
        ])
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(ops, expected, "memory.retrieve at {n} versions");
    totals.push(("memory.retrieve", total(&ops)));
    totals
}

#[test]
fn reading_versions_and_lists_costs_what_they_return_not_the_history() {
    let (small, h100) = built(100);
    let (large, h10k) = built(10_000);
    // The large history: the hot memory's versions lie 249 slots apart, each in
    // its own log leaf (the most a one-memory listing can read), under a log two
    // levels taller.
    assert_eq!(h10k.bulk_files, 248);
    assert_eq!(
        (height(100, LOG_FANOUT), height(10_000, LOG_FANOUT)),
        (1, 3)
    );
    let at100 = check_reads(&small, &h100);
    let at10k = check_reads(&large, &h10k);
    for ((name, a), (_, b)) in at100.iter().zip(&at10k) {
        println!("{name:<24} store reads: {a:>3} at 100 versions, {b:>3} at 10,000");
        // However the versions lie, a page of 20 reads its 20 records, the log
        // nodes on the way to 21 slots (21 leaves, 21 of the 40 nodes above them, 3
        // above those, the top), the head and the commit: far from the 10,000
        // records and 625 leaves of the history; and to find one memory's newest
        // version, the record its first slot names and the tree on the way to its
        // file (one node: the root holds it).
        assert_eq!(most_log_reads(21, 10_000), 21 + 21 + 3 + 1);
        assert!(
            *b <= 20 + most_log_reads(21, 10_000) + 2 + 2,
            "{name}: {b} reads at 10,000 versions"
        );
    }
}

#[test]
fn a_write_at_ten_thousand_versions_is_one_compare_and_swap_and_reads_no_history() {
    let (store, h) = built(10_000);
    let counted = Harness::new(store.clone());
    let engine = Engine::new(&counted, Config::default());
    let r = block_on(engine.execute_json(
        r#"{"command":"str_replace","path":"/memories/hot.md","old_str":"v39","new_str":"v40"}"#,
    ));
    assert!(!r.is_error, "{}", r.content);
    let s = &counted.shared;
    assert_eq!(s.count("cas", "head"), 1);
    assert_eq!(s.count("set", "rec"), 1);
    assert_eq!(s.count("set", "commit"), 1);
    // The new version's slot lands in the last leaf, which it rewrites with the
    // nodes above it, and nothing else of the log: an edit of content is named by
    // the memory's file, so the leaf of its first slot (in another) stays as it was.
    let first = *h.hot_versions.last().unwrap();
    assert_eq!(s.count("set", "log"), log_nodes(&[10_001], 10_001));
    assert_eq!(log_nodes(&[first, 10_001], 10_001), 7);
    // It reads the log only on the way to the memory's first slot (which names the
    // version before, with its file) and the last leaf, and no record.
    assert_eq!(s.count("get", "log"), log_nodes(&[first, 10_001], 10_000));
    assert_eq!(s.count("get", "rec"), 0);
}
