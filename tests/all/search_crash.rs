//! Search after crash cuts and damaged index bytes: every store operation of a
//! write, and of the catch-up of the search after it, fails in turn (the cut), and
//! then a search on the same engine and on a fresh one answers, with no error, what
//! a search from scratch answers (a fresh engine over a copy without `index/`, and
//! the plain BM25F of `search_rank` over the live files): never a deleted,
//! renamed-away, replaced or redacted text. Every byte of every stored index value
//! flipped, the table cut at every length, chunks swapped between buckets and an
//! index from another store: rebuilt, the same answers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common::{self, Harness};
use crate::search_model::copy_without_index;
use crate::search_rank::{Bm25, engine_rank, same};

use std::collections::BTreeMap;

use memdir::config::Config;
use memdir::{Engine, MemoryStore, Store, block_on};
use serde_json::{Value, json};

const QUERIES: &[&str] = &[
    "zebra",
    "giraffe",
    "okapi",
    "secret",
    "数据库",
    "richtlinie",
    "notes",
];

type Tested = Engine<Harness<MemoryStore>>;

fn live(store: &MemoryStore) -> BTreeMap<String, String> {
    let engine = Engine::new(store.clone(), Config::default());
    block_on(engine.entries())
        .unwrap()
        .into_iter()
        .filter_map(|e| Some((e.path.strip_prefix("/memories")?.to_string(), e.content?)))
        .collect()
}

/// Fails unless every query on `engine` answers what a search from scratch over
/// `store` answers.
fn answers_as_from_scratch<S: Store>(engine: &Engine<S>, store: &MemoryStore, what: &str) {
    let files = live(store);
    let oracle = Bm25::new(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let fresh = Engine::new(copy_without_index(store), Config::default());
    for q in QUERIES {
        let want = engine_rank(&fresh, q, None);
        same(&want, &oracle.rank(q, None)).unwrap_or_else(|e| panic!("{what}, {q}: {e}"));
        let got = block_on(engine.search(q, 1000, None))
            .unwrap_or_else(|e| panic!("{what}: search {q:?} failed: {e}"));
        let got: Vec<(String, f64)> = got.hits.into_iter().map(|h| (h.path, h.score)).collect();
        let shown = if files.len() <= 12 {
            format!("{files:?}")
        } else {
            format!("{} files", files.len())
        };
        assert_eq!(got, want, "{what}: query {q:?}, files {shown}");
    }
}

/// A store with a few memories and its index caught up, and the API store record.
fn base() -> (MemoryStore, Vec<String>) {
    let (engine, store) = common::api_engine(Config::default());
    let mut ids = Vec::new();
    for (p, t) in [
        ("/a.md", "zebra crossing"),
        ("/b.md", "giraffe neck, zebra"),
        ("/notes/c.md", "用户喜欢数据库 and secret words"),
        ("/notes/d.md", "Die Sicherheitsrichtlinie"),
    ] {
        let body = json!({"path": p, "content": t}).to_string();
        let r = block_on(engine.api(&json!({"op": "memory.create", "body": body})));
        assert_eq!(r.status, 200, "{}", r.body);
        ids.push(r.body["id"].as_str().unwrap().to_string());
    }
    block_on(engine.search("zebra", 10, None)).unwrap();
    (store, ids)
}

/// A copy of `store`, every key (the index's too).
fn copy(store: &MemoryStore) -> MemoryStore {
    let out = MemoryStore::new();
    for (k, v) in common::dump(store) {
        block_on(out.set(&k, &v)).unwrap();
    }
    out
}

/// The writes cut: each run on an engine over a copy of [`base`].
fn writes(ids: &[String]) -> Vec<(&'static str, Value)> {
    let tool = |v: Value| json!({"tool": v});
    vec![
        (
            "tool delete",
            tool(json!({"command": "delete", "path": "/memories/a.md"})),
        ),
        (
            "tool rename",
            tool(
                json!({"command": "rename", "old_path": "/memories/b.md", "new_path": "/memories/notes/e.md"}),
            ),
        ),
        (
            "tool edit",
            tool(
                json!({"command": "str_replace", "path": "/memories/b.md", "old_str": "giraffe", "new_str": "okapi"}),
            ),
        ),
        (
            "tool directory delete",
            tool(json!({"command": "delete", "path": "/memories/notes"})),
        ),
        (
            "api update",
            json!({"op": "memory.update", "id": ids[2], "body": r#"{"content":"nothing left"}"#}),
        ),
        ("api delete", json!({"op": "memory.delete", "id": ids[3]})),
        (
            "api create",
            json!({"op": "memory.create", "body": r#"{"path":"/notes/z.md","content":"okapi zebra"}"#}),
        ),
    ]
}

fn run_write(engine: &Tested, w: &Value) -> bool {
    match w.get("tool") {
        Some(t) => !block_on(engine.execute(t)).is_error,
        None => block_on(engine.api(w)).status == 200,
    }
}

/// How many store operations `f` makes on a fresh copy of `base`.
fn ops_of(base: &MemoryStore, f: impl Fn(&Tested)) -> u64 {
    let h = Harness::new(copy(base));
    let shared = h.shared.clone();
    let engine = Engine::new(h, Config::default());
    shared.reset();
    f(&engine);
    shared.ops.get()
}

#[test]
fn a_write_cut_at_any_store_operation_leaves_searches_as_from_scratch() {
    let (base, ids) = base();
    let mut cuts = 0;
    for (name, w) in writes(&ids) {
        let n = ops_of(&base, |e| assert!(run_write(e, &w), "{name}"));
        assert!(n > 2, "{name}: {n} operations");
        for k in 0..n {
            let store = copy(&base);
            let h = Harness::new(store.clone());
            let shared = h.shared.clone();
            let engine = Engine::new(h, Config::default());
            // The engine has searched before the write (its index in memory).
            block_on(engine.search("zebra", 10, None)).unwrap();
            shared.reset();
            shared.fail_at.set(Some(k));
            let _ = run_write(&engine, &w);
            shared.fail_at.set(None);
            let what = format!("{name} cut at operation {k} of {n}");
            answers_as_from_scratch(&engine, &store, &what);
            let fresh = Engine::new(store.clone(), Config::default());
            answers_as_from_scratch(&fresh, &store, &what);
            cuts += 1;
        }
    }
    assert!(cuts > 50, "{cuts} cuts");
}

#[test]
fn a_search_cut_at_any_store_operation_of_its_catch_up_leaves_the_next_as_from_scratch() {
    let (base, ids) = base();
    let mut cuts = 0;
    for (name, w) in writes(&ids) {
        // The write whole, then the search that catches up with it, cut.
        let written = copy(&base);
        assert!(
            run_write(
                &Engine::new(Harness::new(written.clone()), Config::default()),
                &w
            ),
            "{name}"
        );
        let n = ops_of(&written, |e| {
            block_on(e.search("zebra", 10, None)).unwrap();
        });
        assert!(n > 2, "{name}: {n} operations");
        for k in 0..n {
            for same_engine_wrote in [false, true] {
                let store = copy(&base);
                let h = Harness::new(store.clone());
                let shared = h.shared.clone();
                let engine = Engine::new(h, Config::default());
                block_on(engine.search("zebra", 10, None)).unwrap();
                if same_engine_wrote {
                    assert!(run_write(&engine, &w));
                } else {
                    // Another client wrote: this engine's index in memory is behind.
                    let other = Engine::new(Harness::new(store.clone()), Config::default());
                    assert!(run_write(&other, &w));
                }
                shared.reset();
                shared.fail_at.set(Some(k));
                // A failed search is an error, never a wrong answer.
                if let Ok(found) = block_on(engine.search("zebra", 1000, None)) {
                    let want = engine_rank(
                        &Engine::new(copy_without_index(&store), Config::default()),
                        "zebra",
                        None,
                    );
                    let got: Vec<(String, f64)> =
                        found.hits.into_iter().map(|h| (h.path, h.score)).collect();
                    assert_eq!(got, want, "{name}: the cut search's own answer at {k}");
                }
                shared.fail_at.set(None);
                let what = format!("{name}: search cut at operation {k} of {n}");
                answers_as_from_scratch(&engine, &store, &what);
                let fresh = Engine::new(store.clone(), Config::default());
                answers_as_from_scratch(&fresh, &store, &what);
                cuts += 1;
            }
        }
    }
    assert!(cuts > 50, "{cuts} cuts");
}

/// A store of `n` memories (enough past 64 a chunk for several buckets), its
/// index caught up, one memory deleted and one edited since (so a reader of a
/// damaged index that believed it would answer stale hits).
fn indexed(n: usize, word: &str) -> MemoryStore {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    let entries: Vec<memdir::Entry> = (0..n)
        .map(|i| {
            common::file(
                &format!("/memories/m{i:03}.md"),
                &format!("{word} {i} zebra{} 数据库{}", i % 7, i % 3),
            )
        })
        .collect();
    block_on(engine.import(&entries)).unwrap();
    block_on(engine.search("zebra", 10, None)).unwrap();
    let tool = |v: Value| assert!(!block_on(engine.execute(&v)).is_error, "{v}");
    tool(json!({"command": "delete", "path": "/memories/m001.md"}));
    tool(
        json!({"command": "str_replace", "path": "/memories/m002.md", "old_str": word, "new_str": "okapi"}),
    );
    store
}

fn index_values(store: &MemoryStore) -> Vec<(String, Vec<u8>)> {
    common::dump(store)
        .into_iter()
        .filter(|(k, _)| k.starts_with("index/"))
        .collect()
}

/// Puts `value` at `key` of a copy of `store`, and checks a fresh engine's answers.
fn damaged(store: &MemoryStore, what: &str, change: impl FnOnce(&MemoryStore)) {
    let store = copy(store);
    change(&store);
    let engine = Engine::new(store.clone(), Config::default());
    answers_as_from_scratch(&engine, &store, what);
}

#[test]
fn every_flipped_byte_of_the_stored_index_is_rebuilt_not_believed() {
    let store = indexed(6, "giraffe");
    // Caught up to the head after the edits, so the table names the head's root.
    block_on(Engine::new(store.clone(), Config::default()).search("zebra", 1, None)).unwrap();
    let values = index_values(&store);
    assert!(
        values.len() >= 2,
        "a head and a delta at least: {}",
        values.len()
    );
    for (key, value) in &values {
        for i in 0..value.len() {
            for bit in [0x01u8, 0x80] {
                let mut v = value.clone();
                v[i] ^= bit;
                damaged(&store, &format!("{key} byte {i} ^ {bit:#x}"), |s| {
                    block_on(s.set(key, &v)).unwrap();
                });
            }
        }
    }
}

#[test]
fn a_truncated_table_or_chunk_is_rebuilt() {
    let store = indexed(6, "giraffe");
    for (key, value) in index_values(&store) {
        for len in 0..value.len() {
            damaged(&store, &format!("{key} cut to {len} bytes"), |s| {
                block_on(s.set(&key, &value[..len])).unwrap();
            });
        }
        damaged(&store, &format!("{key} missing"), |s| {
            block_on(s.delete(&key)).unwrap();
        });
    }
}

fn hex(h: &[u8]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// The base's table that the head names: its bytes.
fn table_of(store: &MemoryStore) -> Vec<u8> {
    // MDIX, format, tokenizer version, root (32), pending flag 0, base flag 1, its hash.
    let head = block_on(store.get("index/head")).unwrap().unwrap();
    assert_eq!(&head[..4], b"MDIX");
    assert_eq!(head[38], 0, "no catch-up pending");
    assert_eq!(head[39], 1, "a base");
    let key = format!("index/chunk/{}", hex(&head[40..72]));
    block_on(store.get(&key)).unwrap().unwrap()
}

/// Stores `table` under its hash and has the head name it.
fn name_table(store: &MemoryStore, table: &[u8]) {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(table);
    let mut head = block_on(store.get("index/head")).unwrap().unwrap();
    head[40..72].copy_from_slice(&hash);
    block_on(store.set(&format!("index/chunk/{}", hex(&hash)), table)).unwrap();
    block_on(store.set("index/head", &head)).unwrap();
}

/// The table's bucket entries: (offset of each 32-byte chunk hash).
fn chunk_offsets(table: &[u8]) -> Vec<usize> {
    // MDIT, format, bucket count, then per bucket a flag and maybe a hash.
    assert_eq!(&table[..4], b"MDIT");
    let (mut n, mut at, mut shift) = (0usize, 5usize, 0);
    loop {
        let b = table[at];
        n |= usize::from(b & 0x7f) << shift;
        at += 1;
        shift += 7;
        if b & 0x80 == 0 {
            break;
        }
    }
    let mut out = Vec::new();
    for _ in 0..n {
        if table[at] == 1 {
            out.push(at + 1);
            at += 33;
        } else {
            at += 1;
        }
    }
    out
}

#[test]
fn chunks_swapped_between_buckets_or_keys_are_rebuilt() {
    let store = indexed(300, "giraffe");
    block_on(Engine::new(store.clone(), Config::default()).search("zebra", 1, None)).unwrap();
    let table = table_of(&store);
    let at = chunk_offsets(&table);
    assert!(at.len() >= 4, "{} chunks", at.len());
    for (i, j) in [(0, 1), (1, 3), (0, at.len() - 1)] {
        // The table names each bucket's chunk under the other's.
        let mut t = table.clone();
        let (a, b) = (
            table[at[i]..at[i] + 32].to_vec(),
            table[at[j]..at[j] + 32].to_vec(),
        );
        t[at[i]..at[i] + 32].copy_from_slice(&b);
        t[at[j]..at[j] + 32].copy_from_slice(&a);
        damaged(&store, &format!("table buckets {i} and {j} swapped"), |s| {
            name_table(s, &t);
        });
        // The chunks' keys hold each other's bytes.
        let (ka, kb) = (
            format!("index/chunk/{}", hex(&a)),
            format!("index/chunk/{}", hex(&b)),
        );
        let (va, vb) = (
            block_on(store.get(&ka)).unwrap().unwrap(),
            block_on(store.get(&kb)).unwrap().unwrap(),
        );
        damaged(&store, &format!("chunk values {i} and {j} swapped"), |s| {
            block_on(s.set(&ka, &vb)).unwrap();
            block_on(s.set(&kb, &va)).unwrap();
        });
    }
}

#[test]
fn an_index_from_another_store_is_rebuilt() {
    let ours = indexed(300, "giraffe");
    let theirs = indexed(300, "okapi");
    // Their whole index in place of ours: a table naming a root this store lacks.
    damaged(&ours, "another store's table and chunks", |s| {
        for (k, _) in index_values(&ours) {
            block_on(s.delete(&k)).unwrap();
        }
        for (k, v) in index_values(&theirs) {
            block_on(s.set(&k, &v)).unwrap();
        }
    });
    // Only their chunks, under our table's keys: each checked against its hash.
    let ours_idx = index_values(&ours);
    let theirs_idx = index_values(&theirs);
    damaged(&ours, "another store's chunks under our keys", |s| {
        for ((k, _), (_, v)) in ours_idx
            .iter()
            .filter(|(k, _)| k.starts_with("index/chunk/"))
            .zip(
                theirs_idx
                    .iter()
                    .filter(|(k, _)| k.starts_with("index/chunk/")),
            )
        {
            block_on(s.set(k, v)).unwrap();
        }
    });
    // Their chunks named by our table (hashes and all): well-formed chunks of the
    // right buckets, under a table naming our root. Nothing short of reading the
    // whole tree tells it from a true index; what holds is that no hit is a text
    // the tree does not hold (each is checked against the tree), so every hit is
    // one a search from scratch finds.
    let table = table_of(&ours);
    let their_table = table_of(&theirs);
    let mut t = table.clone();
    let at = chunk_offsets(&table);
    assert_eq!(at, chunk_offsets(&their_table));
    for a in &at {
        t[*a..*a + 32].copy_from_slice(&their_table[*a..*a + 32]);
    }
    let store = copy(&ours);
    name_table(&store, &t);
    for (k, v) in &theirs_idx {
        if k.starts_with("index/chunk/") {
            block_on(store.set(k, v)).unwrap();
        }
    }
    let engine = Engine::new(store.clone(), Config::default());
    let fresh = Engine::new(copy_without_index(&store), Config::default());
    for q in ["okapi", "giraffe", "zebra"] {
        let want: Vec<String> = engine_rank(&fresh, q, None)
            .into_iter()
            .map(|h| h.0)
            .collect();
        for (path, _) in engine_rank(&engine, q, None) {
            assert!(want.contains(&path), "{q}: {path} is no live hit");
        }
    }
}

#[test]
fn an_index_whose_tree_gc_or_a_redaction_erased_is_rebuilt() {
    // The index reflects the tree of its last search; gc keeps only the trees of
    // the commits it is told to, and a redaction erases the trees that name a
    // redacted path: either can take the index's root away.
    for redact in [false, true] {
        let (engine, store) = common::api_engine(Config::default());
        let body = json!({"path": "/secret-name.md", "content": "zebra secret"}).to_string();
        let r = block_on(engine.api(&json!({"op": "memory.create", "body": body})));
        let id = r.body["id"].as_str().unwrap().to_string();
        let body = json!({"path": "/b.md", "content": "giraffe"}).to_string();
        block_on(engine.api(&json!({"op": "memory.create", "body": body})));
        // A second client's search leaves the index at this tree.
        let reader = Engine::new(store.clone(), Config::default());
        assert_eq!(engine_rank(&reader, "zebra", None).len(), 1);
        let body = json!({"path": "/public.md", "content": "okapi"}).to_string();
        let r = block_on(engine.api(&json!({"op": "memory.update", "id": id, "body": body})));
        assert_eq!(r.status, 200, "{}", r.body);
        if redact {
            let v = id.replace("mem_", "memver_");
            let r = block_on(engine.api(&json!({"op": "version.redact", "id": v})));
            assert_eq!(r.status, 200, "{}", r.body);
        } else {
            for _ in 0..2 {
                block_on(engine.gc(0)).unwrap();
            }
        }
        let what = if redact {
            "after a redaction"
        } else {
            "after gc"
        };
        answers_as_from_scratch(&engine, &store, what);
        answers_as_from_scratch(&reader, &store, what);
        answers_as_from_scratch(&Engine::new(store.clone(), Config::default()), &store, what);
    }
}
