//! Search as a property: random writes through every write path (the memory tool's
//! creates, edits, renames and deletes; the API's creates, updates and deletes;
//! redactions; syncs with a remote that writes too; imports; expire, retain, gc),
//! and after each step the engine's search equals a search computed from scratch:
//! a fresh engine over a copy of the store without its `index/` keys (so it
//! rebuilds), one over a new store holding only the live files, the plain BM25F
//! of `search_rank` over the live files, and a second engine over the same store
//! whose in-memory index is stale. Paths and scores (exactly, between engines; to
//! 1e-9 against the plain BM25F) and order. No index value holds a dead term.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;
use crate::search_rank::{Bm25, WORDS, engine_rank, same};

use std::collections::{BTreeMap, BTreeSet};

use memdir::api::Response;
use memdir::config::Config;
use memdir::search::{path_terms, terms};
use memdir::sync::{Remote, Unreachable};
use memdir::{Engine, MemoryStore, Store, block_on};
use proptest::prelude::*;
use serde_json::{Value, json};

/// The remote of the syncs: another engine's API.
pub struct Api(pub Engine<MemoryStore>);

impl Remote for Api {
    async fn call(&self, request: &Value) -> Result<Response, Unreachable> {
        Ok(self.0.api(request).await)
    }
}

#[derive(Clone, Debug)]
pub enum Step {
    ToolCreate(usize, String),
    ToolReplace(usize, &'static str, &'static str),
    ToolRename(usize, usize),
    ToolDelete(usize),
    ApiCreate(usize, String),
    ApiUpdate(usize, Option<usize>, Option<String>),
    ApiDelete(usize),
    /// Redacts the version of this rank among the store's versions (most are
    /// refused as current; the rest erase a replaced or deleted text).
    Redact(usize),
    /// The remote writes this text at this path, then the engine syncs.
    Sync(usize, String),
    /// Imports the live tree with the file of this rank dropped and this text added.
    Import(usize, usize, String),
    Expire(u64),
    Retain(u64),
    Gc(u32),
}

pub const PATHS: &[&str] = &[
    "/a.md",
    "/b.md",
    "/notes/format.md",
    "/notes/tea.txt",
    "/preferences/formatting.md",
    "/数据/库.md",
    "/de/straße.md",
    "/notes/deep/darkmode.md",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS.to_vec()), 1..8).prop_map(|v| v.join(" "))
}

fn at() -> impl Strategy<Value = usize> {
    0..PATHS.len()
}

pub fn step() -> impl Strategy<Value = Step> {
    let word = || prop::sample::select(WORDS.to_vec());
    prop_oneof![
        4 => (at(), text()).prop_map(|(p, t)| Step::ToolCreate(p, t)),
        2 => (at(), word(), word()).prop_map(|(p, a, b)| Step::ToolReplace(p, a, b)),
        2 => (at(), at()).prop_map(|(a, b)| Step::ToolRename(a, b)),
        2 => at().prop_map(Step::ToolDelete),
        3 => (at(), text()).prop_map(|(p, t)| Step::ApiCreate(p, t)),
        3 => (0..8usize, prop::option::of(at()), prop::option::of(text()))
            .prop_map(|(k, p, t)| Step::ApiUpdate(k, p, t)),
        1 => (0..8usize).prop_map(Step::ApiDelete),
        3 => (0..30usize).prop_map(Step::Redact),
        1 => (at(), text()).prop_map(|(p, t)| Step::Sync(p, t)),
        1 => (0..8usize, at(), text()).prop_map(|(k, p, t)| Step::Import(k, p, t)),
        2 => prop::sample::select(vec![0u64, 3_000, 20_000, 1 << 40]).prop_map(Step::Expire),
        1 => prop::sample::select(vec![0u64, 5_000, 1 << 40]).prop_map(Step::Retain),
        1 => (0..3u32).prop_map(Step::Gc),
    ]
}

fn tool(engine: &Engine<MemoryStore>, input: Value) {
    // Refusals (a path that exists, a file in the way) are answers too.
    let _ = block_on(engine.execute(&input));
}

fn api(engine: &Engine<MemoryStore>, input: Value) -> Response {
    let r = block_on(engine.api(&input));
    assert!(r.status < 500, "{input}: {} {}", r.status, r.body);
    r
}

/// The live memories' ids and store paths, in path order.
fn memories(engine: &Engine<MemoryStore>) -> Vec<(String, String)> {
    let r = api(
        engine,
        json!({"op": "memory.list", "query": {"limit": "100", "depth": "100"}}),
    );
    let mut out: Vec<(String, String)> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| {
            Some((
                m["id"].as_str()?.to_string(),
                m["path"].as_str()?.to_string(),
            ))
        })
        .filter(|(id, _)| id.starts_with("mem_"))
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// The live files: store path → text.
pub fn live(engine: &Engine<MemoryStore>) -> BTreeMap<String, String> {
    block_on(engine.entries())
        .unwrap()
        .into_iter()
        .filter_map(|e| Some((e.path.strip_prefix("/memories")?.to_string(), e.content?)))
        .collect()
}

/// Carries out `step`; what became of it, when that varies (for the run's tally).
pub fn apply(engine: &Engine<MemoryStore>, remote: &Api, step: &Step) -> &'static str {
    let mem = |p: usize| format!("/memories{}", PATHS[p]);
    match step {
        Step::ToolCreate(p, t) => tool(
            engine,
            json!({"command": "create", "path": mem(*p), "file_text": t}),
        ),
        Step::ToolReplace(p, a, b) => {
            // A word the text holds once (str_replace refuses several).
            let t = live(engine).get(PATHS[*p]).cloned().unwrap_or_default();
            if t.matches(a).count() == 1 {
                tool(
                    engine,
                    json!({"command": "str_replace", "path": mem(*p), "old_str": a, "new_str": b}),
                );
            }
        }
        Step::ToolRename(a, b) => tool(
            engine,
            json!({"command": "rename", "old_path": mem(*a), "new_path": mem(*b)}),
        ),
        Step::ToolDelete(p) => tool(engine, json!({"command": "delete", "path": mem(*p)})),
        Step::ApiCreate(p, t) => {
            let body = json!({"path": PATHS[*p], "content": t}).to_string();
            api(engine, json!({"op": "memory.create", "body": body}));
        }
        Step::ApiUpdate(k, p, t) => {
            let ms = memories(engine);
            if ms.is_empty() {
                return "";
            }
            let (id, _) = &ms[k % ms.len()];
            let mut body = serde_json::Map::new();
            if let Some(p) = p {
                body.insert("path".into(), json!(PATHS[*p]));
            }
            if let Some(t) = t {
                body.insert("content".into(), json!(t));
            }
            let body = Value::Object(body).to_string();
            api(
                engine,
                json!({"op": "memory.update", "id": id, "body": body}),
            );
        }
        Step::ApiDelete(k) => {
            let ms = memories(engine);
            if !ms.is_empty() {
                let (id, _) = &ms[k % ms.len()];
                api(engine, json!({"op": "memory.delete", "id": id}));
            }
        }
        Step::Redact(k) => {
            let r = api(
                engine,
                json!({"op": "version.list", "query": {"limit": "100"}}),
            );
            let ids: Vec<String> = r.body["data"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|v| Some(v["id"].as_str()?.to_string()))
                .collect();
            if !ids.is_empty() {
                let id = &ids[k % ids.len()];
                let r = api(engine, json!({"op": "version.redact", "id": id}));
                if r.status == 200 {
                    return "redacted";
                }
            }
        }
        Step::Sync(p, t) => {
            let body = json!({"path": PATHS[*p], "content": t}).to_string();
            api(&remote.0, json!({"op": "memory.create", "body": body}));
            // A refusal (a merge past a limit) is an answer; the tree is what it is.
            if block_on(engine.sync(remote, "remote memstore_remote")).is_ok() {
                return "synced";
            }
        }
        Step::Import(k, p, t) => {
            let mut files = live(engine);
            if !files.is_empty() {
                let drop = files.keys().nth(k % files.len()).cloned().unwrap();
                files.remove(&drop);
            }
            files.insert(PATHS[*p].to_string(), t.clone());
            // Keep only paths no other file is a directory of.
            let keys: Vec<String> = files.keys().cloned().collect();
            let entries: Vec<memdir::Entry> = files
                .iter()
                .filter(|(f, _)| !keys.iter().any(|o| o.starts_with(&format!("{f}/"))))
                .map(|(f, c)| common::file(&format!("/memories{f}"), c))
                .collect();
            block_on(engine.import(&entries)).unwrap();
        }
        Step::Expire(ms) => {
            let before = live(engine).len();
            block_on(engine.expire(*ms)).unwrap();
            if live(engine).len() < before {
                return "expired";
            }
        }
        Step::Retain(ms) => {
            block_on(engine.retain(*ms)).unwrap();
        }
        Step::Gc(keep) => {
            block_on(engine.gc(*keep)).unwrap();
        }
    }
    ""
}

/// Every term the steps wrote (texts and paths), folded as the index holds them.
fn ever_written(steps: &[Step]) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = PATHS.iter().flat_map(|p| path_terms(p)).collect();
    for step in steps {
        match step {
            Step::ToolCreate(_, t)
            | Step::ApiCreate(_, t)
            | Step::Sync(_, t)
            | Step::Import(_, _, t)
            | Step::ApiUpdate(_, _, Some(t)) => out.extend(terms(t)),
            Step::ToolReplace(_, _, b) => out.extend(terms(b)),
            _ => {}
        }
    }
    out
}

/// A copy of `store` without its index: every other key, written fresh.
pub fn copy_without_index(store: &MemoryStore) -> MemoryStore {
    let copy = MemoryStore::new();
    for (k, v) in common::dump(store) {
        if !k.starts_with("index/") {
            block_on(copy.set(&k, &v)).unwrap();
        }
    }
    copy
}

const QUERIES: &[&str] = &[
    "format",
    "richtlinie",
    "strasse",
    "müller",
    "dark mode tea",
    "数据库",
    "库",
    "タワー",
    "국어",
    "키",
    "user",
    "config.json",
    "md",
    "notes",
];

/// The fewest sequences a run may compare (`PROPTEST_CASES` below it is refused).
const MIN_CASES: u32 = 32;

#[test]
fn search_after_every_write_path_equals_a_search_from_scratch() {
    use proptest::test_runner::{Config as RunnerConfig, TestRunner};
    use std::cell::RefCell;

    let cases: u32 = match std::env::var("PROPTEST_CASES") {
        Err(_) => 128,
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("PROPTEST_CASES={v:?} is not a whole number")),
    };
    assert!(
        cases >= MIN_CASES,
        "PROPTEST_CASES={cases}: at least {MIN_CASES}"
    );
    let mut runner = TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let hits = RefCell::new(0usize);
    let steps_run = RefCell::new(BTreeMap::<&'static str, usize>::new());
    let result = runner.run(&prop::collection::vec(step(), 1..16), |steps| {
        let (engine, store) = common::api_engine(Config::default());
        let remote = Api(common::api_engine(Config::default()).0);
        // Searched before any write, so its in-memory index goes stale.
        let other = Engine::new(store.clone(), Config::default());
        let _ = block_on(other.search("format", 10, None));
        for (n, step) in steps.iter().enumerate() {
            let outcome = apply(&engine, &remote, step);
            let name = format!("{step:?}");
            let kind = format!("{} {outcome}", name.split('(').next().unwrap());
            *steps_run
                .borrow_mut()
                .entry(Box::leak(kind.into_boxed_str()))
                .or_default() += 1;
            let files = live(&engine);
            let oracle = Bm25::new(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
            let fresh = Engine::new(copy_without_index(&store), Config::default());
            // And a new store holding only the live files, written fresh.
            let rewritten = Engine::new(MemoryStore::new(), Config::default());
            let entries: Vec<memdir::Entry> = files
                .iter()
                .map(|(p, t)| common::file(&format!("/memories{p}"), t))
                .collect();
            block_on(rewritten.import(&entries)).unwrap();
            for q in QUERIES {
                for under in [None, Some("/notes")] {
                    let got = engine_rank(&engine, q, under);
                    let ctx = || {
                        format!("step {n} {step:?}, query {q:?} under {under:?}, files {files:?}")
                    };
                    same(&got, &oracle.rank(q, under))
                        .map_err(|e| TestCaseError::fail(format!("{}: plain BM25F: {e}", ctx())))?;
                    prop_assert_eq!(
                        &engine_rank(&fresh, q, under),
                        &got,
                        "fresh engine: {}",
                        ctx()
                    );
                    prop_assert_eq!(
                        &engine_rank(&rewritten, q, under),
                        &got,
                        "the live files in a new store: {}",
                        ctx()
                    );
                    prop_assert_eq!(
                        &engine_rank(&other, q, under),
                        &got,
                        "second engine: {}",
                        ctx()
                    );
                    *hits.borrow_mut() += got.len();
                }
            }
            // No stored index value holds a term that no live memory holds (a
            // deleted, replaced or redacted text's) after gc, which folds the
            // index (a redaction does too: tests/all/redaction.rs); between, such
            // terms wait in the base as the text itself waits in the history.
            if !matches!(step, Step::Gc(_)) {
                continue;
            }
            let mut live_words: Vec<String> = Vec::new();
            for (p, t) in &files {
                live_words.push(p.clone());
                live_words.extend(path_terms(p));
                live_words.extend(terms(t));
            }
            for t in ever_written(&steps[..=n]) {
                // (Under four bytes a term may be in a hash's bytes by chance.)
                if t.len() < 4 || live_words.iter().any(|w| w.contains(t.as_str())) {
                    continue;
                }
                let held: Vec<String> = common::dump(&store)
                    .into_iter()
                    .filter(|(k, v)| {
                        k.starts_with("index/") && v.windows(t.len()).any(|w| w == t.as_bytes())
                    })
                    .map(|(k, _)| k)
                    .collect();
                prop_assert!(
                    held.is_empty(),
                    "step {} {:?}: {:?} is in {:?}, files {:?}",
                    n,
                    step,
                    t,
                    held,
                    files
                );
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!("steps: {:?}, hits: {}", steps_run.borrow(), hits.borrow());
    // The run met every write path and found things.
    let seen = steps_run.borrow();
    for kind in [
        "Redact redacted",
        "Sync synced",
        "Expire expired",
        "Import ",
        "Retain ",
        "Gc ",
    ] {
        assert!(seen.contains_key(kind), "no {kind:?} in {seen:?}");
    }
    assert!(*hits.borrow() > 1000, "{} hits", hits.borrow());
}
