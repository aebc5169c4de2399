//! Decoding what a store hands back: one stored value of a seeded store (picked by
//! the first byte) is replaced by the fuzzer's bytes or patched byte by byte, and
//! every object naming it is re-addressed up to the head, so the tampered bytes get
//! past the hash checks and reach the decoders. Then every face reads and writes.
//! Damage must be answered as damage (never a panic, never followed), no answer
//! names a storage key, and a refused write writes nothing.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use memchr::memmem;
use memdir::{Engine, MemoryStore, Store, block_on};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const API_DAMAGED: &str = "The store holds a damaged record; nothing was changed.";
const TOOL_DAMAGED: &str =
    "Error: The memory directory's storage is damaged: a stored record is missing or unreadable.";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// memmem, not a window-by-window compare: libFuzzer traces every memcmp, which
// made the search most of each run.
fn replace_all(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = memmem::find(rest, from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// Puts `bytes` in place of `key`'s value. A content-addressed value moves to the
/// key of its new hash, and each value naming the old hash (as hex or raw digest)
/// is rewritten the same way, up to the head.
fn tamper(d: &mut common::Dump, key: &str, bytes: Vec<u8>) {
    let Some(old) = d.get(key).cloned() else {
        return;
    };
    let addressed = key
        .split_once('/')
        .filter(|(_, h)| *h == hex(&Sha256::digest(&old)));
    let Some((kind, old_hex)) = addressed else {
        d.insert(key.to_string(), bytes);
        return;
    };
    let (old_raw, new_raw) = (
        Sha256::digest(&old).to_vec(),
        Sha256::digest(&bytes).to_vec(),
    );
    if old_raw == new_raw {
        return;
    }
    let new_hex = hex(&new_raw);
    d.remove(key);
    d.insert(format!("{kind}/{new_hex}"), bytes);
    let namers: Vec<String> = d
        .iter()
        .filter(|(_, v)| {
            memmem::find(v, &old_raw).is_some() || memmem::find(v, old_hex.as_bytes()).is_some()
        })
        .map(|(k, _)| k.clone())
        .collect();
    for k in namers {
        if let Some(v) = d.get(&k) {
            let v = replace_all(
                &replace_all(v, old_hex.as_bytes(), new_hex.as_bytes()),
                &old_raw,
                &new_raw,
            );
            tamper(d, &k, v);
        }
    }
}

fn tool(engine: &Engine<MemoryStore>, store: &MemoryStore, input: Value) {
    let before = common::digest(store);
    let r = block_on(engine.execute(&input));
    assert_eq!(r.is_error, r.content.starts_with("Error: "), "{r:?}");
    common::no_key_leaks(&r.content, "");
    if r.content.contains("damaged") {
        assert_eq!(r.content, TOOL_DAMAGED, "{input}");
    }
    if r.is_error {
        assert_eq!(
            common::digest(store),
            before,
            "{input} failed but wrote: {}",
            r.content
        );
    }
}

fn api(engine: &Engine<MemoryStore>, store: &MemoryStore, request: Value) {
    let before = common::digest(store);
    let r = block_on(engine.api(&request));
    let text = r.body.to_string();
    common::no_key_leaks(&text, "");
    if r.status == 500 {
        assert_eq!(
            r.body["error"]["message"], API_DAMAGED,
            "{request} -> {text}"
        );
    }
    if r.status != 200 {
        assert_eq!(
            common::digest(store),
            before,
            "{request} failed but wrote: {text}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let [pick, mode, rest @ ..] = data else {
        return;
    };
    let s = common::seeded();
    let mut d = common::dump(&s.store);
    let Some(key) = d.keys().nth(usize::from(*pick) % d.len()).cloned() else {
        return;
    };
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        // Patch mode: (offset, xor) pairs keep the value's shape while changing it.
        let mut v = d[&key].clone();
        let len = v.len().max(1);
        for p in rest.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([p[0], p[1]]));
            if let Some(b) = v.get_mut(at % len) {
                *b ^= p[2];
            }
        }
        v
    };
    tamper(&mut d, &key, bytes);
    let store = MemoryStore::new();
    for (k, v) in &d {
        block_on(store.set(k, v)).expect("a memory store takes any value");
    }
    let engine = Engine::new(store.clone(), common::config());
    let id = |list: &Vec<String>, n: usize| list.get(n).cloned().unwrap_or_default();
    tool(
        &engine,
        &store,
        json!({"command": "view", "path": "/memories"}),
    );
    tool(
        &engine,
        &store,
        json!({"command": "view", "path": "/memories/d/c.txt"}),
    );
    tool(
        &engine,
        &store,
        json!({"command": "view", "path": "/memories/notes/a.md"}),
    );
    api(&engine, &store, json!({"op": "store.retrieve"}));
    api(
        &engine,
        &store,
        json!({"op": "memory.list", "query": {"limit": "100"}}),
    );
    api(
        &engine,
        &store,
        json!({"op": "memory.search", "query": {"query": "a"}}),
    );
    api(
        &engine,
        &store,
        json!({"op": "memory.retrieve", "id": id(&s.memories, 0)}),
    );
    api(
        &engine,
        &store,
        json!({"op": "version.list", "query": {"limit": "100"}}),
    );
    api(
        &engine,
        &store,
        json!({"op": "version.retrieve", "id": id(&s.versions, 0)}),
    );
    let listed = block_on(engine.toolset("", "memory_list", &json!({})));
    common::no_key_leaks(&listed.unwrap_or_else(|e| e.to_string()), "");
    tool(
        &engine,
        &store,
        json!({"command": "create", "path": "/memories/new.md", "file_text": "x"}),
    );
    api(
        &engine,
        &store,
        json!({"op": "memory.create", "body": r#"{"path":"/new2.md","content":"y"}"#}),
    );
    api(
        &engine,
        &store,
        json!({"op": "memory.update", "id": id(&s.memories, 0), "body": r#"{"content":"z"}"#}),
    );
    api(
        &engine,
        &store,
        json!({"op": "version.redact", "id": id(&s.versions, 1), "body": "{}"}),
    );
});
