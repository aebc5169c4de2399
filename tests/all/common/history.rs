//! A store with a history of exactly `n` versions, built fast, for what reading
//! versions and lists costs as the history grows (tests/all/version_cost.rs and
//! `cargo bench --bench engine`).
//!
//! Layout (`F` files in `/memories/bulk`, `P` padding edits):
//! - import: `/memories/list/m00`..`m19` (the prefix a list reads), `/memories/pad.md`
//!   and the `F` bulk files: `21 + F` versions, `created`;
//! - `P` edits of `pad.md`;
//! - `memory.create` of `/hot.md` through the API: the memory whose versions are listed;
//! - 39 rounds of: one edit of `hot.md`, then a rename of the bulk directory
//!   (`F` versions at once), so that once `F` reaches the log's fanout every version
//!   of `hot.md` lies in a different log leaf: the most a one-memory listing can read.
//!
//! In all `61 + 40 F + P` versions; `F` and `P` are chosen to make exactly `n`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use memdir::{Engine, Entry, Store, block_on};
use serde_json::{Value, json};

/// Edits of the hot memory after its creation: it has `HOT_EDITS + 1` versions.
pub const HOT_EDITS: u64 = 39;
/// Memories under `/list/`.
pub const LISTED: usize = 20;

/// What was built: the hot memory's id and version numbers, newest first.
pub struct History {
    pub versions: u64,
    pub hot_id: String,
    /// Version numbers of the hot memory, newest first.
    pub hot_versions: Vec<u64>,
    pub bulk_files: u64,
}

fn run(engine: &Engine<impl Store>, input: Value) {
    let r = block_on(engine.execute(&input));
    assert!(!r.is_error, "{input}: {}", r.content);
}

pub fn api(engine: &Engine<impl Store>, request: Value) -> Value {
    let r = block_on(engine.api(&request));
    assert_eq!(r.status, 200, "{request}: {}", r.body);
    r.body
}

/// Builds the history in `engine`'s (empty) store. `n` must be at least 100.
pub fn build(engine: &Engine<impl Store>, n: u64) -> History {
    assert!(n >= 100, "the layout needs at least 100 versions");
    let f = (n - 61) / 40;
    let p = n - 61 - 40 * f;
    let mut entries: Vec<Entry> = (0..LISTED)
        .map(|i| Entry {
            path: format!("/memories/list/m{i:02}.md"),
            content: Some(format!("listed {i}")),
        })
        .collect();
    entries.push(Entry {
        path: "/memories/pad.md".into(),
        content: Some("pad v0".into()),
    });
    entries.extend((0..f).map(|i| Entry {
        path: format!("/memories/bulk/b{i:04}.md"),
        content: Some(format!("bulk {i}")),
    }));
    block_on(engine.import(&entries)).unwrap();
    for k in 0..p {
        run(
            engine,
            json!({"command": "str_replace", "path": "/memories/pad.md",
                   "old_str": format!("v{k}"), "new_str": format!("v{}", k + 1)}),
        );
    }
    let hot = api(
        engine,
        json!({"op": "memory.create", "body": json!({"path": "/hot.md", "content": "hot v0"}).to_string()}),
    );
    let hot_id = hot["id"].as_str().unwrap().to_string();
    let mut seq = 21 + f + p + 1;
    let mut hot_versions = vec![seq];
    let mut bulk = "/memories/bulk";
    for k in 0..HOT_EDITS {
        run(
            engine,
            json!({"command": "str_replace", "path": "/memories/hot.md",
                   "old_str": format!("v{k}"), "new_str": format!("v{}", k + 1)}),
        );
        seq += 1;
        hot_versions.push(seq);
        if f > 0 {
            let to = if bulk == "/memories/bulk" {
                "/memories/bulk2"
            } else {
                "/memories/bulk"
            };
            run(
                engine,
                json!({"command": "rename", "old_path": bulk, "new_path": to}),
            );
            bulk = to;
            seq += f;
        }
    }
    assert_eq!(seq, n, "the layout's arithmetic");
    hot_versions.reverse();
    History {
        versions: n,
        hot_id,
        hot_versions,
        bulk_files: f,
    }
}
