//! The hostile-store data: stores whose bytes were tampered with (a renamed child
//! that walks out, a node that names itself, a huge size, an altered blob, a name
//! with a control character, truncated and garbage values), each with the exact
//! answers every runtime must give over it. What a store hands back is input:
//! damage is answered as damage, never followed, and nothing is written.
//!
//! This test builds the cases from a seeded store, checks them on the native
//! engine, and checks that `tests/conformance/hostile-stores.json` (which the Node,
//! IndexedDB, wasmtime and workerd runners read) says the same; with
//! `MEMDIR_REGENERATE=1` it rewrites the file instead.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::collections::BTreeMap;

use memdir::config::Config;
use memdir::{Engine, Entry, MemoryStore, block_on, conformance};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const DAMAGED: &str =
    "Error: The memory directory's storage is damaged: a stored record is missing or unreadable.";
const ROOT_VIEW: &str = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n9B\t/memories\n5B\t/memories/a.md\n4B\t/memories/d/\n4B\t/memories/d/b.md";
const A_VIEW: &str = "Here's the content of /memories/a.md with line numbers:\n     1\talpha";
const D_VIEW: &str = "Here're the files and directories up to 2 levels deep in /memories/d, excluding hidden items and node_modules:\n4B\t/memories/d\n4B\t/memories/d/b.md";
const B_VIEW: &str = "Here's the content of /memories/d/b.md with line numbers:\n     1\tbeta";
const CREATED: &str = "File created successfully at: /memories/new.md";

/// The probes every runner sends, in order; the last one writes.
fn probes() -> Vec<Value> {
    vec![
        json!({"command": "view", "path": "/memories"}),
        json!({"command": "view", "path": "/memories/a.md"}),
        json!({"command": "view", "path": "/memories/d"}),
        json!({"command": "view", "path": "/memories/d/b.md"}),
        json!({"command": "create", "path": "/memories/new.md", "file_text": "x"}),
    ]
}

type Snapshot = BTreeMap<String, Vec<u8>>;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The seeded store, its two tree nodes in the JSON form (which every build reads),
/// so that the cases below can tamper with them as text.
fn seeded() -> Snapshot {
    let store = MemoryStore::new();
    let entries = [("/memories/a.md", "alpha"), ("/memories/d/b.md", "beta")].map(|(p, c)| Entry {
        path: p.into(),
        content: Some(c.into()),
    });
    block_on(Engine::new(store.clone(), Config::default()).import(&entries)).unwrap();
    let mut s = snapshot(&store);
    let binary = |s: &Snapshot, key: &str| -> Value {
        serde_json::from_slice(&memdir::__hooks::tree_json(&s[key]).unwrap()).unwrap()
    };
    let (root, d) = (root_key(&s), child_key_of(&binary(&s, &root_key(&s)), "d"));
    let (d_json, root_json, commit) = (binary(&s, &d), binary(&s, &root), commit_key(&s));
    republish_d_over(&mut s, &d_json, root_json);
    for key in [root, d, commit] {
        s.remove(&key);
    }
    s
}

fn snapshot(store: &MemoryStore) -> Snapshot {
    common::dump(store).into_iter().collect()
}

fn json_of(s: &Snapshot, key: &str) -> Value {
    serde_json::from_slice(&s[key]).unwrap()
}

fn commit_key(s: &Snapshot) -> String {
    format!("commit/{}", String::from_utf8(s["head"].clone()).unwrap())
}

fn root_key(s: &Snapshot) -> String {
    format!(
        "tree/{}",
        json_of(s, &commit_key(s))["root"].as_str().unwrap()
    )
}

/// The key of the directory `name` in the root node.
fn child_key(s: &Snapshot, name: &str) -> String {
    child_key_of(&json_of(s, &root_key(s)), name)
}

fn child_key_of(root: &Value, name: &str) -> String {
    let e = root["e"].as_array().unwrap();
    let entry = e.iter().find(|x| x[0] == name).unwrap();
    let prefix = if entry[1] == "d" { "tree/" } else { "blob/" };
    format!("{prefix}{}", entry[2].as_str().unwrap())
}

/// Stores `value` under the key its hash names and points the commit and head at
/// the new root: a tampering a reader cannot catch by hashing.
fn republish_root(s: &mut Snapshot, root: &Value) {
    republish_root_bytes(s, serde_json::to_vec(root).unwrap());
}

/// The leaf `node` (its JSON form) in the binary form this build writes, written
/// here from the format's description (src/storage/node_binary.rs), entries sorted
/// by name as the form requires: so a tampered name is refused by the rules on
/// names, not by the layout.
fn binary_leaf(node: &Value) -> Vec<u8> {
    fn number(out: &mut Vec<u8>, mut n: u64) {
        while n >= 0x80 {
            out.push((n & 0x7f) as u8 | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    let mut entries: Vec<&Value> = node["e"].as_array().unwrap().iter().collect();
    entries.sort_by_key(|e| e[0].as_str().unwrap().as_bytes().to_vec());
    let mut out = b"T1".to_vec();
    number(&mut out, entries.len() as u64);
    for e in entries {
        let name = e[0].as_str().unwrap();
        number(&mut out, name.len() as u64);
        out.extend_from_slice(name.as_bytes());
        let memory = e.as_array().unwrap().len() == 7;
        out.push(u8::from(e[1] == "d") | if memory { 2 } else { 0 });
        let hash = e[2].as_str().unwrap();
        out.extend((0..32).map(|i| u8::from_str_radix(&hash[2 * i..2 * i + 2], 16).unwrap()));
        for field in if memory { 3..7 } else { 3..5 } {
            number(&mut out, e[field].as_u64().unwrap());
        }
    }
    out
}

fn republish_root_bytes(s: &mut Snapshot, bytes: Vec<u8>) {
    let hash = sha(&bytes);
    s.insert(format!("tree/{hash}"), bytes);
    let mut commit = json_of(s, &commit_key(s));
    commit["root"] = json!(hash);
    let bytes = serde_json::to_vec(&commit).unwrap();
    let commit_hash = sha(&bytes);
    s.insert(format!("commit/{commit_hash}"), bytes);
    s.insert("head".into(), commit_hash.into_bytes());
}

/// The directory `d` replaced by `node`, rehashed all the way up.
fn republish_d(s: &mut Snapshot, node: &Value) {
    let root = json_of(s, &root_key(s));
    republish_d_over(s, node, root);
}

/// `root` (the JSON of the root node) with its directory `d` replaced by `node`,
/// stored, and the commit and head pointed at it.
fn republish_d_over(s: &mut Snapshot, node: &Value, mut root: Value) {
    let bytes = serde_json::to_vec(node).unwrap();
    let hash = sha(&bytes);
    s.insert(format!("tree/{hash}"), bytes);
    for e in root["e"].as_array_mut().unwrap() {
        if e[0] == "d" {
            e[2] = json!(hash);
        }
    }
    republish_root(s, &root);
}

fn edit_root_entry(s: &Snapshot, name: &str, f: impl Fn(&mut Value)) -> Value {
    let mut root = json_of(s, &root_key(s));
    for e in root["e"].as_array_mut().unwrap() {
        if e[0] == name {
            f(e);
        }
    }
    root
}

/// What a runner must see for one case: the answer to each probe (`true`: the
/// healthy answer, `false`: damaged), whether `entries()` succeeds, and whether
/// the write probe writes (else the store must be left exactly as it was).
struct Case {
    name: &'static str,
    what: &'static str,
    store: Snapshot,
    healthy: [bool; 4],
    writes: bool,
    entries_ok: bool,
}

fn cases() -> Vec<Case> {
    let seed = seeded();
    let mut out = Vec::new();

    let mut s = seed.clone();
    let root = edit_root_entry(&s, "a.md", |e| e[0] = json!("../../../../x.txt"));
    republish_root(&mut s, &root);
    out.push(Case {
        name: "traversal-name",
        what: "a child of the root renamed ../../../../x.txt, rehashed up to the head",
        store: s,
        healthy: [false; 4],
        writes: false,
        entries_ok: false,
    });

    // The untampered root in this writer's binary form reads back as the root, so
    // the case below is refused for its name alone.
    let healthy = json_of(&seed, &root_key(&seed));
    assert_eq!(
        memdir::__hooks::tree_json(&binary_leaf(&healthy)).unwrap(),
        serde_json::to_vec(&healthy).unwrap()
    );
    let mut s = seed.clone();
    let root = edit_root_entry(&s, "a.md", |e| e[0] = json!("../../../../x.txt"));
    republish_root_bytes(&mut s, binary_leaf(&root));
    out.push(Case {
        name: "binary-traversal-name",
        what: "a child of the root renamed ../../../../x.txt in the root's binary form, rehashed up to the head",
        store: s,
        healthy: [false; 4],
        writes: false,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let root = edit_root_entry(&s, "a.md", |e| e[0] = json!("../x.txt"));
    let key = root_key(&s);
    s.insert(key, serde_json::to_vec(&root).unwrap());
    out.push(Case {
        name: "traversal-name-edited-in-place",
        what: "a child of the root renamed ../x.txt by editing the node where it lies",
        store: s,
        healthy: [false; 4],
        writes: false,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let key = root_key(&s);
    let own = key.trim_start_matches("tree/").to_string();
    let root = edit_root_entry(&s, "d", |e| e[2] = json!(own));
    s.insert(key, serde_json::to_vec(&root).unwrap());
    out.push(Case {
        name: "cycle",
        what: "the root's child d points at the root node itself (the tree contains itself)",
        store: s,
        healthy: [false; 4],
        writes: false,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let root = edit_root_entry(&s, "a.md", |e| e[3] = json!(u64::MAX));
    republish_root(&mut s, &root);
    out.push(Case {
        name: "huge-size",
        what: "a file's size set to 2^64-1, rehashed up to the head",
        store: s,
        healthy: [false; 4],
        writes: false,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let key = child_key(&s, "a.md");
    s.insert(key, b"alphX".to_vec());
    out.push(Case {
        name: "altered-blob",
        what: "a file's content changed (same length) under its old hash",
        store: s,
        healthy: [true, false, true, true],
        writes: true,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let key = child_key(&s, "d");
    let mut d = json_of(&s, &key);
    d["e"][0][0] = json!("b\n.md");
    republish_d(&mut s, &d);
    out.push(Case {
        name: "control-character-name",
        what: "a name holding a newline (a fake line in a listing), rehashed up to the head",
        store: s,
        healthy: [false, true, false, false],
        writes: true,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let key = root_key(&s);
    let half = s[&key].len() / 2;
    s.get_mut(&key).unwrap().truncate(half);
    out.push(Case {
        name: "truncated-node",
        what: "the root node cut in half",
        store: s,
        healthy: [false; 4],
        writes: false,
        entries_ok: false,
    });

    let mut s = seed.clone();
    s.insert("head".into(), b"\xff\xfe not a hash".to_vec());
    out.push(Case {
        name: "garbage-head",
        what: "the head holds bytes that are not UTF-8",
        store: s,
        healthy: [false; 4],
        writes: false,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let key = child_key(&s, "d");
    s.insert(key, vec![0, 159, 146, 150, 255]);
    out.push(Case {
        name: "garbage-node",
        what: "the directory d's node replaced by binary garbage",
        store: s,
        healthy: [false, true, false, false],
        writes: true,
        entries_ok: false,
    });

    let mut s = seed.clone();
    let d = json_of(&s, &child_key(&s, "d"));
    let b = format!("blob/{}", d["e"][0][2].as_str().unwrap());
    s.remove(&b);
    out.push(Case {
        name: "missing-blob",
        what: "the content of /memories/d/b.md deleted",
        store: s,
        healthy: [true, true, true, false],
        writes: true,
        entries_ok: false,
    });

    let mut s = seed;
    // As a directory's entry is written: without a file's memory id and time.
    let root = edit_root_entry(&s, "a.md", |e| {
        e[1] = json!("d");
        e.as_array_mut().unwrap().truncate(5);
    });
    republish_root(&mut s, &root);
    out.push(Case {
        name: "file-posing-as-directory",
        what: "a file's entry marked as a directory, rehashed up to the head",
        store: s,
        healthy: [false, false, true, true],
        writes: true,
        entries_ok: false,
    });
    out
}

fn healthy_answer(i: usize) -> &'static str {
    [ROOT_VIEW, A_VIEW, D_VIEW, B_VIEW][i]
}

fn value_json(v: &[u8]) -> Value {
    match std::str::from_utf8(v) {
        Ok(s) => json!(s),
        Err(_) => json!({"hex": hex(v)}),
    }
}

fn data() -> Value {
    let cases: Vec<Value> = cases()
        .into_iter()
        .map(|c| {
            let mut answers: Vec<Value> = c
                .healthy
                .iter()
                .enumerate()
                .map(|(i, ok)| {
                    if *ok {
                        json!({"content": healthy_answer(i), "is_error": false})
                    } else {
                        json!({"content": DAMAGED, "is_error": true})
                    }
                })
                .collect();
            answers.push(if c.writes {
                json!({"content": CREATED, "is_error": false})
            } else {
                json!({"content": DAMAGED, "is_error": true})
            });
            let store: serde_json::Map<String, Value> = c
                .store
                .iter()
                .map(|(k, v)| (k.clone(), value_json(v)))
                .collect();
            json!({
                "name": c.name,
                "what": c.what,
                "store": store,
                "answers": answers,
                "entries_error": if c.entries_ok { Value::Null } else { json!(&DAMAGED[7..]) },
                "writes": c.writes,
            })
        })
        .collect();
    json!({
        "about": "Tampered stores and the exact answers over them; see tests/all/hostile_store.rs, which makes this file (MEMDIR_REGENERATE=1).",
        "probes": probes(),
        "cases": cases,
    })
}

#[test]
fn tampered_stores_are_answered_as_damage_and_nothing_is_written() {
    let text = serde_json::to_string_pretty(&data()).unwrap() + "\n";
    // Read back as every Rust runner reads it, so the reader is checked too.
    let data = conformance::hostile_stores(&text).unwrap();
    let built = cases();
    assert_eq!(data.probes.len(), probes().len());
    assert_eq!(data.cases.len(), built.len());
    for (case, c) in data.cases.iter().zip(built) {
        assert_eq!((case.name.as_str(), &case.store), (c.name, &c.store));
        let store = MemoryStore::new();
        block_on(conformance::load_hostile(&store, case)).unwrap();
        let mut engine = Engine::new(store.clone(), Config::default());
        if let Err(e) = block_on(conformance::check_hostile(
            &store,
            &mut engine,
            &data.probes,
            case,
        )) {
            panic!("{}: {e}", case.name);
        }
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/conformance/hostile-stores.json"
    );
    if std::env::var_os("MEMDIR_REGENERATE").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        on_disk == text,
        "tests/conformance/hostile-stores.json is stale: run MEMDIR_REGENERATE=1 cargo test -p memdir --test all hostile_store::"
    );
}
