//! Runs the language-neutral conformance data in `tests/conformance/` against the Rust
//! engine over `MemoryStore`: every case of cases.json through all three faces
//! (`execute_value`, `execute` on the JSON text, `handle`), and every hostile path in
//! every argument position, counting store operations through a wrapper store (a
//! hostile path must cause none). Also checks the storage-failure sentences, which
//! the JSON format cannot express.
// Tests fail by panicking; the engine's no-panic lints are for the engine.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

use memdir::config::Config;
use memdir::conformance::{self, Case, POSITIONS, hostile_input};
use memdir::{Engine, Entry, MemoryStore, Page, Store, StoreError, block_on};
use serde_json::{Value, json};

// ------------------------------------------------------------------ wrapper stores

/// Counts every store operation, and optionally fails the ones `fail` picks.
/// `commit` is left to the trait's default so each write inside it is seen (and counted).
struct Probe<S> {
    inner: S,
    ops: Rc<Cell<u64>>,
    fail: fn(Op) -> Option<StoreError>,
    cas_always_loses: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Get,
    Set,
    Delete,
    List,
    Cas,
}

impl<S: Store> Probe<S> {
    fn counting(inner: S, ops: Rc<Cell<u64>>) -> Self {
        Probe {
            inner,
            ops,
            fail: |_| None,
            cas_always_loses: false,
        }
    }
    fn hit(&self, op: Op) -> Result<(), StoreError> {
        self.ops.set(self.ops.get() + 1);
        match (self.fail)(op) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl<S: Store> Store for Probe<S> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.hit(Op::Get)?;
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.hit(Op::Set)?;
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.hit(Op::Delete)?;
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.hit(Op::List)?;
        self.inner.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.hit(Op::Cas)?;
        if self.cas_always_loses {
            return Ok(false);
        }
        self.inner.compare_and_swap(key, expected, new).await
    }
}

// ------------------------------------------------------------------ data loading

fn load(name: &str) -> String {
    let path = format!("{}/tests/conformance/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn seeded(case: &Case) -> Result<MemoryStore, String> {
    let store = MemoryStore::new();
    block_on(conformance::seed(&store, case))?;
    Ok(store)
}

// ------------------------------------------------------------------ cases.json

fn run_case(case: &Case) -> Result<u64, String> {
    // Face 1: execute on the JSON text over a counted store, then the tree.
    let store = seeded(case)?;
    let ops = Rc::new(Cell::new(0));
    let engine = Engine::new(Probe::counting(store.clone(), ops.clone()), case.config());
    conformance::check_answer(case, &block_on(engine.execute_json(&case.input)))?;
    let used = ops.get();
    if case.no_store_ops && used != 0 {
        return Err(format!(
            "made {used} store operations; this refusal must make none"
        ));
    }
    let reader = Engine::new(store, case.config());
    conformance::check_tree(
        case,
        block_on(reader.entries()).map_err(|e| format!("entries() failed: {e}"))?,
    )?;

    // Faces 2 and 3, for input that parses: execute_value, and the handler face
    // (the message without "Error: ").
    if let Ok(v) = serde_json::from_str::<Value>(&case.input) {
        let engine = Engine::new(seeded(case)?, case.config());
        conformance::check_answer(case, &block_on(engine.execute(&v)))
            .map_err(|e| format!("execute_value disagrees with execute: {e}"))?;
        let engine = Engine::new(seeded(case)?, case.config());
        let got = match block_on(engine.handle(&v)) {
            Ok(s) => s,
            Err(m) => format!("Error: {m}"),
        };
        if got != case.content {
            return Err(format!(
                "handle() face disagrees: {}",
                conformance::diff(&case.content, &got)
            ));
        }
    }
    Ok(used)
}

#[test]
fn cases() {
    let cases = conformance::cases(&load("cases.json")).expect("cases.json");
    let mut failures = Vec::new();
    let mut ops = 0;
    let mut names = std::collections::HashSet::new();
    for case in &cases {
        let name = &case.name;
        assert!(names.insert(name), "duplicate case name {name}");
        match run_case(case) {
            Ok(n) => ops += n,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    println!(
        "conformance cases: {} run, {} passed, {} failed; {ops} store operations in the passing cases",
        cases.len(),
        cases.len() - failures.len(),
        failures.len()
    );
    for f in failures.iter().take(40) {
        println!("  FAIL {f}");
    }
    if failures.len() > 40 {
        println!("  … and {} more", failures.len() - 40);
    }
    assert!(
        failures.is_empty(),
        "{} of {} conformance cases failed (listed above)",
        failures.len(),
        cases.len()
    );
}

// ------------------------------------------------------------------ hostile-paths.json

#[test]
fn hostile_paths() {
    let paths =
        conformance::hostile_paths(&load("hostile-paths.json")).expect("hostile-paths.json");
    let store = MemoryStore::new();
    let setup = Engine::new(store.clone(), Config::default());
    // A real file at the valid end of a rename, so only the hostile path can refuse.
    let seeded = block_on(setup.import(&conformance::hostile_seed()));
    let ops = Rc::new(Cell::new(0u64));
    let engine = Engine::new(Probe::counting(store, ops.clone()), Config::default());

    let mut per_rule: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut total_ops = 0;
    for entry in &paths {
        let (p, rule) = (entry.path.as_str(), entry.rule.as_str());
        let want = format!("Error: {}", entry.message);
        for pos in POSITIONS {
            ops.set(0);
            let r = block_on(engine.execute(&hostile_input(pos, p)));
            let used = ops.get();
            total_ops += used;
            let slot = per_rule.entry(rule.into()).or_default();
            slot.0 += 1;
            slot.1 += used;
            if !r.is_error || r.content != want || used != 0 {
                let shown: String = p.chars().take(60).collect();
                failures.push(format!(
                    "[{rule}] {pos} {shown:?}: {} store ops; {}",
                    used,
                    conformance::diff(&want, &r.content)
                ));
            }
        }
    }
    let by_rule: Vec<String> = per_rule
        .iter()
        .map(|(r, (n, o))| format!("{r} {n} ({o} ops)"))
        .collect();
    println!(
        "hostile paths: {} paths x {} positions = {} refusals; store operations observed: {total_ops}; by rule: {}",
        paths.len(),
        POSITIONS.len(),
        paths.len() * POSITIONS.len(),
        by_rule.join(", ")
    );
    for f in failures.iter().take(30) {
        println!("  FAIL {f}");
    }
    if failures.len() > 30 {
        println!("  … and {} more", failures.len() - 30);
    }
    seeded.expect("seeding a.txt");
    assert!(
        failures.is_empty(),
        "{} of {} hostile refusals failed (listed above)",
        failures.len(),
        paths.len() * 7
    );
}

// ------------------------------------------------------------------ storage failures

const FULL: &str = "Error: The memory directory's storage is full; nothing was changed.";
const UNAVAILABLE: &str =
    "Error: The memory directory's storage is unavailable right now; nothing was changed.";
const FAILED: &str = "Error: The memory directory's storage failed; nothing was changed.";
const DAMAGED: &str =
    "Error: The memory directory's storage is damaged: a stored record is missing or unreadable.";
const BUSY: &str = "Error: The memory directory is busy: other writers kept changing it while this command ran; nothing was changed. Try again.";

fn seeded_store() -> MemoryStore {
    let store = MemoryStore::new();
    let e = Engine::new(store.clone(), Config::default());
    for (p, t) in [
        ("/memories/a.txt", "one\ntwo"),
        ("/memories/d/b.txt", "bee"),
    ] {
        let r = block_on(e.execute(&json!({"command": "create", "path": p, "file_text": t})));
        assert!(!r.is_error, "seeding {p}: {}", r.content);
    }
    store
}

fn visible(store: &MemoryStore) -> Vec<Entry> {
    block_on(Engine::new(store.clone(), Config::default()).entries())
        .expect("entries of a healthy store")
}

fn faulty(
    store: &MemoryStore,
    fail: fn(Op) -> Option<StoreError>,
    cas_always_loses: bool,
) -> Engine<Probe<MemoryStore>> {
    let config = Config {
        max_retries: 3,
        ..Config::default()
    };
    Engine::new(
        Probe {
            inner: store.clone(),
            ops: Rc::new(Cell::new(0)),
            fail,
            cas_always_loses,
        },
        config,
    )
}

#[test]
fn storage_failures_have_fixed_sentences_and_change_nothing() {
    let writes = [
        json!({"command": "create", "path": "/memories/new.txt", "file_text": "n"}),
        json!({"command": "str_replace", "path": "/memories/a.txt", "old_str": "one", "new_str": "1"}),
        json!({"command": "insert", "path": "/memories/a.txt", "insert_line": 0, "insert_text": "z"}),
        json!({"command": "delete", "path": "/memories/d"}),
        json!({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"}),
    ];
    let write_fault: fn(Op) -> Option<StoreError> =
        |op| matches!(op, Op::Set | Op::Cas).then_some(StoreError::QuotaExceeded);
    let read_unavailable: fn(Op) -> Option<StoreError> =
        |op| matches!(op, Op::Get | Op::List).then_some(StoreError::Unavailable);
    let read_failed: fn(Op) -> Option<StoreError> =
        |op| matches!(op, Op::Get | Op::List).then_some(StoreError::Failed);
    let write_failed: fn(Op) -> Option<StoreError> =
        |op| matches!(op, Op::Set | Op::Cas).then_some(StoreError::Failed);
    let mut checked = 0;
    let mut failures = Vec::new();
    for input in &writes {
        for (fault, cas_loses, want) in [
            (write_fault, false, FULL),
            (read_unavailable, false, UNAVAILABLE),
            (read_failed, false, FAILED),
            (write_failed, false, FAILED),
            ((|_| None) as fn(Op) -> Option<StoreError>, true, BUSY),
        ] {
            let store = seeded_store();
            let before = visible(&store);
            let r = block_on(faulty(&store, fault, cas_loses).execute(input));
            checked += 1;
            if !r.is_error || r.content != want {
                failures.push(format!("{input} -> {:?}, want {want:?}", r.content));
            }
            if visible(&store) != before {
                failures.push(format!("{input} changed the tree although it failed"));
            }
        }
    }
    for input in [
        json!({"command": "view", "path": "/memories"}),
        json!({"command": "view", "path": "/memories/a.txt"}),
    ] {
        for (fault, want) in [(read_unavailable, UNAVAILABLE), (read_failed, FAILED)] {
            let r = block_on(faulty(&seeded_store(), fault, false).execute(&input));
            checked += 1;
            if r.content != want {
                failures.push(format!("{input} -> {:?}, want {want:?}", r.content));
            }
        }
    }
    println!("storage failures: {checked} commands checked");
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} storage-failure checks failed",
        failures.len()
    );
}

#[test]
fn damaged_records_are_reported_without_keys() {
    // Remove every stored object except the head: whatever the engine reads next is missing.
    let store = seeded_store();
    let mut keys = Vec::new();
    let mut cursor = None;
    loop {
        let page = block_on(store.list("", cursor.as_deref())).expect("list");
        keys.extend(page.keys);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert!(keys.len() > 1, "the engine stored nothing but {keys:?}");
    for k in keys
        .iter()
        .filter(|k| k.as_str() != "head" && !k.ends_with("/head"))
    {
        block_on(store.delete(k)).expect("delete");
    }
    let e = Engine::new(store.clone(), Config::default());
    for input in [
        json!({"command": "view", "path": "/memories"}),
        json!({"command": "view", "path": "/memories/a.txt"}),
        json!({"command": "create", "path": "/memories/x", "file_text": "x"}),
    ] {
        let r = block_on(e.execute(&input));
        assert_eq!((r.content.as_str(), r.is_error), (DAMAGED, true), "{input}");
    }

    // Garbage in place of every object (the head still points at them).
    let store = seeded_store();
    let all = block_on(memdir::contract::list_all(&store, "")).expect("list_all");
    for k in all
        .iter()
        .filter(|k| k.as_str() != "head" && !k.ends_with("/head"))
    {
        block_on(store.set(k, b"\xff\x00not a record")).expect("set");
    }
    let e = Engine::new(store, Config::default());
    let r = block_on(e.execute(&json!({"command": "view", "path": "/memories"})));
    assert_eq!((r.content.as_str(), r.is_error), (DAMAGED, true));
}

// ------------------------------------------------------------------ pathological inputs

#[test]
fn pathological_inputs_are_refused_before_storage() {
    let ops = Rc::new(Cell::new(0u64));
    let engine = Engine::new(
        Probe::counting(MemoryStore::new(), ops.clone()),
        Config::default(),
    );
    let deep_array = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object = format!(
        r#"{{"command":"view","path":"/memories","x":{}1{}}}"#,
        r#"{"a":"#.repeat(50_000),
        "}".repeat(50_000)
    );
    let long_path = format!("/memories/{}", "a".repeat(5_000_000));
    let big_text = "é".repeat(5_242_880);
    // A command of five million characters is quoted cut, as every caller's text is.
    let long_command = format!(
        "Error: Unknown command {:?}… (5,000,000 characters). Expected one of: view, create, str_replace, insert, delete, rename",
        "v".repeat(100)
    );
    let mut checked = 0;
    for (text, want) in [
        (deep_array, None),
        (deep_object, None),
        (
            serde_json::to_string(&json!({"command": "view", "path": long_path})).expect("json"),
            Some("Error: Path is too long: 5,000,010 bytes, over the limit of 1,024 bytes"),
        ),
        (
            serde_json::to_string(&json!({"command": "v".repeat(5_000_000), "path": "/memories"}))
                .expect("json"),
            Some(long_command.as_str()),
        ),
        (
            serde_json::to_string(
                &json!({"command": "create", "path": "/memories/big", "file_text": big_text}),
            )
            .expect("json"),
            Some(
                "Error: Cannot write /memories/big: the content would be 10,485,760 bytes, over the limit of 102,400 bytes per file. Nothing was written.",
            ),
        ),
    ] {
        ops.set(0);
        let r = block_on(engine.execute_json(&text));
        checked += 1;
        assert!(r.is_error, "accepted a pathological input: {}", &r.content);
        match want {
            Some(w) => assert_eq!(r.content, w),
            // Nesting deeper than any tool input: any parse-level refusal is fine.
            None => assert!(
                r.content.starts_with("Error: Invalid tool input: "),
                "{}",
                r.content
            ),
        }
        assert_eq!(
            ops.get(),
            0,
            "a refused input touched storage: {}",
            r.content
        );
    }
    println!("pathological inputs: {checked} refused before storage");
}
