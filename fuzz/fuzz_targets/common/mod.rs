//! What every fuzz target shares: a seeded store that has been written through each
//! face (tool commands, the API, the toolset, a redaction), a dump of every stored
//! byte, and the checks every answer must pass.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use memdir::config::{Config, Limits};
use memdir::{Engine, MemoryStore, Store, block_on, list_all};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub const STORE_ID: &str = "memstore_abcdefghjkmn0123456789ab";

pub type Dump = BTreeMap<String, Vec<u8>>;

/// Small limits, so that a fuzzer reaches them.
pub fn config() -> Config {
    let limits = Limits {
        max_file_bytes: 4096,
        max_total_bytes: 16_384,
        read_limit_chars: 2_000,
        max_memories: 16,
    };
    Config {
        limits,
        actor: "sesn_fuzz".into(),
        ..Config::default()
    }
}

/// Real ids of the seeded memories and versions, which an input names as `$M0`…
/// and `$V0`… (a fuzzer cannot guess them).
pub struct Seeded {
    pub engine: Engine<MemoryStore>,
    pub store: MemoryStore,
    pub memories: Vec<String>,
    pub versions: Vec<String>,
}

fn ok(engine: &Engine<MemoryStore>, request: Value) -> Value {
    let r = block_on(engine.api(&request));
    assert_eq!(r.status, 200, "seeding {request}: {}", r.body);
    r.body
}

/// An API store holding memories written by the API and by the memory tool, one
/// of them updated and one old version redacted: built once, then copied into a
/// fresh store for each input.
pub fn seeded() -> Seeded {
    static MADE: OnceLock<(Dump, Vec<String>, Vec<String>)> = OnceLock::new();
    let (dumped, memories, versions) = MADE.get_or_init(|| {
        let s = seed();
        (dump(&s.store), s.memories, s.versions)
    });
    let store = MemoryStore::new();
    for (k, v) in dumped {
        block_on(store.set(k, v)).expect("a memory store takes any value");
    }
    let engine = Engine::new(store.clone(), config());
    Seeded {
        engine,
        store,
        memories: memories.clone(),
        versions: versions.clone(),
    }
}

fn seed() -> Seeded {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), config());
    ok(
        &engine,
        json!({"op": "store.create", "id": STORE_ID, "body": r#"{"name":"Fuzz"}"#}),
    );
    let create = |path: &str, content: &str| {
        ok(
            &engine,
            json!({"op": "memory.create", "body": json!({"path": path, "content": content}).to_string()}),
        )
    };
    let a = create("/notes/a.md", "alpha\nbeta\n");
    create("/b.md", "secret line\n");
    let r =
        block_on(engine.execute(
            &json!({"command": "create", "path": "/memories/d/c.txt", "file_text": "gamma"}),
        ));
    assert!(!r.is_error, "{}", r.content);
    let id = a["id"].as_str().unwrap_or_default().to_string();
    ok(
        &engine,
        json!({"op": "memory.update", "id": id, "body": r#"{"content":"alpha\nBETA\n"}"#}),
    );
    let memories = ids(&ok(&engine, json!({"op": "memory.list", "query": {}})));
    let versions = ids(&ok(
        &engine,
        json!({"op": "version.list", "query": {"limit": "100"}}),
    ));
    if let Some(oldest) = versions.last() {
        ok(
            &engine,
            json!({"op": "version.redact", "id": oldest, "body": "{}"}),
        );
    }
    Seeded {
        engine,
        store,
        memories,
        versions,
    }
}

fn ids(page: &Value) -> Vec<String> {
    let data = page["data"].as_array().cloned().unwrap_or_default();
    data.iter()
        .filter_map(|m| m["id"].as_str().map(String::from))
        .collect()
}

impl Seeded {
    /// `text` with `$M0`… and `$V0`… replaced by the seeded ids.
    pub fn with_ids(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (tag, list) in [("$M", &self.memories), ("$V", &self.versions)] {
            for (n, id) in list.iter().enumerate() {
                out = out.replace(&format!("{tag}{n}"), id);
            }
        }
        out
    }
}

/// One digest of every key and value: what a check compares to show that nothing
/// was written (cheaper under libFuzzer than comparing the values).
pub fn digest(store: &MemoryStore) -> [u8; 32] {
    let mut h = Sha256::new();
    for (k, v) in dump(store) {
        h.update((k.len() as u64).to_le_bytes());
        h.update(k.as_bytes());
        h.update((v.len() as u64).to_le_bytes());
        h.update(&v);
    }
    h.finalize().into()
}

pub fn dump(store: &MemoryStore) -> Dump {
    let keys = block_on(list_all(store, "")).unwrap_or_default();
    keys.into_iter()
        .filter_map(|k| block_on(store.get(&k)).ok().flatten().map(|v| (k, v)))
        .collect()
}

/// No answer names a storage key unless the input did.
pub fn no_key_leaks(answer: &str, input: &str) {
    for kind in ["blob/", "tree/", "commit/", "rec/", "log/"] {
        assert!(
            !answer.contains(kind) || input.contains(kind),
            "{input:?} -> {answer:?} names a storage key"
        );
    }
}

/// The store still reads whole: a request or a command never damages it.
pub fn still_whole(engine: &Engine<MemoryStore>) {
    let r = block_on(engine.execute(&json!({"command": "view", "path": "/memories"})));
    assert!(!r.is_error, "the store no longer reads: {}", r.content);
    let r = block_on(engine.api(&json!({"op": "memory.list", "query": {"limit": "100"}})));
    assert_eq!(r.status, 200, "the store no longer lists: {}", r.body);
}
