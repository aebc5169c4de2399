//! Semantic search as a property (issue 47): random writes through every write
//! path of `search_model` (the memory tool, the API, redactions, syncs, imports,
//! expire, retain, gc), embedder changes and crash cuts of the vectors, and after
//! each step:
//! - a semantic search with no cutoff answers exactly the live files, each scored
//!   within int8's error of the float32 cosine of its *live* text (a vector of a
//!   replaced, renamed-away or redacted text would be off);
//! - a hybrid search holds every memory the plain BM25F finds (no keyword hit
//!   dropped);
//! - every stored vector is of a text the store still holds (`blob/<sha256>`), so
//!   a redaction's erased text has none.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;
use crate::search_model::{Api, Step, apply, live, step};
use crate::search_rank::Bm25;

use std::collections::BTreeMap;
use std::rc::Rc;

use memdir::config::Config;
use memdir::search::{EmbedFuture, EmbedKind, Embedder, TestEmbedder, test_vector};
use memdir::{Store, block_on};
use proptest::prelude::*;
use serde_json::json;

/// The test embedder under another id and dimensions: another fingerprint.
struct Other;

impl Embedder for Other {
    fn id(&self) -> &str {
        "other"
    }
    fn dims(&self) -> usize {
        128
    }
    fn embed<'a>(&'a self, texts: &'a [String], kind: EmbedKind) -> EmbedFuture<'a> {
        let _ = kind;
        let out = texts.iter().map(|t| test_vector(t, 128)).collect();
        Box::pin(std::future::ready(Ok(out)))
    }
}

#[derive(Clone, Debug)]
enum Move {
    Write(Step),
    /// The embedder changes (the test embedder at 384 dimensions, or `Other`).
    Switch(bool),
    /// Every `vec/` key deleted through the raw store.
    DropVectors,
    /// One stored vector overwritten with bytes that are not one.
    Corrupt(usize),
}

fn a_move() -> impl Strategy<Value = Move> {
    prop_oneof![
        12 => step().prop_map(Move::Write),
        1 => any::<bool>().prop_map(Move::Switch),
        1 => Just(Move::DropVectors),
        1 => (0..8usize).prop_map(Move::Corrupt),
    ]
}

fn unit(v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

const QUERIES: &[&str] = &["format", "dark mode tea", "数据库", "user", "richtlinie"];

#[test]
fn vectors_follow_the_live_tree_through_every_write_path() {
    use proptest::test_runner::{Config as RunnerConfig, TestRunner};
    let cases: u32 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let mut runner = TestRunner::new(RunnerConfig {
        cases,
        failure_persistence: None,
        ..RunnerConfig::default()
    });
    let checked = std::cell::Cell::new(0usize);
    let result = runner.run(&prop::collection::vec(a_move(), 1..16), |moves| {
        let (mut engine, store) = common::api_engine(Config::default());
        let mut dims = 384;
        engine.set_embedder(Some(Rc::new(TestEmbedder::default())));
        let remote = Api(common::api_engine(Config::default()).0);
        for (n, m) in moves.iter().enumerate() {
            match m {
                Move::Write(s) => {
                    apply(&engine, &remote, s);
                }
                Move::Switch(other) => {
                    if *other {
                        engine.set_embedder(Some(Rc::new(Other)));
                        dims = 128;
                    } else {
                        engine.set_embedder(Some(Rc::new(TestEmbedder::default())));
                        dims = 384;
                    }
                }
                Move::DropVectors => {
                    for k in block_on(memdir::list_all(&store, "vec/")).unwrap() {
                        block_on(store.delete(&k)).unwrap();
                    }
                }
                Move::Corrupt(i) => {
                    let keys = block_on(memdir::list_all(&store, "vec/")).unwrap();
                    if !keys.is_empty() {
                        block_on(store.set(&keys[i % keys.len()], b"MDVE\x01 not a vector"))
                            .unwrap();
                    }
                }
            }
            let files: BTreeMap<String, String> = live(&engine);
            for q in QUERIES {
                let v = block_on(
                    engine.search_json(&json!({"query": q, "mode": "semantic", "limit": 100})),
                )
                .unwrap();
                let hits = v.as_array().unwrap();
                let got: Vec<String> = hits
                    .iter()
                    .map(|h| h["path"].as_str().unwrap()["/memories".len()..].to_string())
                    .collect();
                let mut sorted = got.clone();
                sorted.sort();
                prop_assert_eq!(
                    sorted,
                    files.keys().cloned().collect::<Vec<_>>(),
                    "step {} {:?}: the semantic hits are not the live files",
                    n,
                    m
                );
                let qv = unit(test_vector(q, dims));
                for (h, p) in hits.iter().zip(&got) {
                    let dv = unit(test_vector(&files[p], dims));
                    let exact: f32 = qv.iter().zip(&dv).map(|(a, b)| a * b).sum();
                    let score = h["score"].as_f64().unwrap();
                    prop_assert!(
                        (score - f64::from(exact)).abs() < 0.01,
                        "step {} {:?}: {} scored {} for {:?}, its live text's cosine {}",
                        n,
                        m,
                        p,
                        score,
                        q,
                        exact
                    );
                }
                let v = block_on(engine.search_json(&json!({"query": q, "limit": 100}))).unwrap();
                let hybrid: Vec<&str> = v
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| &h["path"].as_str().unwrap()["/memories".len()..])
                    .collect();
                let oracle = Bm25::new(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
                for (p, _) in oracle.rank(q, None) {
                    prop_assert!(
                        hybrid.contains(&p.as_str()),
                        "step {} {:?}: hybrid dropped the keyword hit {} for {:?}",
                        n,
                        m,
                        p,
                        q
                    );
                }
                checked.set(checked.get() + 1);
            }
            // Every stored vector is of a text the store still holds.
            for k in block_on(memdir::list_all(&store, "vec/")).unwrap() {
                let hex = &k["vec/".len().."vec/".len() + 64];
                let blob = block_on(store.get(&format!("blob/{hex}"))).unwrap();
                prop_assert!(
                    blob.is_some(),
                    "step {} {:?}: the vector {} outlived its text",
                    n,
                    m,
                    k
                );
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(checked.get() > 500, "{} searches checked", checked.get());
}
