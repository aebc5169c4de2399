//! The engine over real IndexedDB in headless Chromium: every conformance case,
//! hostile path and tampered store of `tests/conformance/`, every command all-or-nothing when its
//! transaction is aborted (or any store operation fails, or the database closes) at
//! each step, and two connections editing one file without losing an edit.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::Cell;
use std::rc::Rc;

use memdir::config::Config;
use memdir::conformance::{self, Case, POSITIONS};
use memdir::{Engine, Entry, Page, Store, StoreError};
use memdir_idb::{IdbStore, delete_database};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

#[wasm_bindgen(inline_js = r#"
function opened(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}
// A database as builds before packs made it: version 1, one object store `kv`,
// one record per key.
export async function writeVersion1(name, keys, values) {
  await opened(indexedDB.deleteDatabase(name));
  const r = indexedDB.open(name, 1);
  r.onupgradeneeded = () => r.result.createObjectStore('kv');
  const db = await opened(r);
  const tx = db.transaction('kv', 'readwrite');
  keys.forEach((k, i) => tx.objectStore('kv').put(values[i], k));
  await new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onabort = () => reject(tx.error); });
  db.close();
}
// `[version, records in kv, records in packs (0 when there is no such store)]`.
export async function recordCounts(name) {
  const db = await opened(indexedDB.open(name));
  const count = async (store) => {
    if (!db.objectStoreNames.contains(store)) return 0;
    return opened(db.transaction(store, 'readonly').objectStore(store).count());
  };
  const out = [db.version, await count('kv'), await count('packs')];
  db.close();
  return out;
}
"#)]
extern "C" {
    #[wasm_bindgen(catch, js_name = writeVersion1)]
    async fn write_version_1(
        name: &str,
        keys: Vec<String>,
        values: js_sys::Array,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_name = recordCounts)]
    async fn record_counts_js(name: &str) -> Result<JsValue, JsValue>;
}

/// `[schema version, records in kv, records in packs]` of a memory's database.
async fn record_counts(namespace: &str) -> Vec<u32> {
    let got = record_counts_js(&memdir_idb::database_name(namespace))
        .await
        .expect("counts");
    js_sys::Array::from(&got)
        .iter()
        .map(|n| n.as_f64().expect("a number") as u32)
        .collect()
}

wasm_bindgen_test_configure!(run_in_browser);

const CASES: &str = include_str!("../../../tests/conformance/cases.json");
const HOSTILE: &str = include_str!("../../../tests/conformance/hostile-paths.json");
const HOSTILE_STORES: &str = include_str!("../../../tests/conformance/hostile-stores.json");

const FAILED: &str = "Error: The memory directory's storage failed; nothing was changed.";
const UNAVAILABLE: &str =
    "Error: The memory directory's storage is unavailable right now; nothing was changed.";

// ------------------------------------------------------------------ a probing store

#[derive(Clone, Copy, PartialEq)]
enum Fault {
    None,
    /// The k-th operation (0-based) fails with `Failed`.
    FailAt(u64),
    /// The database is closed just before the k-th operation.
    CloseAt(u64),
}

/// Counts operations on an `IdbStore` and injects faults; `commit` goes through to
/// the store's own one-transaction commit.
struct Probe<'a> {
    inner: &'a IdbStore,
    ops: Cell<u64>,
    fault: Fault,
    /// How many times `fault` struck.
    struck: Cell<u64>,
}

impl<'a> Probe<'a> {
    fn new(inner: &'a IdbStore, fault: Fault) -> Self {
        Probe {
            inner,
            ops: Cell::new(0),
            fault,
            struck: Cell::new(0),
        }
    }
    fn hit(&self) -> Result<(), StoreError> {
        let n = self.ops.get();
        self.ops.set(n + 1);
        match self.fault {
            Fault::FailAt(k) if k == n => {
                self.struck.set(self.struck.get() + 1);
                Err(StoreError::Failed)
            }
            Fault::CloseAt(k) if k == n => {
                self.struck.set(self.struck.get() + 1);
                self.inner.close();
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

impl Store for Probe<'_> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.hit()?;
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.hit()?;
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.hit()?;
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.hit()?;
        self.inner.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.hit()?;
        self.inner.compare_and_swap(key, expected, new).await
    }
    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.hit()?;
        self.inner.commit(objects, key, expected, new).await
    }
}

// ------------------------------------------------------------------ helpers

fn clip(s: &str) -> String {
    s.chars().take(200).collect()
}

async fn tree<S: Store>(store: &S) -> conformance::Tree {
    conformance::tree_of(
        Engine::new(store, Config::default())
            .entries()
            .await
            .expect("entries"),
    )
}

async fn fresh(namespace: &str) -> IdbStore {
    let _ = delete_database(namespace).await;
    IdbStore::open(namespace).await.expect("open")
}

// ------------------------------------------------------------------ conformance

async fn run_case(store: &IdbStore, case: &Case) -> Result<(), String> {
    conformance::seed(store, case).await?;
    let probe = Probe::new(store, Fault::None);
    let engine = Engine::new(&probe, case.config());
    conformance::check_answer(case, &engine.execute_json(&case.input).await)?;
    if case.no_store_ops && probe.ops.get() != 0 {
        return Err(format!(
            "made {} store operations; this refusal must make none",
            probe.ops.get()
        ));
    }
    conformance::check_tree(
        case,
        Engine::new(store, Config::default())
            .entries()
            .await
            .map_err(|e| e.to_string())?,
    )
}

#[wasm_bindgen_test]
async fn every_conformance_case_over_indexeddb() {
    let cases = conformance::cases(CASES).expect("cases.json");
    let store = fresh("conformance").await;
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(e) = run_case(&store, case).await {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(cases.len() > 100, "only {} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[wasm_bindgen_test]
async fn every_hostile_path_is_refused_in_every_position_without_touching_indexeddb() {
    let paths = conformance::hostile_paths(HOSTILE).expect("hostile-paths.json");
    let store = fresh("hostile").await;
    Engine::new(&store, Config::default())
        .import(&conformance::hostile_seed())
        .await
        .expect("seeding a.txt");
    let probe = Probe::new(&store, Fault::None);
    let engine = Engine::new(&probe, Config::default());
    let mut failures = Vec::new();
    for entry in &paths {
        let want = format!("Error: {}", entry.message);
        for input in POSITIONS.map(|pos| conformance::hostile_input(pos, &entry.path)) {
            probe.ops.set(0);
            let r = engine.execute(&input).await;
            if !r.is_error || r.content != want || probe.ops.get() != 0 {
                failures.push(format!(
                    "{}: {} ops, got {:?}",
                    clip(&input.to_string()),
                    probe.ops.get(),
                    clip(&r.content)
                ));
            }
        }
    }
    assert!(paths.len() > 100, "only {} hostile paths", paths.len());
    assert!(
        failures.is_empty(),
        "{} refusals failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[wasm_bindgen_test]
async fn every_tampered_store_is_answered_as_damage_and_left_as_it_was() {
    let data = conformance::hostile_stores(HOSTILE_STORES).expect("hostile-stores.json");
    let mut failures = Vec::new();
    for case in &data.cases {
        let store = fresh(&format!("tampered-{}", case.name)).await;
        conformance::load_hostile(&store, case)
            .await
            .expect("loading");
        let mut engine = Engine::new(&store, Config::default());
        if let Err(e) = conformance::check_hostile(&store, &mut engine, &data.probes, case).await {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    assert!(!data.cases.is_empty(), "no tampered stores");
    assert!(
        failures.is_empty(),
        "{} of {} tampered stores failed:\n{}",
        failures.len(),
        data.cases.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------------------------ all or nothing

fn seed_entries() -> Vec<Entry> {
    let mut e = vec![Entry {
        path: "/memories/notes.md".into(),
        content: Some("one\ntwo\nthree".into()),
    }];
    for i in 0..40 {
        e.push(Entry {
            path: format!("/memories/project/f{i:02}.txt"),
            content: Some(format!("file {i}\n")),
        });
    }
    e.push(Entry {
        path: "/memories/project/deep/er/x.txt".into(),
        content: Some("x".into()),
    });
    e
}

fn mutations() -> Vec<Value> {
    vec![
        json!({"command": "create", "path": "/memories/new/dir/file.txt", "file_text": "fresh"}),
        json!({"command": "str_replace", "path": "/memories/notes.md", "old_str": "two", "new_str": "2"}),
        json!({"command": "insert", "path": "/memories/notes.md", "insert_line": 1, "insert_text": "1.5"}),
        json!({"command": "delete", "path": "/memories/project"}),
        json!({"command": "rename", "old_path": "/memories/project", "new_path": "/memories/archive/2025/project"}),
        json!({"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/project/deep/notes.md"}),
    ]
}

/// Runs `input` with `inject` armed for k = 0, 1, … until it succeeds; every failed
/// run must answer `want_error`, leave the tree exactly as before and have had its
/// fault strike exactly once (so a hook that stops firing fails the test); the run
/// that succeeds must have the full effect and no fault.
async fn each_step(name: &str, inject: impl Fn(&IdbStore, u64) -> Fault, want_error: &str) {
    let ns = format!("steps-{name}");
    for input in mutations() {
        let mut store = fresh(&ns).await;
        let seed = Engine::new(&store, Config::default());
        seed.import(&seed_entries()).await.expect("seed");
        let before = tree(&store).await;
        // The effect of the command on an undisturbed copy.
        let want_after = {
            let r = seed.execute(&input).await;
            assert!(!r.is_error, "{input}: {}", r.content);
            let t = tree(&store).await;
            seed.import(&seed_entries()).await.expect("reseed");
            t
        };
        let mut k = 0;
        let mut struck_total = 0;
        loop {
            let in_store = store.injected_faults();
            let fault = inject(&store, k);
            let probe = Probe::new(&store, fault);
            let r = Engine::new(&probe, Config::default()).execute(&input).await;
            let struck = probe.struck.get() + (store.injected_faults() - in_store) as u64;
            struck_total += struck;
            // Read back through a fresh connection: what another tab would see.
            let reader = IdbStore::open(&ns).await.expect("reopen");
            let now = tree(&reader).await;
            if !r.is_error {
                assert_eq!(
                    now, want_after,
                    "{name} k={k} {input}: succeeded without its full effect"
                );
                assert_eq!(
                    struck, 0,
                    "{name} k={k} {input}: a fault struck yet it succeeded"
                );
                assert_eq!(
                    struck_total, k,
                    "{name} {input}: faults struck != steps failed"
                );
                // Every command reads the head and commits: at least two steps to fail.
                assert!(
                    k >= 2,
                    "{name} {input}: succeeded at step {k}; the fault was never hit"
                );
                break;
            }
            assert_eq!(
                struck, 1,
                "{name} k={k} {input}: failed, but not by the fault"
            );
            assert_eq!(r.content, want_error, "{name} k={k} {input}");
            assert_eq!(
                now, before,
                "{name} k={k} {input}: a failed command changed the tree"
            );
            if store.get("head").await == Err(StoreError::Unavailable) {
                store = reader; // the fault closed it
            }
            k += 1;
            assert!(k < 500, "{name} {input}: never succeeded");
        }
    }
}

#[wasm_bindgen_test]
async fn a_commit_transaction_aborted_at_each_step_leaves_the_tree_unchanged() {
    each_step(
        "abort",
        |store, k| {
            store.inject_into_next_commit(memdir_idb::Fault::AbortAfter(k as usize));
            Fault::None
        },
        FAILED,
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_commit_request_failing_at_each_step_leaves_the_tree_unchanged() {
    each_step(
        "place",
        |store, k| {
            store.inject_into_next_commit(memdir_idb::Fault::FailPlacing(k as usize));
            Fault::None
        },
        FAILED,
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_store_operation_failing_at_each_step_leaves_the_tree_unchanged() {
    each_step("fail", |_, k| Fault::FailAt(k), FAILED).await;
}

#[wasm_bindgen_test]
async fn the_database_closing_at_each_step_leaves_the_tree_unchanged() {
    each_step("close", |_, k| Fault::CloseAt(k), UNAVAILABLE).await;
}

// ------------------------------------------------------------------ two writers

#[wasm_bindgen_test]
async fn two_connections_inserting_into_one_file_lose_nothing() {
    let a = fresh("two-writers").await;
    let b = IdbStore::open("two-writers").await.expect("open");
    // Backing off after a lost race, as the npm package's engines do.
    let writer = |store| {
        let mut e = Engine::new(store, Config::default());
        e.set_backoff(Box::new(memdir_idb::timer::backoff));
        e
    };
    let (ea, eb) = (writer(&a), writer(&b));
    let r = ea
        .execute(&json!({"command": "create", "path": "/memories/log.md", "file_text": "start"}))
        .await;
    assert!(!r.is_error, "{}", r.content);
    let n = 60;
    let (oka, okb) = futures::future::join(inserts(&ea, "a", n), inserts(&eb, "b", n)).await;
    let content = match tree(&a).await.get("/memories/log.md") {
        Some(Some(c)) => c.clone(),
        other => panic!("log.md: {other:?}"),
    };
    let lines: Vec<&str> = content.split('\n').collect();
    for line in oka.iter().chain(okb.iter()) {
        assert!(
            lines.contains(&line.as_str()),
            "{line} reported success but is missing"
        );
    }
    assert_eq!(oka.len() + okb.len(), 2 * n, "some inserts failed (busy)");
    assert_eq!(lines.len(), 2 * n + 1);
}

/// `n` inserts of distinct lines; the lines whose command reported success.
async fn inserts(engine: &Engine<&IdbStore>, who: &str, n: usize) -> Vec<String> {
    let mut ok = Vec::new();
    for i in 0..n {
        let line = format!("{who}-{i}");
        let input = json!({"command": "insert", "path": "/memories/log.md", "insert_line": 1, "insert_text": line});
        if !engine.execute(&input).await.is_error {
            ok.push(line);
        }
    }
    ok
}

// ------------------------------------------------------------------ packs

/// Write commands that each succeed after the ones before them.
fn in_turn() -> Vec<Value> {
    vec![
        json!({"command": "create", "path": "/memories/new/dir/file.txt", "file_text": "fresh"}),
        json!({"command": "str_replace", "path": "/memories/notes.md", "old_str": "two", "new_str": "2"}),
        json!({"command": "insert", "path": "/memories/notes.md", "insert_line": 1, "insert_text": "1.5"}),
        json!({"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/project/deep/notes.md"}),
        json!({"command": "rename", "old_path": "/memories/project", "new_path": "/memories/archive/2025/project"}),
        json!({"command": "delete", "path": "/memories/new"}),
    ]
}

#[wasm_bindgen_test]
async fn every_write_command_puts_one_pack_record_and_only_its_head_in_kv() {
    let store = fresh("packed-writes").await;
    let engine = Engine::new(&store, Config::default());
    engine.import(&seed_entries()).await.expect("seed");
    // The import is one commit: one pack, and the head.
    assert_eq!(record_counts("packed-writes").await, [2, 1, 1]);
    let mut packs = 1;
    for input in in_turn() {
        let r = engine.execute(&input).await;
        assert!(!r.is_error, "{input}: {}", r.content);
        packs += 1;
        assert_eq!(
            record_counts("packed-writes").await,
            [2, 1, packs],
            "{input}"
        );
    }
    // Read back by a connection with nothing cached: every object out of its pack.
    let reader = IdbStore::open("packed-writes").await.expect("reopen");
    assert_eq!(tree(&reader).await, tree(&store).await);
}

#[wasm_bindgen_test]
async fn a_memory_written_one_record_per_key_by_an_earlier_build_is_read_and_written() {
    // The memory as an earlier build left it: every key its own record in `kv`.
    let old = memdir::MemoryStore::new();
    let seed = Engine::new(&old, Config::default());
    seed.import(&seed_entries()).await.expect("seed");
    let r = seed
        .execute(&json!({"command": "str_replace", "path": "/memories/notes.md", "old_str": "one", "new_str": "1"}))
        .await;
    assert!(!r.is_error, "{}", r.content);
    let want = tree(&old).await;
    let keys = memdir::list_all(&old, "").await.expect("keys");
    let values = js_sys::Array::new();
    for k in &keys {
        let v = old.get(k).await.expect("get").expect("value");
        values.push(&js_sys::Uint8Array::from(&v[..]));
    }
    let n = keys.len() as u32;
    write_version_1(&memdir_idb::database_name("layout-1"), keys, values)
        .await
        .expect("write version 1");
    assert_eq!(record_counts("layout-1").await, [1, n, 0]);

    // The count's raw connection closes only once its transaction has ended, so
    // the upgrade may find it still open and answer `blocked` (Unavailable, as a
    // tab holding the database would): the upgrade then runs as soon as it has
    // closed, and the next open finds it done.
    let mut opened = IdbStore::open("layout-1").await;
    for _ in 0..5 {
        if !matches!(opened, Err(StoreError::Unavailable)) {
            break;
        }
        memdir_idb::timer::sleep(20.0).await;
        opened = IdbStore::open("layout-1").await;
    }
    let store = opened.expect("open");
    assert_eq!(tree(&store).await, want);
    // Opening upgraded the schema and kept every record.
    assert_eq!(record_counts("layout-1").await, [2, n, 0]);
    let engine = Engine::new(&store, Config::default());
    let view = engine
        .execute(&json!({"command": "view", "path": "/memories/notes.md"}))
        .await;
    assert_eq!(
        view.content,
        "Here's the content of /memories/notes.md with line numbers:\n     1\t1\n     2\ttwo\n     3\tthree"
    );
    for input in in_turn() {
        let r = engine.execute(&input).await;
        assert!(!r.is_error, "{input}: {}", r.content);
    }
    // Old records and new packs together, read by a fresh connection.
    let reader = IdbStore::open("layout-1").await.expect("reopen");
    let now = tree(&reader).await;
    assert_eq!(now, tree(&store).await);
    assert_eq!(record_counts("layout-1").await, [2, n, 6]);
    let r = Engine::new(&reader, Config::default())
        .execute(
            &json!({"command": "view", "path": "/memories/archive/2025/project/deep/notes.md"}),
        )
        .await;
    assert_eq!(
        r.content,
        "Here's the content of /memories/archive/2025/project/deep/notes.md with line numbers:\n     1\t1\n     2\t1.5\n     3\t2\n     4\tthree"
    );
}
