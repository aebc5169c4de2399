//! Encryption at rest through the component (`memdir::seal::Sealed` below the
//! engine in the instance): after a workload of every kind of write, no stored
//! byte of either backend holds a content, a path or a content's SHA-256; a
//! tampered value is damage and nothing is written; a wrong, missing or unwanted
//! key is refused with the store unchanged; the conformance data answers the
//! same; and `memdir-host rekey`, killed at random moments and run again, loses
//! nothing.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use memdir::conformance::{self as data, Case};
use memdir::seal::{Key, Sealed};
use memdir::{ErrorKind, block_on};
use memdir_host::{Backend, CallErrorKind, Encryption, Host, HostLimits, ToolConfig};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::{self, KINDS, Kind, Probe, TempDir};

/// The damage texts: a value that fails to decrypt or authenticate (the
/// engine's `ToolError::Damaged`), and a damaged encryption record (the seal's).
const DAMAGED: &str =
    "The memory directory's storage is damaged: a stored record is missing or unreadable.";
const RECORD_DAMAGED: &str = "the store's encryption record is damaged";

fn key_bytes(n: u8) -> [u8; 32] {
    std::array::from_fn(|i| n.wrapping_mul(31).wrapping_add(i as u8))
}

fn key(n: u8) -> Encryption {
    Encryption::new(&key_bytes(n), None).expect("a 32-byte key")
}

/// The id the engine derives for key `n`.
fn key_id(n: u8) -> String {
    Key::new(key_bytes(n), None)
        .expect("a key")
        .id()
        .to_string()
}

fn host(backend: Arc<dyn Backend>, encryption: Option<Encryption>) -> Host {
    let mut h = support::runtime().host(backend, HostLimits::default());
    h.configure(ToolConfig {
        encryption,
        ..ToolConfig::default()
    });
    h
}

fn api(h: &mut Host, request: &Value) -> Value {
    let answer: Value = serde_json::from_str(&h.api(&request.to_string())).expect("JSON");
    assert_eq!(answer["status"], 200, "{request}: {answer}");
    answer["body"].clone()
}

/// Every text the workload stores (each version of each file), and every path.
struct Written {
    contents: Vec<String>,
    paths: Vec<String>,
}

/// Creates, edits, renames, API writes (a create, an update, a redaction), the
/// toolset's write, a search that saves the index: every kind of stored value.
fn workload(h: &mut Host) -> Written {
    let mut contents = Vec::new();
    let mut paths = Vec::new();
    let mut text = |s: &str| {
        contents.push(s.to_string());
        s.to_string()
    };
    let first = text("ocelot marmalade protocol 7319\nsecond line of the ocelot\n");
    h.create("/memories/zephyr-notes/ocelot.md", &first)
        .expect("create");
    let edited = text("ocelot marmalade protocol 8426\nsecond line of the ocelot\n");
    h.str_replace("/memories/zephyr-notes/ocelot.md", "7319", "8426")
        .expect("str_replace");
    let inserted = text(
        "ocelot marmalade protocol 8426\nquillfeather inserted line\nsecond line of the ocelot\n",
    );
    h.insert(
        "/memories/zephyr-notes/ocelot.md",
        1,
        "quillfeather inserted line",
    )
    .expect("insert");
    h.rename(
        "/memories/zephyr-notes/ocelot.md",
        "/memories/zephyr-notes/renamed-pangolin.md",
    )
    .expect("rename");
    let other = text("the heron's vault code is 55-21-90 under the stairs");
    h.create("/memories/quarry/heron.txt", &other)
        .expect("create");

    let body =
        json!({"path": "/api-lynx/briefing.md", "content": "lynx briefing: tangerine meridian"})
            .to_string();
    text("lynx briefing: tangerine meridian");
    let created = api(h, &json!({"op": "memory.create", "body": body}));
    let id = created["id"].as_str().expect("an id").to_string();
    let first_version = created["memory_version_id"]
        .as_str()
        .expect("a version")
        .to_string();
    let update = json!({"content": "lynx briefing: vermilion equinox"}).to_string();
    text("lynx briefing: vermilion equinox");
    api(h, &json!({"op": "memory.update", "id": id, "body": update}));
    api(
        h,
        &json!({"op": "version.redact", "id": first_version, "body": "{}"}),
    );

    let write = json!({"path": "/toolset-wombat.md", "content": "wombat toolset cardamom ledger"})
        .to_string();
    text("wombat toolset cardamom ledger");
    h.toolset("", "memory_write", &write).expect("memory_write");

    // The search index is saved into the store (its terms, its paths).
    let hits = h
        .search_json(r#"{"query":"ocelot marmalade"}"#)
        .expect("search");
    assert!(hits.contains("renamed-pangolin.md"), "{hits}");
    let status = h
        .reindex(memdir::config::SEARCH_REINDEX_ROUNDS)
        .expect("reindex");
    assert!(!status.pending && status.indexed >= 4, "{status:?}");

    for p in [
        "zephyr-notes",
        "ocelot.md",
        "renamed-pangolin.md",
        "quarry/heron.txt",
        "api-lynx/briefing.md",
        "toolset-wombat.md",
    ] {
        paths.push(p.to_string());
    }
    let _ = (first, edited, inserted, other);
    Written { contents, paths }
}

/// Every byte the backend holds: for the memory backend each key and value, for
/// a directory store every file's name and bytes, read raw from the disk.
fn every_byte(backend: &Arc<dyn Backend>, dir: Option<&TempDir>) -> Vec<u8> {
    let mut out = Vec::new();
    match dir {
        Some(d) => walk(&d.0, &mut out),
        None => {
            for (k, v) in support::raw(backend) {
                out.extend_from_slice(k.as_bytes());
                out.push(0);
                out.extend_from_slice(&v);
                out.push(0);
            }
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<u8>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("reading the store directory")
        .map(|e| e.expect("an entry").path())
        .collect();
    entries.sort();
    for p in entries {
        out.extend_from_slice(p.file_name().expect("a name").as_encoded_bytes());
        out.push(0);
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.extend_from_slice(&std::fs::read(&p).expect("reading a store file"));
            out.push(0);
        }
    }
}

/// Each needle (and how it is shown) found in `haystack`.
fn found(haystack: &[u8], w: &Written) -> Vec<String> {
    let has = |n: &[u8]| haystack.windows(n.len()).any(|x| x == n);
    let mut out = Vec::new();
    for c in &w.contents {
        if has(c.as_bytes()) {
            out.push(format!("content {c:?}"));
        }
        // Each line alone too: an index or a diff stores pieces of a text.
        for line in c.lines().filter(|l| l.len() >= 12) {
            if has(line.as_bytes()) {
                out.push(format!("line {line:?}"));
            }
        }
        let hex: String = Sha256::digest(c.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if has(hex.as_bytes()) {
            out.push(format!("sha256 of {c:?}"));
        }
    }
    for p in &w.paths {
        if has(p.as_bytes()) {
            out.push(format!("path {p:?}"));
        }
    }
    for word in [
        "ocelot",
        "pangolin",
        "quillfeather",
        "heron",
        "tangerine",
        "vermilion",
        "wombat",
        "cardamom",
    ] {
        if has(word.as_bytes()) {
            out.push(format!("word {word:?}"));
        }
    }
    out
}

#[test]
fn after_every_kind_of_write_no_stored_byte_shows_a_content_a_path_or_a_hash() {
    for kind in KINDS {
        // The same workload in plaintext holds them all: the scan sees what it seeks.
        let (plain, plain_dir) = support::fresh(kind);
        let w = workload(&mut host(plain.clone(), None));
        let seen = found(&every_byte(&plain, plain_dir.as_ref()), &w);
        for needle in ["content", "sha256 of", "path", "word"] {
            assert!(
                seen.iter().any(|s| s.starts_with(needle)),
                "{kind:?}: the plaintext store shows no {needle}: {seen:?}"
            );
        }

        let (backend, dir) = support::fresh(kind);
        let mut h = host(backend.clone(), Some(key(1)));
        let w = workload(&mut h);
        let bytes = every_byte(&backend, dir.as_ref());
        assert_eq!(found(&bytes, &w), Vec::<String>::new(), "{kind:?}");
        println!(
            "{kind:?}: {} stored bytes scanned, {} needles, none found",
            bytes.len(),
            w.contents.len() * 3 + w.paths.len() + 8
        );

        // And the memory reads back, through a fresh instance with the key.
        let mut again = host(backend.clone(), Some(key(1)));
        let view = again
            .view("/memories/zephyr-notes/renamed-pangolin.md", None)
            .expect("view");
        assert!(
            view.ends_with(
                "     2\tquillfeather inserted line\n     3\tsecond line of the ocelot\n     4\t"
            ),
            "{view}"
        );
        let status: Value =
            serde_json::from_str(&again.seal_status().expect("status")).expect("JSON");
        assert_eq!(
            status,
            json!({"encrypted": true, "keyId": key_id(1), "rotatingFrom": null})
        );
    }
}

/// Two stores under one application key get data keys of their own, from the
/// fresh random bytes the host hands the component: the same texts at the same
/// paths give no stored name and no stored value in common.
#[test]
fn two_stores_under_one_key_share_no_stored_name_or_value() {
    let (a, b): (Arc<dyn Backend>, Arc<dyn Backend>) = (
        Arc::new(memdir_host::MemoryBackend::new()),
        Arc::new(memdir_host::MemoryBackend::new()),
    );
    for store in [&a, &b] {
        let mut h = host(store.clone(), Some(key(1)));
        h.create("/memories/same.md", "the same text in both stores")
            .expect("create");
    }
    let (ra, rb) = (snapshot(&a), snapshot(&b));
    let common: Vec<&String> = ra.keys().filter(|k| rb.contains_key(*k)).collect();
    // The encryption record may keep a fixed name; nothing else may match.
    assert!(common.len() <= 1, "{common:?}");
    for (k, v) in &ra {
        assert!(rb.values().all(|w| w != v), "{k}: one value in both stores");
    }
    println!(
        "{} and {} stored values, names in common: {common:?}",
        ra.len(),
        rb.len()
    );
}

/// A store's every key and value, to compare before and after.
fn snapshot(backend: &Arc<dyn Backend>) -> BTreeMap<String, Vec<u8>> {
    support::raw(backend)
}

/// The files of a directory store and their bytes.
fn disk(dir: &TempDir) -> Vec<u8> {
    let mut out = Vec::new();
    walk(&dir.0, &mut out);
    out
}

#[test]
fn a_wrong_missing_or_unwanted_key_is_refused_and_the_store_is_unchanged() {
    for kind in KINDS {
        let (backend, dir) = support::fresh(kind);
        workload(&mut host(backend.clone(), Some(key(1))));
        let before = snapshot(&backend);
        let disk_before = dir.as_ref().map(disk);
        let refused = |enc: Option<Encryption>| {
            let mut h = host(backend.clone(), enc);
            let typed = h
                .view("/memories", None)
                .expect_err("the store must refuse this key");
            assert_eq!(
                typed.kind,
                CallErrorKind::Tool(ErrorKind::Refused),
                "{typed}"
            );
            let raw =
                h.execute_json(r#"{"command":"create","path":"/memories/x.md","file_text":"x"}"#);
            assert_eq!(raw.content, format!("Error: {typed}"));
            assert!(raw.is_error);
            let answer: Value =
                serde_json::from_str(&h.api(r#"{"op":"memory.list"}"#)).expect("JSON");
            assert_eq!(answer["status"], 500, "{answer}");
            assert_eq!(answer["body"]["error"]["message"], typed.message.as_str());
            let t = h
                .toolset("", "memory_write", r#"{"path":"/y.md","content":"y"}"#)
                .expect_err("refused");
            assert_eq!(
                (t.kind.as_str(), t.message.as_str()),
                ("refused", typed.message.as_str())
            );
            typed.message
        };
        assert_eq!(
            refused(Some(key(2))),
            format!(
                "this store is encrypted with key id {}, not {}",
                key_id(1),
                key_id(2)
            )
        );
        let same_id = Encryption::new(&key_bytes(2), Some(&key_id(1))).expect("a key");
        assert_eq!(
            refused(Some(same_id)),
            format!(
                "the key given as key id {} does not open this store",
                key_id(1)
            )
        );
        assert_eq!(
            refused(None),
            format!(
                "this store is encrypted with key id {}: open it with that key",
                key_id(1)
            )
        );
        assert_eq!(snapshot(&backend), before, "{kind:?}");
        assert_eq!(dir.as_ref().map(disk), disk_before, "{kind:?}");

        // A plaintext store given a key.
        let (plain, plain_dir) = support::fresh(kind);
        workload(&mut host(plain.clone(), None));
        let before = snapshot(&plain);
        let disk_before = plain_dir.as_ref().map(disk);
        let mut h = host(plain.clone(), Some(key(1)));
        let e = h.create("/memories/x.md", "x").expect_err("refused");
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                CallErrorKind::Tool(ErrorKind::Refused),
                "this store is not encrypted: encrypt it first (memdir encrypt)"
            )
        );
        assert_eq!(snapshot(&plain), before, "{kind:?}");
        assert_eq!(plain_dir.as_ref().map(disk), disk_before, "{kind:?}");
    }
}

#[test]
fn a_bad_key_is_refused_in_the_engines_words_naming_no_key_material() {
    let e = Encryption::new(&[7u8; 31], None).expect_err("31 bytes");
    assert_eq!(
        e.to_string(),
        "an encryption key is 32 bytes (64 hex characters)"
    );
    let e = Encryption::new(&[7u8; 32], Some("no spaces")).expect_err("a bad id");
    assert_eq!(
        e.to_string(),
        "a key id is 1 to 64 letters, digits, '.', '_' or '-'"
    );
    let hex = "ab".repeat(32);
    let k = Encryption::from_hex(&format!("{hex}\n"), None).expect("a newline is allowed");
    assert_eq!(k, Encryption::new(&[0xab; 32], None).expect("a key"));
    assert_eq!(format!("{k:?}"), "Encryption { key_id: None, .. }");
    assert!(Encryption::from_hex(&format!("{hex}\n\n"), None).is_err());
}

/// The four tampers of one stored value.
#[derive(Clone, Copy, Debug)]
enum Tamper {
    FlipBit,
    Truncate,
    /// Its value and the next key's exchanged.
    Swap,
    /// The next key's value written under its name too.
    Replay,
}

fn tamper(
    store: &BTreeMap<String, Vec<u8>>,
    backend: &Arc<dyn Backend>,
    t: Tamper,
    k: &str,
    next: &str,
) {
    let (v, w) = (&store[k], &store[next]);
    match t {
        Tamper::FlipBit => {
            let mut v = v.clone();
            let i = v.len() / 2;
            v[i] ^= 0x10;
            backend.set(k, &v).expect("set");
        }
        Tamper::Truncate => backend.set(k, &v[..v.len() / 2]).expect("set"),
        Tamper::Swap => {
            backend.set(k, w).expect("set");
            backend.set(next, v).expect("set");
        }
        Tamper::Replay => backend.set(k, w).expect("set"),
    }
}

/// Every stored value of an encrypted store tampered in turn, four ways: each
/// time a fresh instance reads the whole tree and writes a file. An answer is
/// either the untampered one (the value is not on that path: an old version) or
/// a damage error, and after a damage error nothing was written.
#[test]
fn a_tampered_value_is_damage_and_nothing_is_written() {
    let backend: Arc<dyn Backend> = Arc::new(memdir_host::MemoryBackend::new());
    workload(&mut host(backend.clone(), Some(key(1))));
    let clean = snapshot(&backend);
    let good = host(backend.clone(), Some(key(1)))
        .entries()
        .expect("entries");
    let keys: Vec<String> = clean.keys().cloned().collect();
    let mut damaged = BTreeMap::<String, usize>::new();
    for t in [
        Tamper::FlipBit,
        Tamper::Truncate,
        Tamper::Swap,
        Tamper::Replay,
    ] {
        for (i, k) in keys.iter().enumerate() {
            let next = &keys[(i + 1) % keys.len()];
            tamper(&clean, &backend, t, k, next);
            let tampered = snapshot(&backend);
            let mut h = host(backend.clone(), Some(key(1)));
            let read = h.entries();
            let write = h.create("/memories/after-tamper.md", "written after");
            match (&read, &write) {
                (Ok(entries), Ok(_)) => assert_eq!(entries, &good, "{t:?} {k}: a wrong answer"),
                _ => {
                    for e in [read.as_ref().err(), write.as_ref().err()]
                        .into_iter()
                        .flatten()
                    {
                        assert_eq!(
                            e.kind,
                            CallErrorKind::Tool(ErrorKind::Damaged),
                            "{t:?}: {e}"
                        );
                        assert!(
                            e.message == DAMAGED || e.message == RECORD_DAMAGED,
                            "{t:?}: {e}"
                        );
                    }
                    if write.is_err() {
                        assert_eq!(
                            snapshot(&backend),
                            tampered,
                            "{t:?} {k}: written after damage"
                        );
                    }
                    *damaged.entry(format!("{t:?}")).or_default() += 1;
                }
            }
            // Back to the clean store for the next value.
            for key in snapshot(&backend).keys() {
                if !clean.contains_key(key) {
                    backend.delete(key).expect("delete");
                }
            }
            for (key, v) in &clean {
                backend.set(key, v).expect("set");
            }
        }
    }
    println!("{} values, damage seen per tamper: {damaged:?}", keys.len());
    for t in ["FlipBit", "Truncate", "Swap", "Replay"] {
        assert!(
            damaged.get(t).copied().unwrap_or(0) > 0,
            "{t}: never detected: {damaged:?}"
        );
    }
}

/// The conformance data through an encrypted store: each case's store seeded
/// encrypted by the native engine, run through the component with the key: the
/// same answers, the same tree, and no store operation at all (not even the
/// open's read of the encryption record) where a refusal comes before storage.
#[test]
fn every_conformance_case_answers_the_same_on_an_encrypted_store() {
    let cases = data::cases(&support::load("cases.json")).expect("cases.json");
    let mut failures = Vec::new();
    for kind in KINDS {
        for case in &cases {
            if let Err(e) = encrypted_case(kind, case) {
                failures.push(format!("{kind:?} {}: {e}", case.name));
            }
        }
    }
    println!(
        "encrypted conformance: {} cases x {} backends, {} failures",
        cases.len(),
        KINDS.len(),
        failures.len()
    );
    for f in failures.iter().take(40) {
        println!("  FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} failures (listed above)",
        failures.len()
    );
}

fn encrypted_case(kind: Kind, case: &Case) -> Result<(), String> {
    let (backend, _dir) = support::fresh(kind);
    let native_key = || Key::new(key_bytes(1), None).expect("a key");
    let sealed = block_on(Sealed::open(&*backend, Some(native_key()), [9; 32]))
        .map_err(|e| e.to_string())?;
    block_on(memdir::Engine::new(&sealed, case.config()).import(&case.before))
        .map_err(|e| e.to_string())?;
    let probe = Arc::new(Probe::new(backend.clone()));
    let mut h = support::runtime().host(probe.clone(), HostLimits::default());
    h.configure(ToolConfig {
        engine: case.config(),
        encryption: Some(key(1)),
        ..ToolConfig::default()
    });
    let r = h.execute_json(&case.input);
    data::check_answer(case, &r)?;
    let ops = probe.ops.load(Ordering::SeqCst);
    if case.no_store_ops && ops != 0 {
        return Err(format!(
            "{ops} store operations; this refusal must make none"
        ));
    }
    let sealed = block_on(Sealed::open(&*backend, Some(native_key()), [9; 32]))
        .map_err(|e| e.to_string())?;
    let entries = block_on(memdir::Engine::new(&sealed, case.config()).entries())
        .map_err(|e| e.to_string())?;
    data::check_tree(case, entries)
}

#[test]
fn encrypt_turns_a_plaintext_store_into_one_only_its_key_opens() {
    for kind in KINDS {
        let (backend, dir) = support::fresh(kind);
        let w = workload(&mut host(backend.clone(), None));
        let tree = host(backend.clone(), None).entries().expect("entries");
        let mut h = host(backend.clone(), None);
        h.encrypt(&key(3)).expect("encrypt");
        assert_eq!(
            h.entries().expect("entries"),
            tree,
            "the instance runs on with the key"
        );
        assert_eq!(
            host(backend.clone(), Some(key(3)))
                .entries()
                .expect("entries"),
            tree
        );
        assert_eq!(
            found(&every_byte(&backend, dir.as_ref()), &w),
            Vec::<String>::new(),
            "{kind:?}"
        );
        let e = host(backend.clone(), None).entries().expect_err("refused");
        assert_eq!(
            e.message,
            format!(
                "this store is encrypted with key id {}: open it with that key",
                key_id(3)
            )
        );
        // Run again with the same key: nothing left to do, nothing changes.
        let before = snapshot(&backend);
        host(backend.clone(), Some(key(3)))
            .encrypt(&key(3))
            .expect("again");
        assert_eq!(
            host(backend.clone(), Some(key(3)))
                .entries()
                .expect("entries"),
            tree
        );
        let _ = before;
    }
}

#[test]
fn rekey_moves_every_value_to_the_new_key_and_the_old_key_no_longer_opens() {
    for kind in KINDS {
        let (backend, dir) = support::fresh(kind);
        let w = workload(&mut host(backend.clone(), Some(key(1))));
        let tree = host(backend.clone(), Some(key(1)))
            .entries()
            .expect("entries");
        let mut h = host(backend.clone(), Some(key(1)));
        let moved = h.rekey(&key(2)).expect("rekey");
        assert!(moved > 10, "{moved}");
        assert_eq!(
            h.entries().expect("entries"),
            tree,
            "the instance runs on with the new key"
        );
        // A fresh instance of this host (as after a fault) opens with the new key.
        h.set_limits(HostLimits::default());
        assert_eq!(h.entries().expect("entries"), tree, "a new instance");
        assert_eq!(
            host(backend.clone(), Some(key(2)))
                .entries()
                .expect("entries"),
            tree
        );
        let e = host(backend.clone(), Some(key(1)))
            .entries()
            .expect_err("the old key");
        assert_eq!(e.kind, CallErrorKind::Tool(ErrorKind::Refused), "{e}");
        assert_eq!(
            e.message,
            format!(
                "this store is encrypted with key id {}, not {}",
                key_id(2),
                key_id(1)
            )
        );
        assert_eq!(
            found(&every_byte(&backend, dir.as_ref()), &w),
            Vec::<String>::new()
        );
    }
}

// ------------------------------------------------------------------ the CLI

fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_memdir-host"));
    c.env("MEMDIR_COMPONENT", support::component())
        .env("MEMDIR_CACHE", support::cache_dir());
    c
}

fn key_file(dir: &TempDir, name: &str, n: u8) -> std::path::PathBuf {
    let hex: String = key_bytes(n).iter().map(|b| format!("{b:02x}")).collect();
    let p = dir.0.join(name);
    std::fs::write(&p, format!("{hex}\n")).expect("writing a key file");
    p
}

fn run(args: &[&std::ffi::OsStr]) -> (String, String, Option<i32>) {
    let out = cli().args(args).output().expect("running memdir-host");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// What a run answers when a key's lock outlasts its wait (`LOCK_WAIT_MS`).
const UNAVAILABLE: &str = "{\"content\":\"Error: The memory directory's storage is unavailable right now; nothing was changed.\",\"is_error\":true}\n";

/// A tiny deterministic generator for the kill moments (seed printed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let p = e.expect("an entry").path();
        let dest = to.join(p.file_name().expect("a name"));
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

/// `memdir-host rekey` killed (SIGKILL) at random moments within the time one
/// uncut rekey of the same store takes, again and again, then run to its end
/// (with the new key when a rotation was left half done): every memory reads
/// under the new key, nothing lost, and the old key no longer opens the store.
/// At least one kill must have landed mid-rotation, or the test proves nothing.
#[test]
fn a_rekey_killed_at_random_moments_and_run_again_loses_nothing() {
    let keys = TempDir::new("enc-keys");
    let store = TempDir::new("enc-rekey");
    let (old, new) = (key_file(&keys, "old.key", 1), key_file(&keys, "new.key", 2));
    // Enough values that a rekey takes many of its steps.
    let backend: Arc<dyn Backend> =
        Arc::new(memdir_host::DirBackend::open(&store.0).expect("open"));
    let mut h = host(backend.clone(), Some(key(1)));
    let entries: Vec<memdir::Entry> = (0..300)
        .map(|i| memdir::Entry {
            path: format!("/memories/n{}/{i:04}.md", i % 37),
            content: Some(format!("note {i}: the kestrel count was {}", i * 7)),
        })
        .collect();
    h.import(&entries).expect("import");
    for i in 0..40 {
        h.str_replace(
            &format!("/memories/n{}/{i:04}.md", i % 37),
            "kestrel",
            "merlin",
        )
        .expect("edit");
    }
    let tree = h.entries().expect("entries");
    drop(h);

    let rekey = |dir: &Path, with: &Path| {
        let mut c = cli();
        c.arg("rekey")
            .arg("--store")
            .arg(dir)
            .arg("--encryption-key-file")
            .arg(with)
            .arg("--new-key-file")
            .arg(&new)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        c
    };
    // How long one whole rekey of this store takes, on a copy.
    let copy = TempDir::new("enc-rekey-copy");
    copy_dir(&store.0, &copy.0);
    let t0 = std::time::Instant::now();
    let status = rekey(&copy.0, &old).status().expect("a timed rekey");
    let whole = t0.elapsed();
    assert!(status.success());

    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let mut rng = Lcg(seed);
    let rotating = format!("\"rotatingFrom\":\"{}\"", key_id(1));
    let (mut kills, mut midway, mut done, mut gave_up) = (0, 0, false, 0);
    for _ in 0..12 {
        let mut child = rekey(&store.0, &old)
            .spawn()
            .expect("spawning memdir-host rekey");
        let wait = rng.next(u64::try_from(whole.as_millis()).unwrap_or(1000).max(1));
        std::thread::sleep(Duration::from_millis(wait));
        if let Some(status) = child.try_wait().expect("wait") {
            let mut out = String::new();
            if let Some(mut o) = child.stdout.take() {
                std::io::Read::read_to_string(&mut o, &mut out).expect("stdout");
            }
            if status.success() {
                done = true;
                break;
            }
            // A kill between making a key's lock file and writing its owner into
            // it leaves a lock no one can tell is stale until LOCK_STALE_MS: a
            // run meanwhile gives up after LOCK_WAIT_MS, changing nothing.
            assert_eq!(out, UNAVAILABLE, "a rekey run failed");
            gave_up += 1;
            continue;
        }
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        kills += 1;
        let (out, _, _) = run(&[
            "encryption-status".as_ref(),
            "--store".as_ref(),
            store.0.as_os_str(),
            "--encryption-key-file".as_ref(),
            old.as_os_str(),
        ]);
        if out.contains(&rotating) {
            midway += 1;
        }
    }
    println!(
        "kill seed {seed}: a whole rekey {whole:?}; {kills} kills, {midway} left it midway, \
         {gave_up} runs gave up on a half-made lock, finished by itself: {done}"
    );
    assert!(midway > 0, "no kill landed mid-rotation (seed {seed})");
    if !done {
        // Finished with the new key: a half-done rotation opens with either. If a
        // kill left a half-made lock, the first run gives up on it (nothing
        // changed) and one after LOCK_STALE_MS breaks it and finishes.
        let finish = || {
            run(&[
                "rekey".as_ref(),
                "--store".as_ref(),
                store.0.as_os_str(),
                "--encryption-key-file".as_ref(),
                new.as_os_str(),
                "--new-key-file".as_ref(),
                new.as_os_str(),
            ])
        };
        let (mut out, mut err, mut code) = finish();
        if code == Some(2) && out == UNAVAILABLE {
            println!("the final run gave up on a half-made lock; again once it is stale");
            std::thread::sleep(Duration::from_millis(memdir::config::LOCK_STALE_MS));
            (out, err, code) = finish();
        }
        assert_eq!(code, Some(0), "{out}{err}");
        assert!(out.starts_with("{\"moved\":"), "{out}");
    }

    let status = run(&[
        "encryption-status".as_ref(),
        "--store".as_ref(),
        store.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        new.as_os_str(),
    ]);
    assert_eq!(
        status.0,
        format!(
            "{{\"encrypted\":true,\"keyId\":\"{}\",\"rotatingFrom\":null}}\n",
            key_id(2)
        )
    );
    assert_eq!(
        host(backend.clone(), Some(key(2)))
            .entries()
            .expect("entries"),
        tree
    );
    let (out, _, code) = run(&[
        "export".as_ref(),
        "--store".as_ref(),
        store.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        old.as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out,
        format!(
            "{{\"content\":\"Error: this store is encrypted with key id {}, not {}\",\"is_error\":true}}\n",
            key_id(2),
            key_id(1)
        )
    );
}

#[test]
fn the_cli_reads_key_files_and_refuses_bad_ones_without_showing_them() {
    let keys = TempDir::new("enc-cli-keys");
    let store = TempDir::new("enc-cli");
    let k1 = key_file(&keys, "k1", 1);
    let create =
        r#"{"command":"create","path":"/memories/falcon.md","file_text":"falcon secret 4410"}"#;
    let (out, err, code) = run(&[
        "exec".as_ref(),
        "--store".as_ref(),
        store.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        k1.as_os_str(),
        create.as_ref(),
    ]);
    assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
    let mut bytes = Vec::new();
    walk(&store.0, &mut bytes);
    assert!(!bytes.windows(6).any(|w| w == b"falcon"));

    let bad = keys.0.join("bad");
    let secret_hex = "0123456789abcdef".repeat(4);
    std::fs::write(&bad, format!("{secret_hex}0\n")).expect("write");
    let (out, err, code) = run(&[
        "export".as_ref(),
        "--store".as_ref(),
        store.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        bad.as_os_str(),
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    assert_eq!(
        err,
        "memdir-host: --encryption-key-file: an encryption key is 32 bytes (64 hex characters)\n"
    );
    // A file longer than any key is refused as not one, read only to the bound.
    let long = keys.0.join("long");
    std::fs::write(
        &long,
        "ab".repeat(memdir::config::ENCRYPTION_KEY_FILE_BYTES),
    )
    .expect("write");
    let (_, err, code) = run(&[
        "export".as_ref(),
        "--store".as_ref(),
        store.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        long.as_os_str(),
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "memdir-host: --encryption-key-file: an encryption key is 32 bytes (64 hex characters)\n"
    );
    let missing = keys.0.join("missing");
    let (_, err, code) = run(&[
        "export".as_ref(),
        "--store".as_ref(),
        store.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        missing.as_os_str(),
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "memdir-host: --encryption-key-file: the file cannot be read\n"
    );
    // Without the key: the refusal, exit 1.
    let (out, _, code) = run(&["export".as_ref(), "--store".as_ref(), store.0.as_os_str()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        out,
        format!(
            "{{\"content\":\"Error: this store is encrypted with key id {}: open it with that key\",\"is_error\":true}}\n",
            key_id(1)
        )
    );
    // `encrypt` of a plaintext store from the command line.
    let plain = TempDir::new("enc-cli-plain");
    let (_, _, code) = run(&[
        "exec".as_ref(),
        "--store".as_ref(),
        plain.0.as_os_str(),
        create.as_ref(),
    ]);
    assert_eq!(code, Some(0));
    let (out, err, code) = run(&[
        "encrypt".as_ref(),
        "--store".as_ref(),
        plain.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        k1.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        format!(
            "{{\"encrypted\":true,\"keyId\":\"{}\",\"rotatingFrom\":null}}\n",
            key_id(1)
        )
    );
    let mut bytes = Vec::new();
    walk(&plain.0, &mut bytes);
    assert!(!bytes.windows(6).any(|w| w == b"falcon"));
    let (out, _, code) = run(&[
        "exec".as_ref(),
        "--store".as_ref(),
        plain.0.as_os_str(),
        "--encryption-key-file".as_ref(),
        k1.as_os_str(),
        r#"{"command":"view","path":"/memories/falcon.md"}"#.as_ref(),
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "{\"content\":\"Here's the content of /memories/falcon.md with line numbers:\\n     1\\tfalcon secret 4410\",\"is_error\":false}\n"
    );
}

/// Several stores as one memory, opened with one key: each mounted store is
/// encrypted with it, and each opens alone with it too.
#[test]
fn every_mounted_store_is_encrypted_with_the_one_key() {
    use memdir::mounts::{Access, Mount};
    let stores: Vec<Arc<dyn Backend>> = vec![
        Arc::new(memdir_host::MemoryBackend::new()),
        Arc::new(memdir_host::MemoryBackend::new()),
    ];
    let mounts = ["team", "me"]
        .iter()
        .zip(&stores)
        .map(|(name, b)| {
            let m = Mount {
                name: (*name).into(),
                access: Access::ReadWrite,
                description: String::new(),
                instructions: String::new(),
            };
            (m, b.clone())
        })
        .collect();
    let config = ToolConfig {
        encryption: Some(key(1)),
        ..ToolConfig::default()
    };
    let memory =
        memdir_host::MountedHost::new(support::runtime(), mounts, &config, HostLimits::default())
            .expect("mounts");
    for name in ["team", "me"] {
        let input = json!({"command": "create", "path": format!("/memories/{name}/gannet.md"), "file_text": "gannet ledger"});
        let r = memory.execute_json(&input.to_string());
        assert!(!r.is_error, "{}", r.content);
    }
    for (store, name) in stores.iter().zip(["team", "me"]) {
        let bytes = every_byte(store, None);
        assert!(!bytes.windows(6).any(|w| w == b"gannet"), "{name}");
        let mut alone = host(store.clone(), Some(key(1)));
        alone.configure(ToolConfig {
            engine: memdir::config::Config {
                mount: name.into(),
                ..memdir::config::Config::default()
            },
            encryption: Some(key(1)),
            ..ToolConfig::default()
        });
        assert_eq!(
            alone
                .view(&format!("/memories/{name}/gannet.md"), None)
                .expect("view"),
            format!(
                "Here's the content of /memories/{name}/gannet.md with line numbers:\n     1\tgannet ledger"
            )
        );
    }
}

/// A finished `encrypt` or `rekey` on a store directory removes, in its turn, the
/// temporaries left by runs killed before it began: such a file may hold a value
/// that run was moving in clear.
#[test]
fn a_finished_reencryption_sweeps_what_killed_runs_left_in_clear() {
    let dir = TempDir::new("enc-sweep");
    let backend: Arc<dyn Backend> = Arc::new(memdir_host::DirBackend::open(&dir.0).expect("open"));
    let mut h = host(backend.clone(), None);
    h.create("/memories/a.md", "albatross").expect("create");
    let left = |name: &str| {
        let p = dir.0.join(name);
        std::fs::write(&p, "albatross in clear, as a killed run left it").expect("write");
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&p)
            .and_then(|f| f.set_modified(hour_ago))
            .expect("mtime");
        p
    };
    let first = left(".tmp-killed-encrypt");
    h.encrypt(&key(1)).expect("encrypt");
    assert!(!first.exists(), "a killed encrypt's temporary stayed");
    let second = left(".tmp-killed-rekey");
    h.rekey(&key(2)).expect("rekey");
    assert!(!second.exists(), "a killed rekey's temporary stayed");
    let mut bytes = Vec::new();
    walk(&dir.0, &mut bytes);
    assert!(!bytes.windows(9).any(|w| w == b"albatross"));
}

/// A store mounted read-only is not re-keyed or encrypted through its instance,
/// in the npm package's words (`memory.rekey`'s): it rewrites every stored value.
/// The CLI's `rekey --mount` is refused before (rekey takes one --store).
#[test]
fn a_read_only_mount_is_not_rekeyed_or_encrypted() {
    use memdir::mounts::{Access, Mount};
    use memdir_host::{MemoryBackend, MountedHost};
    let mount = |name: &str, access| Mount {
        name: name.into(),
        access,
        description: String::new(),
        instructions: String::new(),
    };
    let team: Arc<dyn Backend> = Arc::new(MemoryBackend::new());
    workload(&mut host(team.clone(), Some(key(1))));
    let before = snapshot(&team);
    let memory = MountedHost::new(
        support::runtime(),
        vec![
            (mount("team", Access::ReadOnly), team.clone()),
            (
                mount("me", Access::ReadWrite),
                Arc::new(MemoryBackend::new()) as Arc<dyn Backend>,
            ),
        ],
        &ToolConfig {
            encryption: Some(key(1)),
            ..ToolConfig::default()
        },
        HostLimits::default(),
    )
    .expect("mounted");
    let instance = memory.instance("team").expect("team");
    let e = instance.host().rekey(&key(2)).expect_err("read-only");
    assert_eq!(
        (e.kind, e.message.as_str()),
        (
            CallErrorKind::Tool(ErrorKind::Refused),
            "rekey: the store at /memories/team is mounted read-only; re-key it where it is opened read-write"
        )
    );
    let e = instance.host().encrypt(&key(2)).expect_err("read-only");
    assert_eq!(
        e.message,
        "encrypt: the store at /memories/team is mounted read-only; encrypt it where it is opened read-write"
    );
    assert!(snapshot(&team) == before, "nothing changed");
    // The writable one is re-keyed.
    let me = memory.instance("me").expect("me");
    me.host().rekey(&key(2)).expect("read-write");

    let keys = TempDir::new("ro-rekey-keys");
    let hex = |n: u8| -> String { key_bytes(n).iter().map(|b| format!("{b:02x}")).collect() };
    std::fs::write(keys.0.join("old.hex"), hex(1)).expect("key file");
    std::fs::write(keys.0.join("new.hex"), hex(2)).expect("key file");
    let out = Command::new(env!("CARGO_BIN_EXE_memdir-host"))
        .env("MEMDIR_COMPONENT", support::component())
        .args([
            "rekey",
            "--mount",
            "team=/nonexistent:ro",
            "--encryption-key-file",
        ])
        .arg(keys.0.join("old.hex"))
        .arg("--new-key-file")
        .arg(keys.0.join("new.hex"))
        .output()
        .expect("memdir-host");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().next(),
        Some(
            "memdir-host: --mount works with exec, search, recall and instructions only; for one store use --store DIR"
        )
    );
}
