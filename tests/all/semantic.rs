//! Semantic and hybrid search (issue 47): an application's embedder, vectors as
//! derived data that never outlive their text, reciprocal-rank fusion.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use memdir::config::{Config, EMBED_WORK};
use memdir::search::{EmbedError, EmbedFuture, EmbedKind, Embedder, TestEmbedder, test_vector};
use memdir::{Engine, MemoryStore, Store, block_on};
use serde_json::{Value, json};

/// The test embedder, counting what it is asked.
#[derive(Default)]
struct Counting {
    inner: TestEmbedder,
    documents: Cell<usize>,
    queries: Cell<usize>,
    calls: Cell<usize>,
}

impl Embedder for Counting {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn dims(&self) -> usize {
        self.inner.dims
    }
    fn embed<'a>(&'a self, texts: &'a [String], kind: EmbedKind) -> EmbedFuture<'a> {
        self.calls.set(self.calls.get() + 1);
        match kind {
            EmbedKind::Document => self.documents.set(self.documents.get() + texts.len()),
            EmbedKind::Query => self.queries.set(self.queries.get() + texts.len()),
        }
        self.inner.embed(texts, kind)
    }
}

fn engine_with(store: &MemoryStore, e: Option<Rc<dyn Embedder>>) -> Engine<MemoryStore> {
    let mut engine = Engine::new(store.clone(), Config::default());
    engine.set_embedder(e);
    engine
}

fn run(engine: &Engine<MemoryStore>, input: Value) {
    let r = block_on(engine.execute(&input));
    assert!(!r.is_error, "{input}: {}", r.content);
}

fn create(engine: &Engine<MemoryStore>, path: &str, text: &str) {
    run(
        engine,
        json!({"command": "create", "path": path, "file_text": text}),
    );
}

fn paths(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

fn search(engine: &Engine<MemoryStore>, opts: Value) -> Vec<String> {
    paths(&block_on(engine.search_json(&opts)).unwrap())
}

fn vec_keys(store: &MemoryStore) -> Vec<String> {
    block_on(memdir::list_all(store, "vec/")).unwrap()
}

fn corpus(engine: &Engine<MemoryStore>) {
    create(
        engine,
        "/memories/prefs/editor.md",
        "The user prefers dark mode in every editor.\n",
    );
    create(
        engine,
        "/memories/prefs/schedule.md",
        "The user hates meetings before ten.\n",
    );
    create(
        engine,
        "/memories/notes/trip.md",
        "Flight to Lisbon on Friday, window seat.\n",
    );
    create(
        engine,
        "/memories/notes/zebra.md",
        "zebra crossing near the office\n",
    );
}

#[test]
fn a_query_in_another_script_finds_by_meaning_and_lexical_does_not() {
    let store = MemoryStore::new();
    let engine = engine_with(&store, Some(Rc::new(TestEmbedder::default())));
    corpus(&engine);
    let q = json!({"query": "夜间模式", "mode": "lexical"});
    assert_eq!(search(&engine, q), Vec::<String>::new());
    let q = json!({"query": "夜间模式", "mode": "semantic", "limit": 1});
    assert_eq!(search(&engine, q), ["/memories/prefs/editor.md"]);
    let q = json!({"query": "morning availability", "mode": "semantic", "limit": 1});
    assert_eq!(search(&engine, q), ["/memories/prefs/schedule.md"]);
    // Found by meaning only: its first lines are shown.
    let v = block_on(engine.search_json(&json!({"query": "夜间模式", "limit": 1}))).unwrap();
    assert_eq!(
        v[0]["lines"],
        json!([{"line": 1, "text": "The user prefers dark mode in every editor."}])
    );
}

#[test]
fn hybrid_is_the_default_with_an_embedder_and_never_drops_a_keyword_hit() {
    let store = MemoryStore::new();
    let engine = engine_with(&store, Some(Rc::new(TestEmbedder::default())));
    corpus(&engine);
    // With a cutoff no text's cosine reaches, the semantic list is empty...
    let q = json!({"query": "zebra", "min_score": 0.99, "mode": "semantic"});
    assert_eq!(search(&engine, q), Vec::<String>::new());
    // ...and hybrid still answers the text found by its word, scored 1/(60 + 1).
    let v = block_on(engine.search_json(&json!({"query": "zebra", "min_score": 0.99}))).unwrap();
    assert_eq!(paths(&v), ["/memories/notes/zebra.md"]);
    assert_eq!(v[0]["score"].as_f64().unwrap(), 1.0 / 61.0);
    // Without a cutoff it is first in both lists: 1/61 + 1/61; every other text
    // follows by its semantic rank (no similarity cutoff by default).
    let v = block_on(engine.search_json(&json!({"query": "zebra"}))).unwrap();
    assert_eq!(paths(&v).len(), 4);
    let score = v[0]["score"].as_f64().unwrap();
    assert!((score - 2.0 / 61.0).abs() < 1e-12, "{score}");
    // Without an embedder the default is lexical, and asking for more is refused.
    let plain = Engine::new(store.clone(), Config::default());
    assert_eq!(
        search(&plain, json!({"query": "zebra"})),
        ["/memories/notes/zebra.md"]
    );
    let e = block_on(plain.search_json(&json!({"query": "zebra", "mode": "hybrid"}))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'."
    );
    let e = block_on(engine.search_json(&json!({"query": "zebra", "mode": "fuzzy"}))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "mode must be 'lexical', 'semantic' or 'hybrid'."
    );
    let e = block_on(
        engine.search_json(&json!({"query": "zebra", "mode": "lexical", "min_score": 0.5})),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "min_score applies to semantic and hybrid search (it is a cosine); a lexical search takes none."
    );
}

#[test]
fn writes_never_embed_and_identical_texts_are_embedded_once() {
    let store = MemoryStore::new();
    let counting = Rc::new(Counting::default());
    let engine = engine_with(&store, Some(counting.clone()));
    create(&engine, "/memories/a.md", "same words here\n");
    create(&engine, "/memories/b.md", "same words here\n");
    create(&engine, "/memories/c.md", "other words\n");
    run(
        &engine,
        json!({"command": "str_replace", "path": "/memories/c.md", "old_str": "other", "new_str": "fresh"}),
    );
    assert_eq!(counting.calls.get(), 0, "a write called the embedder");
    assert_eq!(
        search(&engine, json!({"query": "words", "mode": "semantic"})).len(),
        3
    );
    assert_eq!(counting.documents.get(), 2, "two distinct texts");
    assert_eq!(counting.queries.get(), 1);
    assert_eq!(vec_keys(&store).len(), 2);
    // A second search embeds only its query.
    search(&engine, json!({"query": "words"}));
    assert_eq!(counting.documents.get(), 2);
    // Another engine over the same store reads the stored vectors.
    let other = Rc::new(Counting::default());
    let second = engine_with(&store, Some(other.clone()));
    search(&second, json!({"query": "words"}));
    assert_eq!(other.documents.get(), 0);
}

#[test]
fn a_deleted_renamed_or_overwritten_text_is_never_a_hit() {
    let store = MemoryStore::new();
    let engine = engine_with(&store, Some(Rc::new(TestEmbedder::default())));
    corpus(&engine);
    let all = json!({"query": "dark mode editor", "mode": "semantic"});
    assert_eq!(search(&engine, all.clone()).len(), 4);
    run(
        &engine,
        json!({"command": "delete", "path": "/memories/notes/zebra.md"}),
    );
    run(
        &engine,
        json!({"command": "rename", "old_path": "/memories/prefs/editor.md", "new_path": "/memories/editor.md"}),
    );
    run(
        &engine,
        json!({"command": "delete", "path": "/memories/notes/trip.md"}),
    );
    create(
        &engine,
        "/memories/notes/trip.md",
        "The trip was cancelled.\n",
    );
    let found = search(&engine, all);
    assert_eq!(
        found,
        [
            "/memories/editor.md",
            "/memories/prefs/schedule.md",
            "/memories/notes/trip.md"
        ]
    );
    // A path_prefix keeps the semantic list inside it.
    assert_eq!(
        search(
            &engine,
            json!({"query": "dark mode", "mode": "semantic", "path_prefix": "/memories/notes"})
        ),
        ["/memories/notes/trip.md"]
    );
}

#[test]
fn a_redaction_deletes_the_erased_texts_vectors_in_the_same_step() {
    let store = MemoryStore::new();
    let engine = engine_with(&store, Some(Rc::new(TestEmbedder::default())));
    let api = |v: Value| {
        let r = block_on(engine.api(&v));
        assert!(r.status < 300, "{v}: {}", r.body);
        r.body
    };
    let secret = "the launch code is zanzibar";
    let m = api(
        json!({"op": "memory.create", "body": json!({"path": "/secret.md", "content": secret}).to_string()}),
    );
    let id = m["id"].as_str().unwrap().to_string();
    assert_eq!(
        search(&engine, json!({"query": "launch", "mode": "semantic"})),
        ["/memories/secret.md"]
    );
    // The vector's bytes as stored: its int8 components.
    let keys = vec_keys(&store);
    assert_eq!(keys.len(), 1);
    let stored = block_on(store.get(&keys[0])).unwrap().unwrap();
    let body = stored[13..].to_vec();
    assert_eq!(body.len(), 384);
    api(json!({"op": "memory.update", "id": id, "body": r#"{"content":"nothing to see"}"#}));
    let holds = |s: &MemoryStore| {
        block_on(memdir::list_all(s, "")).unwrap().iter().any(|k| {
            let v = block_on(s.get(k)).unwrap().unwrap_or_default();
            v.windows(body.len()).any(|w| w == body.as_slice())
        })
    };
    assert!(
        holds(&store),
        "the replaced text's vector is still derived data"
    );
    let versions = api(json!({"op": "version.list"}));
    let first = versions["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["operation"] == "created")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    api(json!({"op": "version.redact", "id": first}));
    assert!(
        !holds(&store),
        "a stored value still holds the redacted text's vector"
    );
    assert_eq!(vec_keys(&store), Vec::<String>::new());
    assert_eq!(
        search(&engine, json!({"query": "launch", "mode": "semantic"})),
        ["/memories/secret.md"]
    );
}

/// An embedder of another id (so another fingerprint).
struct Renamed(TestEmbedder);

impl Embedder for Renamed {
    fn id(&self) -> &str {
        "renamed"
    }
    fn dims(&self) -> usize {
        self.0.dims
    }
    fn embed<'a>(&'a self, texts: &'a [String], kind: EmbedKind) -> EmbedFuture<'a> {
        self.0.embed(texts, kind)
    }
}

#[test]
fn gc_drops_vectors_of_other_fingerprints_and_of_collected_texts() {
    let store = MemoryStore::new();
    let engine = engine_with(&store, Some(Rc::new(TestEmbedder::default())));
    corpus(&engine);
    search(&engine, json!({"query": "dark"}));
    let old = vec_keys(&store);
    assert_eq!(old.len(), 4);
    let renamed = engine_with(&store, Some(Rc::new(Renamed(TestEmbedder::default()))));
    let status = block_on(renamed.vector_status()).unwrap().unwrap();
    assert_eq!(
        (status.fingerprint.as_str(), status.indexed, status.pending),
        ("renamed:384:l2:text-start:2000", 0, 4)
    );
    let status = block_on(renamed.reindex_vectors(10)).unwrap().unwrap();
    assert_eq!((status.indexed, status.pending), (4, 0));
    assert_eq!(vec_keys(&store).len(), 8);
    // A gc without an embedder judges no fingerprint stale.
    let plain = Engine::new(store.clone(), Config::default());
    block_on(plain.gc(0)).unwrap();
    block_on(plain.gc(0)).unwrap();
    assert_eq!(vec_keys(&store).len(), 8);
    block_on(renamed.gc(0)).unwrap();
    block_on(renamed.gc(0)).unwrap();
    let left = vec_keys(&store);
    assert_eq!(left.len(), 4);
    assert!(left.iter().all(|k| !old.contains(k)));
    // A deleted text's vector stays while the version history holds the text
    // (a restore would want it)...
    run(
        &renamed,
        json!({"command": "delete", "path": "/memories/notes/zebra.md"}),
    );
    block_on(renamed.gc(0)).unwrap();
    block_on(renamed.gc(0)).unwrap();
    assert_eq!(vec_keys(&store).len(), 4);
    // ...and one of a text the store no longer holds goes after two passes.
    let fp = left[0].rsplit('/').next().unwrap();
    let gone = format!("vec/{}/{fp}", "ab".repeat(32));
    let bytes = block_on(store.get(&left[0])).unwrap().unwrap();
    block_on(store.set(&gone, &bytes)).unwrap();
    block_on(renamed.gc(0)).unwrap();
    assert!(vec_keys(&store).contains(&gone));
    block_on(renamed.gc(0)).unwrap();
    assert!(!vec_keys(&store).contains(&gone));
    assert_eq!(vec_keys(&store).len(), 4);
}

#[test]
fn reindex_is_bounded_per_round_and_status_counts_what_waits() {
    let store = MemoryStore::new();
    let counting = Rc::new(Counting::default());
    let engine = engine_with(&store, Some(counting.clone()));
    let n = EMBED_WORK + 44;
    let files: Vec<Value> = (0..n)
        .map(|i| json!({"path": format!("/m{i:04}.md"), "content": format!("memory number {i}")}))
        .collect();
    for f in &files {
        let body = f.to_string();
        let r = block_on(engine.api(&json!({"op": "memory.create", "body": body})));
        assert!(r.status < 300);
    }
    let status = block_on(engine.vector_status()).unwrap().unwrap();
    assert_eq!((status.indexed, status.pending), (0, n as u64));
    assert_eq!(counting.calls.get(), 0);
    search(&engine, json!({"query": "memory number 7"}));
    let status = block_on(engine.vector_status()).unwrap().unwrap();
    assert_eq!((status.indexed, status.pending), (EMBED_WORK as u64, 44));
    // Batches of EMBED_BATCH: 256 texts in 8 calls, and the query's.
    assert_eq!(counting.calls.get(), 9);
    let status = block_on(engine.reindex_vectors(5)).unwrap().unwrap();
    assert_eq!((status.indexed, status.pending), (n as u64, 0));
}

/// An embedder that answers wrongly, as told.
struct Bad {
    how: &'static str,
}

impl Embedder for Bad {
    fn id(&self) -> &str {
        "bad"
    }
    fn dims(&self) -> usize {
        if self.how == "dims0" { 0 } else { 4 }
    }
    fn embed<'a>(&'a self, texts: &'a [String], _kind: EmbedKind) -> EmbedFuture<'a> {
        let n = texts.len();
        let out = match self.how {
            "throws" => Err(EmbedError::Failed),
            "count" => Ok(vec![vec![1.0, 0.0, 0.0, 0.0]; n + 1]),
            "length" => Ok(vec![vec![1.0, 0.0, 0.0]; n]),
            "nan" => Ok(vec![vec![f32::NAN, 0.0, 0.0, 1.0]; n]),
            "zero" => Ok(vec![vec![0.0; 4]; n]),
            _ => Ok(vec![vec![1.0, 0.0, 0.0, 0.0]; n]),
        };
        Box::pin(std::future::ready(out))
    }
}

#[test]
fn a_bad_embedder_gets_a_clear_error_and_loses_nothing() {
    let cases = [
        (
            "throws",
            "The embedder failed (it threw or its promise rejected); no vector was kept, and search with mode 'lexical' still answers.",
        ),
        (
            "count",
            "The embedder answered 2 vectors for 1 texts; it must answer one per text, in order. No vector was kept.",
        ),
        (
            "length",
            "The embedder answered a vector of 3 numbers; it declares dims 4. No vector was kept.",
        ),
        (
            "nan",
            "The embedder answered a vector holding NaN or an infinity. No vector was kept.",
        ),
        (
            "zero",
            "The embedder answered a vector of zeros, which has no direction to compare. No vector was kept.",
        ),
        (
            "dims0",
            "The embedder's dims must be a whole number from 1 to 4096, not 0.",
        ),
    ];
    for (how, text) in cases {
        let store = MemoryStore::new();
        let engine = engine_with(&store, Some(Rc::new(Bad { how })));
        create(&engine, "/memories/a.md", "zebra\n");
        let e = block_on(engine.search_json(&json!({"query": "zebra"}))).unwrap_err();
        assert_eq!(e.to_string(), text, "{how}");
        assert_eq!(vec_keys(&store), Vec::<String>::new(), "{how}");
        // Nothing lost: the file is there, and lexical search answers.
        assert_eq!(
            search(&engine, json!({"query": "zebra", "mode": "lexical"})),
            ["/memories/a.md"]
        );
        let r = block_on(engine.execute(&json!({"command": "view", "path": "/memories/a.md"})));
        assert!(r.content.contains("zebra"), "{how}");
    }
}

/// A store that searches vectors itself (as PostgreSQL with pgvector does),
/// answering one dead candidate beside the live ones.
struct Searching {
    inner: MemoryStore,
    asked: RefCell<Vec<(String, usize)>>,
}

impl Store for Searching {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, memdir::StoreError> {
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), memdir::StoreError> {
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), memdir::StoreError> {
        self.inner.delete(key).await
    }
    async fn list(
        &self,
        prefix: &str,
        cursor: Option<&str>,
    ) -> Result<memdir::Page, memdir::StoreError> {
        self.inner.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, memdir::StoreError> {
        self.inner.compare_and_swap(key, expected, new).await
    }
    fn searches_vectors(&self) -> bool {
        true
    }
    async fn nearest(
        &self,
        fingerprint: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, memdir::StoreError> {
        self.asked.borrow_mut().push((fingerprint.to_string(), k));
        // Every stored vector of this fingerprint, scored in f32 like a database.
        let mut out = vec![([7u8; 32], 1.0f32)];
        for key in memdir::list_all(&self.inner, "vec/").await? {
            let Some((hex, fp)) = key["vec/".len()..].split_once('/') else {
                continue;
            };
            if fp != fingerprint {
                continue;
            }
            let bytes = self.inner.get(&key).await?.unwrap();
            let scale = f32::from_le_bytes(bytes[9..13].try_into().unwrap());
            let v: Vec<f32> = bytes[13..]
                .iter()
                .map(|b| f32::from(*b as i8) * scale)
                .collect();
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            let dot: f32 = v.iter().zip(query).map(|(a, b)| a * b).sum::<f32>() / n;
            let mut h = [0u8; 32];
            for (i, o) in h.iter_mut().enumerate() {
                *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
            }
            out.push((h, dot));
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(Some(out))
    }
}

#[test]
fn a_store_that_searches_vectors_is_asked_and_restricted_to_live_texts() {
    let store = Searching {
        inner: MemoryStore::new(),
        asked: RefCell::new(Vec::new()),
    };
    let mut engine = Engine::new(&store, Config::default());
    engine.set_embedder(Some(Rc::new(TestEmbedder::default())));
    for (p, t) in [
        (
            "/memories/editor.md",
            "The user prefers dark mode in every editor.\n",
        ),
        ("/memories/zebra.md", "zebra crossing near the office\n"),
    ] {
        let r = block_on(engine.execute(&json!({"command": "create", "path": p, "file_text": t})));
        assert!(!r.is_error);
    }
    let v =
        block_on(engine.search_json(&json!({"query": "夜间模式", "mode": "semantic"}))).unwrap();
    assert_eq!(paths(&v), ["/memories/editor.md", "/memories/zebra.md"]);
    let asked = store.asked.borrow().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].1, memdir::config::VECTOR_CANDIDATES);
    // Its cosine is the store's: within int8's error of the engine's own scan.
    let mut own = Engine::new(store.inner.clone(), Config::default());
    own.set_embedder(Some(Rc::new(TestEmbedder::default())));
    let w = block_on(own.search_json(&json!({"query": "夜间模式", "mode": "semantic"}))).unwrap();
    let (a, b) = (
        v[0]["score"].as_f64().unwrap(),
        w[0]["score"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 0.02, "{a} {b}");
}

#[test]
fn int8_cosines_stay_within_a_hundredth_of_float32() {
    let texts = [
        "The user prefers dark mode in every editor.",
        "夜间模式",
        "The user hates meetings before ten.",
        "morning availability",
        "Flight to Lisbon on Friday, window seat.",
    ];
    let store = MemoryStore::new();
    let engine = engine_with(&store, Some(Rc::new(TestEmbedder::default())));
    for (i, t) in texts.iter().enumerate() {
        create(&engine, &format!("/memories/{i}.md"), t);
    }
    for q in texts {
        let v = block_on(engine.search_json(&json!({"query": q, "mode": "semantic", "limit": 5})))
            .unwrap();
        let qv = unit(test_vector(q, 384));
        for hit in v.as_array().unwrap() {
            let i: usize = hit["path"].as_str().unwrap()[10..11].parse().unwrap();
            let dv = unit(test_vector(texts[i], 384));
            let exact: f32 = qv.iter().zip(&dv).map(|(a, b)| a * b).sum();
            let got = hit["score"].as_f64().unwrap();
            assert!(
                (got - f64::from(exact)).abs() < 0.01,
                "{q} / {i}: {got} vs {exact}"
            );
        }
    }
}

fn unit(v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

/// An embedder of the most dimensions, never called (the bound refuses first).
struct Wide;

impl Embedder for Wide {
    fn id(&self) -> &str {
        "wide"
    }
    fn dims(&self) -> usize {
        memdir::config::EMBED_MAX_DIMS
    }
    fn embed<'a>(&'a self, _texts: &'a [String], _kind: EmbedKind) -> EmbedFuture<'a> {
        Box::pin(std::future::ready(Err(EmbedError::Failed)))
    }
}

#[test]
fn above_the_memory_bound_the_exact_scan_refuses_and_names_postgresql() {
    use memdir::config::{EMBED_MAX_DIMS, VECTOR_MAX_BYTES};
    let store = MemoryStore::new();
    let mut config = Config::default();
    config.limits.max_memories = 100_000;
    let mut engine = Engine::new(store.clone(), config);
    engine.set_embedder(Some(Rc::new(Wide)));
    // The fewest texts whose vectors pass the bound.
    let n = VECTOR_MAX_BYTES / (EMBED_MAX_DIMS + 8) + 1;
    let files: Vec<Value> = (0..n)
        .map(|i| json!({"path": format!("/m{i:05}.md"), "content": format!("{i}")}))
        .collect();
    for f in &files {
        let r = block_on(engine.api(&json!({"op": "memory.create", "body": f.to_string()})));
        assert!(r.status < 300, "{f}: {}", r.body);
    }
    let e = block_on(engine.search_json(&json!({"query": "7"}))).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "Semantic search would hold {n} vectors of 4096 dimensions in memory, above the exact scan's bound of 64 MB: keep this store in PostgreSQL (the npm package's postgresStore searches vectors in the database with pgvector), or search with mode 'lexical'."
        )
    );
    // One text fewer fits (and then the embedder is asked, and fails).
    run(
        &engine,
        json!({"command": "delete", "path": "/memories/m00000.md"}),
    );
    let e = block_on(engine.search_json(&json!({"query": "7"}))).unwrap_err();
    assert!(e.to_string().starts_with("The embedder failed"), "{e}");
}

/// The JavaScript twin of the test embedder holds the same concept table (the
/// conformance data checks the rest of it, number for number, on every runtime).
#[test]
fn the_js_test_embedder_holds_the_same_concepts() {
    let js = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/embedders/test-embedder.mjs"
    ))
    .unwrap();
    let rows: Vec<String> = js
        .lines()
        .filter(|l| l.starts_with("  ['"))
        .map(String::from)
        .collect();
    let want: Vec<String> = memdir::search::CONCEPTS
        .iter()
        .map(|(name, forms)| {
            let forms: Vec<String> = forms
                .iter()
                .map(|f| format!("'{}'", f.replace('\'', "\\'")))
                .collect();
            format!("  ['{name}', [{}]],", forms.join(", "))
        })
        .collect();
    assert_eq!(rows, want);
}

#[test]
fn seed_002s_records_retrieve_by_meaning_and_replace_near_duplicates_by_cosine() {
    use memdir::records::Settings;
    let s = Settings::default();
    let store_ = |engine: &Engine<MemoryStore>, content: &str| -> Value {
        let input = json!({"content": content, "category": "user_preference", "importance": 3});
        block_on(engine.records("memory_store", &input, &s, None)).unwrap()
    };
    let first = "The user prefers dark mode in every editor.";
    // One word apart: a Jaccard of 7/9, below 0.8, so without an embedder these
    // are two records...
    let second = "The user prefers dark mode in each editor.";
    let plain = Engine::new(MemoryStore::new(), Config::default());
    store_(&plain, first);
    assert_eq!(store_(&plain, second).get("replaced"), None);
    // ...and with one, whose cosine for them is above 0.92, one.
    let cos = {
        let (a, b) = (
            unit(test_vector(first, 384)),
            unit(test_vector(second, 384)),
        );
        a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>()
    };
    assert!(cos >= 0.92, "{cos}");
    let engine = engine_with(&MemoryStore::new(), Some(Rc::new(TestEmbedder::default())));
    store_(&engine, first);
    assert_eq!(store_(&engine, second)["replaced"], json!(true));
    // A different preference is not a duplicate.
    let third = "The user hates meetings before ten.";
    assert_eq!(store_(&engine, third).get("replaced"), None);
    // memory_retrieve finds by meaning (hybrid by default), and takes a mode.
    let retrieve = |input: Value| -> Vec<String> {
        let v = block_on(engine.records("memory_retrieve", &input, &s, None)).unwrap();
        v["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        retrieve(json!({"query": "morning availability", "limit": 1})),
        [third]
    );
    assert_eq!(
        retrieve(json!({"query": "morning availability", "mode": "lexical"})),
        Vec::<String>::new()
    );
    assert_eq!(
        retrieve(json!({"query": "夜间模式", "mode": "semantic", "limit": 1})),
        [second]
    );
}

/// A store made by the Memory Stores API, with `embedder` set.
fn api_store(embedder: Option<Rc<dyn Embedder>>) -> Engine<MemoryStore> {
    let (mut engine, _) = crate::common::api_engine(Config::default());
    engine.set_embedder(embedder);
    engine
}

fn tool(
    engine: &Engine<MemoryStore>,
    name: &str,
    input: Value,
) -> Result<String, (String, String)> {
    block_on(engine.toolset("", name, &input)).map_err(|e| (e.to_string(), e.kind().to_string()))
}

fn tool_corpus(engine: &Engine<MemoryStore>) {
    for (path, content) in [
        (
            "/prefs/editor.md",
            "The user prefers dark mode in every editor.",
        ),
        ("/prefs/schedule.md", "The user hates meetings before ten."),
        ("/notes/zebra.md", "zebra crossing near the office"),
    ] {
        tool(
            engine,
            "memory_write",
            json!({"path": path, "content": content}),
        )
        .unwrap();
    }
}

#[test]
fn the_toolsets_memory_search_ranks_in_the_mode_asked_and_refuses_without_an_embedder() {
    let engine = api_store(Some(Rc::new(TestEmbedder::default())));
    tool_corpus(&engine);
    let search = |input: Value| tool(&engine, "memory_search", input);
    assert_eq!(
        search(json!({"query": "夜间模式", "mode": "lexical"})).unwrap(),
        "No document under / matches \"夜间模式\"."
    );
    let by_meaning = search(json!({"query": "夜间模式", "mode": "semantic"})).unwrap();
    assert!(
        by_meaning.starts_with(
            "3 documents under / match \"夜间模式\", best first:\n/prefs/editor.md (score "
        ),
        "{by_meaning}"
    );
    // Found by meaning alone: its first line is shown.
    assert!(
        by_meaning.contains(")\n     1\tThe user prefers dark mode in every editor.\n"),
        "{by_meaning}"
    );
    // Hybrid is the default with an embedder, and keeps the keyword hit a
    // cutoff no cosine reaches leaves out of the semantic list.
    assert_eq!(
        search(json!({"query": "zebra", "min_score": 0.99})).unwrap(),
        "1 document under / matches \"zebra\":\n/notes/zebra.md (score 0.016)\n     1\tzebra crossing near the office"
    );
    assert_eq!(
        search(json!({"query": "zebra", "mode": "semantic", "min_score": 0.99})).unwrap(),
        "No document under / matches \"zebra\"."
    );
    assert_eq!(
        search(json!({"query": "zebra", "mode": "fuzzy"})).unwrap_err(),
        (
            "Invalid input for memory_search: mode must be 'lexical', 'semantic' or 'hybrid'."
                .into(),
            "input".into()
        )
    );
    assert_eq!(
        search(json!({"query": "zebra", "min_score": 2})).unwrap_err(),
        (
            "Invalid input for memory_search: min_score must be a number from -1 to 1 (a cosine; what a good one is depends on the embedder's model).".into(),
            "input".into()
        )
    );
    assert_eq!(
        search(json!({"query": "zebra", "min_score": "high"})).unwrap_err(),
        (
            "Invalid input for memory_search: min_score must be a number, got a string.".into(),
            "input".into()
        )
    );
    assert_eq!(
        search(json!({"query": "zebra", "mode": "lexical", "min_score": 0.5})).unwrap_err(),
        (
            "Invalid input for memory_search: min_score applies to semantic and hybrid search (it is a cosine); a lexical search takes none.".into(),
            "input".into()
        )
    );

    // Without an embedder: lexical as before; semantic and hybrid refused.
    let plain = api_store(None);
    tool_corpus(&plain);
    assert_eq!(
        tool(&plain, "memory_search", json!({"query": "zebra"})).unwrap(),
        tool(
            &plain,
            "memory_search",
            json!({"query": "zebra", "mode": "lexical"})
        )
        .unwrap()
    );
    for mode in ["semantic", "hybrid"] {
        assert_eq!(
            tool(&plain, "memory_search", json!({"query": "zebra", "mode": mode})).unwrap_err(),
            (
                "Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'.".into(),
                "refused".into()
            ),
            "{mode}"
        );
    }
}

#[test]
fn the_apis_search_takes_mode_and_min_score() {
    let engine = api_store(Some(Rc::new(TestEmbedder::default())));
    tool_corpus(&engine);
    let call = |query: Value| block_on(engine.api(&json!({"op": "memory.search", "query": query})));
    let r = call(json!({"query": "夜间模式", "mode": "semantic", "limit": "1"}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["data"][0]["path"], "/prefs/editor.md");
    assert_eq!(
        r.body["data"][0]["matches"],
        json!([{"line_number": 1, "text": "The user prefers dark mode in every editor."}])
    );
    // A page token of one mode is refused by another.
    let next = r.body["next_page"].as_str().unwrap().to_string();
    let r = call(json!({"query": "夜间模式", "mode": "hybrid", "limit": "1", "page": next}));
    assert_eq!(r.status, 400, "{}", r.body);
    let r = call(json!({"query": "夜间模式", "mode": "lexical"}));
    assert_eq!(r.body["data"], json!([]));
    let r = call(json!({"query": "zebra", "min_score": "0.99"}));
    assert_eq!(r.body["data"][0]["path"], "/notes/zebra.md");
    let r = call(json!({"query": "zebra", "min_score": "x"}));
    assert_eq!(
        (r.status, r.body["error"]["message"].as_str().unwrap()),
        (
            400,
            "min_score must be a number from -1 to 1 (a cosine; what a good one is depends on the embedder's model)."
        )
    );
    // The embedder failing: the server's fault (502), in memdir's words.
    let failing = api_store(Some(Rc::new(Bad { how: "throws" })));
    tool_corpus(&failing);
    let r = block_on(failing.api(&json!({"op": "memory.search", "query": {"query": "zebra"}})));
    assert_eq!(
        (
            r.status,
            r.body["error"]["type"].as_str().unwrap(),
            r.body["error"]["message"].as_str().unwrap()
        ),
        (
            502,
            "api_error",
            "The embedder failed (it threw or its promise rejected); no vector was kept, and search with mode 'lexical' still answers."
        )
    );
    let plain = api_store(None);
    tool_corpus(&plain);
    let r = block_on(
        plain.api(&json!({"op": "memory.search", "query": {"query": "zebra", "mode": "semantic"}})),
    );
    assert_eq!(
        (
            r.status,
            r.body["error"]["type"].as_str().unwrap(),
            r.body["error"]["message"].as_str().unwrap()
        ),
        (
            400,
            "invalid_request_error",
            "Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'."
        )
    );
}
