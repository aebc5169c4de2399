//! Encryption at rest (`memdir::seal`): what a sealed store holds at rest (no
//! content, path or content hash), what tampering gets (damage, nothing written),
//! the refusals (wrong key, missing key, plaintext with a key), and re-keying and
//! encrypting cut at every step then finished, losing nothing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use memdir::config::Config;
use memdir::conformance;
use memdir::seal::{Key, SealError, Sealed};
use memdir::{Engine, Entry, MemoryStore, Store, StoreError, ToolError, block_on, list_all};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::{Harness, dump, file};

const FRESH: [u8; 32] = [7; 32];

fn key(byte: u8, id: &str) -> Key {
    Key::new([byte; 32], Some(id)).unwrap()
}

fn open(inner: MemoryStore, key: Option<Key>) -> Result<Sealed<MemoryStore>, SealError> {
    block_on(Sealed::open(inner, key, FRESH))
}

fn engine<S: Store>(store: S) -> Engine<S> {
    let mut engine = Engine::new(store, Config::default());
    let now = std::rc::Rc::new(std::cell::Cell::new(1_795_000_000_000u64));
    engine.set_clock(Box::new(move || {
        now.set(now.get() + 1000);
        now.get()
    }));
    engine
}

fn run<S: Store>(engine: &Engine<S>, input: Value) -> String {
    let r = block_on(engine.execute_json(&input.to_string()));
    assert!(!r.is_error, "{input}: {}", r.content);
    r.content
}

fn api<S: Store>(engine: &Engine<S>, request: Value) -> Value {
    let r = block_on(engine.api(&request));
    assert_eq!(r.status, 200, "{request}: {:?}", r.body);
    r.body
}

/// The texts a workload writes, each distinctive enough to find in a byte scan.
const TEXTS: [&str; 4] = [
    "the user prefers dark mode in every editor",
    "quarterly planning happens on Thursdays at ten",
    "remember the staging database is called heron",
    "the redacted text that must vanish entirely",
];

/// Creates, edits, renames, API writes, a search (so the index exists), a
/// redaction and gc; answers what must not be found at rest.
fn workload<S: Store>(engine: &Engine<S>) -> Vec<String> {
    api(
        engine,
        json!({"op": "store.create", "id": crate::common::STORE_ID, "body": r#"{"name":"Prefs"}"#}),
    );
    run(
        engine,
        json!({"command": "create", "path": "/memories/prefs/editor-theme.md", "file_text": TEXTS[0]}),
    );
    run(
        engine,
        json!({"command": "create", "path": "/memories/planning-cadence.md", "file_text": TEXTS[1]}),
    );
    run(
        engine,
        json!({"command": "str_replace", "path": "/memories/planning-cadence.md", "old_str": "ten", "new_str": "eleven"}),
    );
    run(
        engine,
        json!({"command": "rename", "old_path": "/memories/planning-cadence.md", "new_path": "/memories/meetings/cadence-notes.md"}),
    );
    let made = api(
        engine,
        json!({"op": "memory.create", "body": json!({"path": "/infra/staging-db.md", "content": TEXTS[2]}).to_string()}),
    );
    let secret = api(
        engine,
        json!({"op": "memory.create", "body": json!({"path": "/doomed/secret-plan.md", "content": TEXTS[3]}).to_string()}),
    );
    let version = secret["memory_version_id"].as_str().unwrap().to_string();
    api(engine, json!({"op": "memory.delete", "id": secret["id"]}));
    api(engine, json!({"op": "version.redact", "id": version}));
    let found = block_on(engine.search_json(&json!({"query": "staging database heron"}))).unwrap();
    assert_eq!(found[0]["path"], "/memories/infra/staging-db.md");
    assert!(made["id"].is_string());
    let edited = TEXTS[1].replace("ten", "eleven");
    let mut needles: Vec<String> = Vec::new();
    for text in [TEXTS[0], TEXTS[1], &edited, TEXTS[2], TEXTS[3]] {
        needles.push(text.to_string());
        needles.push(hex::encode(Sha256::digest(text.as_bytes())));
        // A word of it alone, as the search index keeps words.
        needles.push(text.split(' ').max_by_key(|w| w.len()).unwrap().to_string());
    }
    for path in [
        "editor-theme",
        "planning-cadence",
        "cadence-notes",
        "staging-db",
        "secret-plan",
        "prefs/",
        "meetings/",
        "Prefs",
    ] {
        needles.push(path.to_string());
    }
    needles
}

/// Every needle found in a key or value of `store`, with where.
fn found_at_rest(store: &MemoryStore, needles: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for (k, v) in dump(store) {
        for n in needles {
            let hit = |hay: &[u8]| hay.windows(n.len()).any(|w| w == n.as_bytes());
            if hit(k.as_bytes()) || hit(&v) {
                found.push(format!("{n:?} in {k}"));
            }
        }
    }
    found
}

#[test]
fn nothing_of_a_memory_is_readable_at_rest() {
    let inner = MemoryStore::new();
    let sealed = open(inner.clone(), Some(key(1, "app-key"))).unwrap();
    let needles = workload(&engine(&sealed));
    assert_eq!(found_at_rest(&inner, &needles), Vec::<String>::new());
    // The same workload in plaintext leaves them all to see: the scan can fail.
    let plain = MemoryStore::new();
    let needles = workload(&engine(&plain));
    let found = found_at_rest(&plain, &needles);
    for text in [TEXTS[0], "cadence-notes", "staging-db"] {
        assert!(
            found.iter().any(|f| f.starts_with(&format!("{text:?}"))),
            "{text}"
        );
    }
}

#[test]
fn the_memory_tool_answers_the_same_on_a_sealed_store() {
    let cases = conformance::cases(include_str!("../conformance/cases.json")).expect("cases.json");
    assert!(cases.len() > 100);
    for case in &cases {
        let inner = MemoryStore::new();
        let sealed = open(inner.clone(), Some(key(3, "k3"))).unwrap();
        block_on(conformance::seed(&sealed, case)).unwrap();
        let engine = Engine::new(&sealed, case.config());
        if let Err(e) = block_on(conformance::check(&engine, case)) {
            panic!("{}: {e}", case.name);
        }
    }
}

/// Which plain names fail to read with damage.
fn damaged_names(sealed: &Sealed<MemoryStore>, names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| block_on(sealed.get(n)) == Err(StoreError::Damaged))
        .cloned()
        .collect()
}

#[test]
fn a_tampered_value_is_damage_and_nothing_is_written() {
    let inner = MemoryStore::new();
    let sealed = open(inner.clone(), Some(key(1, "app-key"))).unwrap();
    workload(&engine(&sealed));
    let names = block_on(list_all(&sealed, "")).unwrap();
    let raws: Vec<(String, Vec<u8>)> = dump(&inner)
        .into_iter()
        .filter(|(k, _)| k != "memdir-seal")
        .collect();
    assert_eq!(raws.len(), names.len());
    let other = raws[0].1.clone();
    for (raw, value) in &raws {
        let mut flipped = value.clone();
        let at = flipped.len() / 2;
        flipped[at] ^= 0x10;
        let truncated = value[..value.len() - 1].to_vec();
        for (how, bad) in [
            ("flipped", flipped),
            ("truncated", truncated),
            ("swapped", other.clone()),
        ] {
            if bad == *value {
                continue;
            }
            block_on(inner.set(raw, &bad)).unwrap();
            let damaged = damaged_names(&sealed, &names);
            assert_eq!(damaged.len(), 1, "{how} {raw}: {damaged:?}");
            block_on(inner.set(raw, value)).unwrap();
        }
    }
    // The head damaged: a write answers damage and the store keeps every byte.
    let engine = engine(&sealed);
    let before = dump(&inner);
    let head = raws
        .iter()
        .find(|(raw, value)| {
            let mut bad = value.clone();
            bad[0] ^= 1;
            block_on(inner.set(raw, &bad)).unwrap();
            let hit = block_on(sealed.get("head")) == Err(StoreError::Damaged);
            block_on(inner.set(raw, value)).unwrap();
            hit
        })
        .unwrap();
    let mut bad = head.1.clone();
    bad[5] ^= 0x40;
    block_on(inner.set(&head.0, &bad)).unwrap();
    let tampered = dump(&inner);
    let answer = block_on(engine.execute_json(
        &json!({"command": "create", "path": "/memories/new.md", "file_text": "x"}).to_string(),
    ));
    assert!(answer.is_error);
    assert_eq!(
        answer.content,
        "Error: The memory directory's storage is damaged: a stored record is missing or unreadable."
    );
    assert_eq!(dump(&inner), tampered);
    block_on(inner.set(&head.0, &head.1)).unwrap();
    assert_eq!(dump(&inner), before);
}

#[test]
fn a_value_replayed_under_another_name_or_store_does_not_open() {
    let inner = MemoryStore::new();
    let sealed = open(inner.clone(), Some(key(1, "app-key"))).unwrap();
    block_on(sealed.set("a", b"one")).unwrap();
    block_on(sealed.set("b", b"two")).unwrap();
    let raws: Vec<_> = dump(&inner)
        .into_iter()
        .filter(|(k, _)| k != "memdir-seal")
        .collect();
    let (a, b) = (&raws[0], &raws[1]);
    block_on(inner.set(&b.0, &a.1)).unwrap();
    let damaged = damaged_names(&sealed, &["a".into(), "b".into()]);
    assert_eq!(damaged.len(), 1);
    // Another store under the same key: same names, other data key.
    let twin_inner = MemoryStore::new();
    let twin = block_on(Sealed::open(
        twin_inner.clone(),
        Some(key(1, "app-key")),
        [9; 32],
    ))
    .unwrap();
    block_on(twin.set("a", b"one")).unwrap();
    block_on(twin.set("b", b"two")).unwrap();
    let twin_raws: Vec<_> = dump(&twin_inner)
        .into_iter()
        .filter(|(k, _)| k != "memdir-seal")
        .collect();
    for (k, v) in &twin_raws {
        assert!(
            raws.iter().all(|(k2, v2)| k2 != k && v2 != v),
            "{k} repeats across stores"
        );
    }
}

#[test]
fn refusals_name_the_key_id_and_change_nothing() {
    let inner = MemoryStore::new();
    let sealed = open(inner.clone(), Some(key(1, "app-key"))).unwrap();
    run(
        &engine(&sealed),
        json!({"command": "create", "path": "/memories/a.md", "file_text": "hello"}),
    );
    let before = dump(&inner);
    let err = |r: Result<Sealed<MemoryStore>, SealError>| r.err().unwrap().to_string();
    assert_eq!(
        err(open(inner.clone(), None)),
        "this store is encrypted with key id app-key: open it with that key"
    );
    assert_eq!(
        err(open(inner.clone(), Some(key(2, "app-key")))),
        "the key given as key id app-key does not open this store"
    );
    assert_eq!(
        err(open(inner.clone(), Some(key(1, "other")))),
        "this store is encrypted with key id app-key, not other"
    );
    assert_eq!(dump(&inner), before);
    let plain = MemoryStore::new();
    run(
        &engine(&plain),
        json!({"command": "create", "path": "/memories/a.md", "file_text": "hello"}),
    );
    let plain_before = dump(&plain);
    assert_eq!(
        err(open(plain.clone(), Some(key(1, "app-key")))),
        "this store is not encrypted: encrypt it first (memdir encrypt)"
    );
    assert_eq!(dump(&plain), plain_before);
    // The record itself damaged.
    block_on(inner.set("memdir-seal", b"{\"format\":\"memdir-seal 1\"}")).unwrap();
    assert_eq!(
        err(open(inner.clone(), Some(key(1, "app-key")))),
        "the store's encryption record is damaged"
    );
}

#[test]
fn keys_and_their_ids() {
    let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    for text in [hex.to_string(), format!("{hex}\n"), format!("{hex}\r\n")] {
        assert_eq!(Key::from_hex(&text, Some("k1")).unwrap().id(), "k1");
    }
    for bad in [&hex[1..], &format!("{hex}\n\n"), &hex.replace('0', "g"), ""] {
        assert_eq!(
            Key::from_hex(bad, None).unwrap_err().to_string(),
            "an encryption key is 32 bytes (64 hex characters)"
        );
    }
    for bad in ["", "has space", "slash/", &"x".repeat(65)] {
        assert_eq!(
            Key::new([0; 32], Some(bad)).unwrap_err().to_string(),
            "a key id is 1 to 64 letters, digits, '.', '_' or '-'"
        );
    }
    let derived = Key::from_hex(hex, None).unwrap();
    assert!(
        derived.id().starts_with("k-") && derived.id().len() == 10,
        "{}",
        derived.id()
    );
    assert_eq!(Key::from_hex(hex, None).unwrap().id(), derived.id());
    assert_ne!(Key::new([1; 32], None).unwrap().id(), derived.id());
    assert!(!format!("{derived:?}").contains("0011"));
}

/// A store of 300 memories (more than one step of a rotation).
fn many(sealed: &Sealed<impl Store>) -> Vec<Entry> {
    let entries: Vec<Entry> = (0..300)
        .map(|i| {
            file(
                &format!("/memories/n{i:03}.md"),
                &format!("note number {i}"),
            )
        })
        .collect();
    block_on(engine(sealed).import(&entries)).unwrap();
    block_on(engine(sealed).entries()).unwrap()
}

fn entries_of(store: &MemoryStore, key: Option<Key>) -> Result<Vec<Entry>, String> {
    let sealed = open(store.clone(), key).map_err(|e| e.to_string())?;
    block_on(engine(&sealed).entries()).map_err(|e| e.to_string())
}

#[test]
fn a_rekey_cut_at_any_step_loses_nothing_and_a_rerun_finishes() {
    let (old, new) = (key(1, "old"), key(2, "new"));
    // Count the steps of one whole rekey first.
    let probe = MemoryStore::new();
    let want = many(&open(probe.clone(), Some(old.clone())).unwrap());
    let counted = Harness::new(probe.clone());
    let shared = counted.shared.clone();
    let sealed = block_on(Sealed::open(counted, Some(old.clone()), FRESH)).unwrap();
    shared.reset();
    let done = block_on(sealed.rekey(new.clone(), [8; 32])).unwrap();
    assert_eq!(done.moved, dump(&probe).len() - 1);
    let total = shared.ops.get();
    assert!(total > 600, "{total}");
    // About fifteen cuts spread over every kind of step (the record's swaps
    // first and last, the moves between).
    for cut in (0..total)
        .step_by((total / 14) as usize)
        .chain([total - 1, total - 2])
    {
        let store = MemoryStore::new();
        assert_eq!(many(&open(store.clone(), Some(old.clone())).unwrap()), want);
        let cutting = Harness::new(store.clone());
        let shared = cutting.shared.clone();
        let sealed = block_on(Sealed::open(cutting, Some(old.clone()), FRESH)).unwrap();
        shared.reset();
        shared.fail_at.set(Some(cut));
        assert_eq!(
            block_on(sealed.rekey(new.clone(), [8; 32])).map(|_| ()),
            Err(SealError::Storage(StoreError::Failed)),
            "cut {cut}"
        );
        let started = block_on(open(store.clone(), Some(old.clone())).unwrap().status()).unwrap();
        assert_eq!(
            entries_of(&store, Some(old.clone())).unwrap(),
            want,
            "cut {cut}"
        );
        if started.key_id.as_deref() == Some("new") {
            // Under way: both keys read it, and a rotation to a third key waits.
            assert_eq!(started.rotating_from.as_deref(), Some("old"));
            assert_eq!(
                entries_of(&store, Some(new.clone())).unwrap(),
                want,
                "cut {cut}"
            );
            let third = block_on(
                open(store.clone(), Some(new.clone()))
                    .unwrap()
                    .rekey(key(3, "third"), [5; 32]),
            );
            assert_eq!(
                third.unwrap_err().to_string(),
                "this store is being re-encrypted to key id new: finish with that key",
                "cut {cut}"
            );
        } else {
            assert_eq!(
                entries_of(&store, Some(new.clone())).unwrap_err(),
                "this store is encrypted with key id old, not new",
                "cut {cut}"
            );
        }
        block_on(
            open(store.clone(), Some(old.clone()))
                .unwrap()
                .rekey(new.clone(), [8; 32]),
        )
        .unwrap();
        assert_eq!(
            entries_of(&store, Some(new.clone())).unwrap(),
            want,
            "cut {cut}"
        );
        assert_eq!(
            entries_of(&store, Some(old.clone())).unwrap_err(),
            "this store is encrypted with key id new, not old",
            "cut {cut}"
        );
        // Nothing of the old generation is left: one stored value per name, and the record.
        let names = block_on(list_all(
            &open(store.clone(), Some(new.clone())).unwrap(),
            "",
        ))
        .unwrap();
        assert_eq!(dump(&store).len(), names.len() + 1, "cut {cut}");
    }
}

#[test]
fn encrypting_a_plaintext_store_cut_at_any_step_loses_nothing() {
    let k = key(4, "k4");
    let probe = MemoryStore::new();
    let want = {
        let plain = open(probe.clone(), None).unwrap();
        many(&plain)
    };
    let counted = Harness::new(probe.clone());
    let shared = counted.shared.clone();
    block_on(Sealed::encrypt(counted, k.clone(), FRESH)).unwrap();
    let total = shared.ops.get();
    assert_eq!(entries_of(&probe, Some(k.clone())).unwrap(), want);
    for cut in (0..total).step_by((total / 14) as usize).chain([total - 1]) {
        let store = MemoryStore::new();
        many(&open(store.clone(), None).unwrap());
        let cutting = Harness::new(store.clone());
        cutting.shared.fail_at.set(Some(cut));
        assert!(
            block_on(Sealed::encrypt(cutting, k.clone(), FRESH)).is_err(),
            "cut {cut}"
        );
        if cut > 0 {
            // The record is written first: the key reads it, no key is refused.
            assert_eq!(
                entries_of(&store, Some(k.clone())).unwrap(),
                want,
                "cut {cut}"
            );
            assert_eq!(
                entries_of(&store, None).unwrap_err(),
                "this store is encrypted with key id k4: open it with that key"
            );
        }
        let sealed = block_on(Sealed::encrypt(store.clone(), k.clone(), FRESH)).unwrap();
        assert_eq!(block_on(sealed.status()).unwrap().rotating_from, None);
        assert_eq!(
            entries_of(&store, Some(k.clone())).unwrap(),
            want,
            "cut {cut}"
        );
        let needles: Vec<String> = want
            .iter()
            .flat_map(|e| [e.path.clone(), e.content.clone().unwrap_or_default()])
            .filter(|n| !n.is_empty() && n != "/memories")
            .collect();
        let bare: Vec<String> = needles
            .iter()
            .map(|n| n.trim_start_matches("/memories/").to_string())
            .collect();
        assert_eq!(
            found_at_rest(&store, &bare),
            Vec::<String>::new(),
            "cut {cut}"
        );
    }
}

#[test]
fn rewrapping_rewrites_no_value_and_shredding_leaves_nothing_readable() {
    let inner = MemoryStore::new();
    let sealed = open(inner.clone(), Some(key(1, "master-1"))).unwrap();
    let want = many(&sealed);
    let before: Vec<_> = dump(&inner)
        .into_iter()
        .filter(|(k, _)| k != "memdir-seal")
        .collect();
    block_on(sealed.rewrap(key(2, "master-2"))).unwrap();
    let after: Vec<_> = dump(&inner)
        .into_iter()
        .filter(|(k, _)| k != "memdir-seal")
        .collect();
    assert_eq!(after, before);
    assert_eq!(entries_of(&inner, Some(key(2, "master-2"))).unwrap(), want);
    assert_eq!(
        entries_of(&inner, Some(key(1, "master-1"))).unwrap_err(),
        "this store is encrypted with key id master-2, not master-1"
    );
    let status = block_on(sealed.status()).unwrap();
    assert_eq!(
        status.to_json(),
        r#"{"encrypted":true,"keyId":"master-2","rotatingFrom":null}"#
    );
    block_on(sealed.shred()).unwrap();
    assert_eq!(block_on(sealed.get("head")), Err(StoreError::Unavailable));
    assert_eq!(
        entries_of(&inner, Some(key(2, "master-2"))).unwrap_err(),
        "this store is not encrypted: encrypt it first (memdir encrypt)"
    );
    assert_eq!(dump(&inner).len(), before.len());
}

#[test]
fn a_command_on_a_damaged_store_is_a_tool_error() {
    assert_eq!(ToolError::from(StoreError::Damaged), ToolError::Damaged);
}

#[test]
fn two_handles_writing_one_sealed_store_lose_nothing() {
    // Two processes' worth: each handle remembers the head it last saw and swaps
    // from it, so every race at every store operation must still end in one winner.
    let inner = MemoryStore::new();
    let k = key(6, "k6");
    let stores: Vec<Harness<MemoryStore>> = (0..2)
        .map(|_| {
            let mut h = Harness::new(inner.clone());
            h.yielding = true;
            h
        })
        .collect();
    let sealed: Vec<Sealed<&Harness<MemoryStore>>> = stores
        .iter()
        .map(|s| block_on(Sealed::open(s, Some(k.clone()), FRESH)).unwrap())
        .collect();
    let engines: Vec<Engine<&Sealed<&Harness<MemoryStore>>>> = sealed.iter().map(engine).collect();
    let runs: Vec<_> = engines
        .iter()
        .enumerate()
        .map(|(w, e)| async move {
            for i in 0..15 {
                let input = json!({"command": "create", "path": format!("/memories/w{w}/n{i}.md"), "file_text": format!("writer {w} note {i}")});
                let r = e.execute_json(&input.to_string()).await;
                assert!(!r.is_error, "{}", r.content);
            }
        })
        .collect();
    crate::common::run_interleaved(runs);
    let seen = block_on(engines[1].entries()).unwrap();
    assert_eq!(seen.iter().filter(|e| e.content.is_some()).count(), 30);
    assert_eq!(block_on(engines[0].entries()).unwrap(), seen);
}

#[test]
fn sealed_names_fit_a_store_directory() {
    // A store directory's file names hold at most 200 characters; the engine's
    // longest names, sealed, must stay within them.
    let inner = MemoryStore::new();
    let sealed = open(inner.clone(), Some(key(1, "k"))).unwrap();
    let digest = "0123456789abcdef".repeat(4);
    let names = [
        format!("index/chunk/{digest}"),
        format!("vec/{digest}/{}", &digest[..32]),
        format!("sync/{digest}"),
        "gc/pending-at".to_string(),
    ];
    for name in &names {
        block_on(sealed.set(name, b"v")).unwrap();
    }
    let raws = dump(&inner);
    assert_eq!(raws.len(), names.len() + 1);
    for (raw, _) in raws {
        let file = memdir::store_dir::file_name(&raw).unwrap();
        assert!(file.len() <= 160, "{} characters: {file}", file.len());
    }
    let mut listed = block_on(list_all(&sealed, "")).unwrap();
    listed.sort();
    let mut want = names.to_vec();
    want.sort();
    assert_eq!(listed, want);
}

/// A store that says it searches vectors itself, as PostgreSQL with pgvector does.
struct SearchesVectors(MemoryStore);

impl Store for SearchesVectors {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.0.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.0.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.0.delete(key).await
    }
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<memdir::Page, StoreError> {
        self.0.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.0.compare_and_swap(key, expected, new).await
    }
    fn searches_vectors(&self) -> bool {
        true
    }
    async fn nearest(
        &self,
        _fingerprint: &str,
        _query: &[f32],
        _k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
        Ok(Some(vec![([1; 32], 1.0)]))
    }
}

#[test]
fn a_sealed_store_never_hands_vector_search_to_the_store_below() {
    // The store below would need the vectors in clear to search them.
    let below = SearchesVectors(MemoryStore::new());
    assert!(below.searches_vectors());
    let sealed = block_on(Sealed::open(below, Some(key(1, "k")), FRESH)).unwrap();
    assert!(!sealed.searches_vectors());
    assert_eq!(block_on(sealed.nearest("fp", &[1.0], 10)), Ok(None));
    // Without a key it passes through, as the store is plaintext anyway.
    let plain = block_on(Sealed::open(
        SearchesVectors(MemoryStore::new()),
        None,
        FRESH,
    ))
    .unwrap();
    assert!(plain.searches_vectors());
    assert_eq!(
        block_on(plain.nearest("fp", &[1.0], 10)),
        Ok(Some(vec![([1; 32], 1.0)]))
    );
}
