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

use memdir::{Config, Engine, Entry, MemoryStore, Page, Store, StoreError, block_on};
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

fn load(name: &str) -> Value {
    let path = format!("{}/tests/conformance/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn file_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => {
            let unit = o["repeat"].as_str().expect("repeat is a string");
            unit.repeat(o["times"].as_u64().expect("times is a count") as usize)
        }
        other => panic!("bad file value {other}"),
    }
}

/// The entries to import for a state: its files and its childless directories.
fn import_entries(state: &Value) -> Vec<Entry> {
    let mut out = Vec::new();
    if let Some(files) = state.get("files").and_then(Value::as_object) {
        for (p, v) in files {
            out.push(Entry {
                path: p.clone(),
                content: Some(file_value(v)),
            });
        }
    }
    if let Some(dirs) = state.get("dirs").and_then(Value::as_array) {
        for d in dirs {
            out.push(Entry {
                path: d.as_str().expect("dir path").into(),
                content: None,
            });
        }
    }
    out
}

/// The full tree a state implies: files, their ancestor directories and the listed
/// directories (with theirs), `/memories` itself excluded. Content as a length + hash
/// stand-in would hide nothing here, so whole strings are compared.
fn full_tree(state: &Value) -> BTreeMap<String, Option<String>> {
    let mut t = BTreeMap::new();
    for e in import_entries(state) {
        let mut parts: Vec<&str> = e.path.split('/').collect();
        if e.content.is_some() {
            parts.pop();
        }
        for k in 3..=parts.len() {
            t.insert(parts[..k].join("/"), None);
        }
        if e.content.is_some() {
            t.insert(e.path.clone(), e.content.clone());
        }
    }
    t
}

fn tree_of(entries: Vec<Entry>) -> BTreeMap<String, Option<String>> {
    entries.into_iter().map(|e| (e.path, e.content)).collect()
}

fn config_for(case: &Value) -> Config {
    let mut c = Config::default();
    if let Some(l) = case.get("limits") {
        if let Some(v) = l.get("max_file_bytes").and_then(Value::as_u64) {
            c.limits.max_file_bytes = v as usize;
        }
        if let Some(v) = l.get("max_total_bytes").and_then(Value::as_u64) {
            c.limits.max_total_bytes = v;
        }
        if let Some(v) = l.get("read_limit_chars").and_then(Value::as_u64) {
            c.limits.read_limit_chars = v as usize;
        }
    }
    c
}

/// Short, readable description of where two strings first differ.
fn diff(expected: &str, got: &str) -> String {
    let at = expected
        .chars()
        .zip(got.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let clip = |s: &str| -> String {
        let tail: String = s.chars().skip(at.saturating_sub(40)).take(160).collect();
        format!(
            "{tail:?}{}",
            if s.chars().count() > at + 120 {
                "…"
            } else {
                ""
            }
        )
    };
    format!(
        "first difference at char {at}\n    expected: {}\n    got:      {}",
        clip(expected),
        clip(got)
    )
}

fn seeded(case: &Value) -> Result<MemoryStore, String> {
    let store = MemoryStore::new();
    let setup = Engine::new(store.clone(), config_for(case));
    block_on(setup.import(&import_entries(&case["before"])))
        .map_err(|e| format!("import of `before` failed: {e}"))?;
    Ok(store)
}

// ------------------------------------------------------------------ cases.json

fn run_case(case: &Value) -> Result<u64, String> {
    let want_content = case["content"].as_str().ok_or("case has no content")?;
    let want_error = case["is_error"].as_bool().ok_or("case has no is_error")?;
    let input = case.get("input");
    let text = match (case.get("input_text"), input) {
        (Some(Value::String(t)), _) => t.clone(),
        (_, Some(v)) => serde_json::to_string(v).map_err(|e| e.to_string())?,
        _ => return Err("case has neither input nor input_text".into()),
    };

    // Face 1: execute_value (or execute for raw text) on a counted store; then the tree.
    let store = seeded(case)?;
    let ops = Rc::new(Cell::new(0));
    let engine = Engine::new(
        Probe::counting(store.clone(), ops.clone()),
        config_for(case),
    );
    let r = match (case.get("input_text"), input) {
        (Some(_), _) => block_on(engine.execute(&text)),
        (_, Some(v)) => block_on(engine.execute_value(v)),
        _ => unreachable!(),
    };
    if r.content != want_content || r.is_error != want_error {
        return Err(format!(
            "is_error {} (want {want_error}); {}",
            r.is_error,
            diff(want_content, &r.content)
        ));
    }
    let used = ops.get();
    if case.get("no_store_ops") == Some(&Value::Bool(true)) && used != 0 {
        return Err(format!(
            "made {used} store operations; this refusal must make none"
        ));
    }
    let want_after = full_tree(case.get("after").unwrap_or(&case["before"]));
    let reader = Engine::new(store, config_for(case));
    let got_after =
        tree_of(block_on(reader.entries()).map_err(|e| format!("entries() failed: {e}"))?);
    if got_after != want_after {
        let missing: Vec<_> = want_after
            .iter()
            .filter(|(k, v)| got_after.get(*k) != Some(v))
            .map(|(k, _)| k)
            .collect();
        let extra: Vec<_> = got_after
            .iter()
            .filter(|(k, v)| want_after.get(*k) != Some(v))
            .map(|(k, _)| k)
            .collect();
        return Err(format!(
            "tree after differs: expected-but-absent-or-different {missing:?}, unexpected {extra:?}"
        ));
    }

    // Face 2: execute on the JSON text (for `input` cases; input_text already used it).
    if case.get("input_text").is_none() {
        let engine = Engine::new(seeded(case)?, config_for(case));
        let r2 = block_on(engine.execute(&text));
        if r2.content != want_content || r2.is_error != want_error {
            return Err(format!(
                "execute(text) disagrees with execute_value: {}",
                diff(want_content, &r2.content)
            ));
        }
    }
    // Face 3: the handler face, message without "Error: ".
    let handle_input = match (case.get("input_text"), input) {
        (None, Some(v)) => Some(v.clone()),
        (Some(Value::String(t)), _) => serde_json::from_str::<Value>(t).ok(),
        _ => None,
    };
    if let Some(v) = handle_input {
        let engine = Engine::new(seeded(case)?, config_for(case));
        let got = match block_on(engine.handle(&v)) {
            Ok(s) => s,
            Err(m) => format!("Error: {m}"),
        };
        if got != want_content {
            return Err(format!(
                "handle() face disagrees: {}",
                diff(want_content, &got)
            ));
        }
    }
    Ok(used)
}

#[test]
fn cases() {
    let data = load("cases.json");
    let cases = data["cases"].as_array().expect("cases array");
    let mut failures = Vec::new();
    let mut ops = 0;
    let mut names = std::collections::HashSet::new();
    for case in cases {
        let name = case["name"].as_str().expect("case name");
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

const POSITIONS: [&str; 7] = [
    "view.path",
    "create.path",
    "str_replace.path",
    "insert.path",
    "delete.path",
    "rename.old_path",
    "rename.new_path",
];

fn hostile_input(position: &str, p: &str) -> Value {
    match position {
        "view.path" => json!({"command": "view", "path": p}),
        "create.path" => json!({"command": "create", "path": p, "file_text": "x"}),
        "str_replace.path" => {
            json!({"command": "str_replace", "path": p, "old_str": "a", "new_str": "b"})
        }
        "insert.path" => {
            json!({"command": "insert", "path": p, "insert_line": 0, "insert_text": "x"})
        }
        "delete.path" => json!({"command": "delete", "path": p}),
        "rename.old_path" => {
            json!({"command": "rename", "old_path": p, "new_path": "/memories/b.txt"})
        }
        "rename.new_path" => {
            json!({"command": "rename", "old_path": "/memories/a.txt", "new_path": p})
        }
        _ => unreachable!(),
    }
}

#[test]
fn hostile_paths() {
    let data = load("hostile-paths.json");
    let paths = data["paths"].as_array().expect("paths array");
    let store = MemoryStore::new();
    let setup = Engine::new(store.clone(), Config::default());
    // A real file at the valid end of a rename, so only the hostile path can refuse.
    let seeded =
        block_on(setup.execute_value(
            &json!({"command": "create", "path": "/memories/a.txt", "file_text": "a"}),
        ));
    let ops = Rc::new(Cell::new(0u64));
    let engine = Engine::new(Probe::counting(store, ops.clone()), Config::default());

    let mut per_rule: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut total_ops = 0;
    for entry in paths {
        let p = entry["path"].as_str().expect("path");
        let rule = entry["rule"].as_str().expect("rule");
        let want = format!("Error: {}", entry["message"].as_str().expect("message"));
        for pos in POSITIONS {
            ops.set(0);
            let r = block_on(engine.execute_value(&hostile_input(pos, p)));
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
                    diff(&want, &r.content)
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
    assert!(!seeded.is_error, "setup create failed: {}", seeded.content);
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
        let r = block_on(e.execute_value(&json!({"command": "create", "path": p, "file_text": t})));
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
            let r = block_on(faulty(&store, fault, cas_loses).execute_value(input));
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
            let r = block_on(faulty(&seeded_store(), fault, false).execute_value(&input));
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
        let r = block_on(e.execute_value(&input));
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
    let r = block_on(e.execute_value(&json!({"command": "view", "path": "/memories"})));
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
    let mut checked = 0;
    for (text, want) in [
        (deep_array, None),
        (deep_object, None),
        (
            serde_json::to_string(&json!({"command": "view", "path": long_path})).expect("json"),
            Some("Error: Path is too long: 5,000,010 bytes, over the limit of 1,024 bytes"),
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
        let r = block_on(engine.execute(&text));
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
