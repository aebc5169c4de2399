//! Exact ranking: the engine's scores and order against a plain BM25F written here
//! from the rules `src/search/index.rs` documents (not by calling its scorer), over
//! the same tokens (`memdir::search::terms` and `path_terms`), on random small
//! corpora. Scores agree to 1e-9 and the order exactly.
//!
//! The rules, as written here: a memory's frequency of a term is its count in the
//! text plus [`SEARCH_PATH_WEIGHT`] times its count in the store path, its length
//! the sum of those; `idf = ln(1 + (n - df + 0.5) / (df + 0.5))` over every live
//! memory (a path prefix filters the answer, not the statistics); a query term,
//! counted once, matches the term equal to it (weight 1) and, when it has at least
//! [`SEARCH_PART_MIN_CHARS`] characters or is one CJK character, the first
//! [`SEARCH_MAX_PARTS`] other terms (in order) that begin with it and the first as
//! many (ordered by their reversed spelling) that end with it, at
//! [`SEARCH_PART_WEIGHT`]; a memory takes the best of these per query term; its
//! score is the sum; equal scores go by path.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet};

use memdir::config::{
    Config, SEARCH_BM25_B, SEARCH_BM25_K1, SEARCH_MAX_PARTS, SEARCH_MAX_QUERY_TERMS,
    SEARCH_PART_MIN_CHARS, SEARCH_PART_WEIGHT, SEARCH_PATH_WEIGHT,
};
use memdir::search::{path_terms, terms};
use memdir::{Engine, MemoryStore, Store, block_on};
use proptest::prelude::*;
use serde_json::json;

/// The scores differ by at most this much.
pub const EPS: f64 = 1e-9;

/// Whether `c` is written without spaces (the tokenizer's CJK ranges, as
/// `tokens.rs` lists them).
fn cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3040..=0x309F | 0x30A0..=0x30FF | 0x3130..=0x318F
        | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xA960..=0xA97F
        | 0xAC00..=0xD7AF | 0xD7B0..=0xD7FF | 0xF900..=0xFAFF | 0x20000..=0x3134F)
}

/// A plain BM25F over live memories (store path → text): every memory's
/// weighted term counts, recomputed from nothing on each call.
pub struct Bm25 {
    docs: BTreeMap<String, (BTreeMap<String, f64>, f64)>,
    df: BTreeMap<String, f64>,
}

impl Bm25 {
    pub fn new<'a>(live: impl IntoIterator<Item = (&'a str, &'a str)>) -> Bm25 {
        let mut docs = BTreeMap::new();
        let mut df: BTreeMap<String, f64> = BTreeMap::new();
        for (path, text) in live {
            let mut tf: BTreeMap<String, f64> = BTreeMap::new();
            for t in path_terms(path) {
                *tf.entry(t).or_default() += f64::from(SEARCH_PATH_WEIGHT);
            }
            for t in terms(text) {
                *tf.entry(t).or_default() += 1.0;
            }
            let len: f64 = tf.values().sum();
            for t in tf.keys() {
                *df.entry(t.clone()).or_default() += 1.0;
            }
            docs.insert(path.to_string(), (tf, len));
        }
        Bm25 { docs, df }
    }

    /// The indexed terms a query term matches, with their weights.
    fn candidates(&self, q: &str) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        if self.df.contains_key(q) {
            out.push((q.to_string(), 1.0));
        }
        let n = q.chars().count();
        let parts = n >= SEARCH_PART_MIN_CHARS || (n == 1 && q.chars().all(cjk));
        if !parts {
            return out;
        }
        let mut seen: BTreeSet<String> = out.iter().map(|(t, _)| t.clone()).collect();
        let begins: Vec<&String> = self
            .df
            .keys()
            .filter(|t| t.as_str() != q && t.starts_with(q))
            .take(SEARCH_MAX_PARTS)
            .collect();
        let rev = |s: &str| s.chars().rev().collect::<String>();
        let mut ends: Vec<(String, &String)> = self
            .df
            .keys()
            .filter(|t| t.as_str() != q && t.ends_with(q))
            .map(|t| (rev(t), t))
            .collect();
        ends.sort();
        for t in begins
            .into_iter()
            .chain(ends.into_iter().take(SEARCH_MAX_PARTS).map(|(_, t)| t))
        {
            if seen.insert(t.clone()) {
                out.push((t.clone(), SEARCH_PART_WEIGHT));
            }
        }
        out
    }

    /// Every memory under the store directory `under` matching `query`, with its
    /// score, best first, equal scores (within [`EPS`]) by path.
    pub fn rank(&self, query: &str, under: Option<&str>) -> Vec<(String, f64)> {
        let mut qs: Vec<String> = Vec::new();
        for t in terms(query) {
            if qs.len() < SEARCH_MAX_QUERY_TERMS && !qs.contains(&t) {
                qs.push(t);
            }
        }
        let n = self.docs.len() as f64;
        if n == 0.0 {
            return Vec::new();
        }
        let avgdl = (self.docs.values().map(|(_, l)| l).sum::<f64>() / n).max(1.0);
        let (k1, b) = (SEARCH_BM25_K1, SEARCH_BM25_B);
        let mut out = Vec::new();
        for (path, (tf, len)) in &self.docs {
            if under.is_some_and(|u| !path.starts_with(&format!("{u}/"))) {
                continue;
            }
            let mut score = 0.0;
            let mut hit = false;
            for q in &qs {
                let mut best: Option<f64> = None;
                for (t, w) in self.candidates(q) {
                    let Some(f) = tf.get(&t) else { continue };
                    let df = self.df[&t];
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let s = w * idf * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * len / avgdl));
                    best = Some(best.map_or(s, |x: f64| x.max(s)));
                }
                if let Some(s) = best {
                    score += s;
                    hit = true;
                }
            }
            if hit {
                out.push((path.clone(), score));
            }
        }
        out.sort_by(|x, y| {
            if (x.1 - y.1).abs() <= EPS {
                x.0.cmp(&y.0)
            } else {
                y.1.total_cmp(&x.1)
            }
        });
        out
    }
}

/// The engine's answer as (store path, score), everything it has.
pub fn engine_rank<S: Store>(
    engine: &Engine<S>,
    query: &str,
    under: Option<&str>,
) -> Vec<(String, f64)> {
    block_on(engine.search(query, 100_000, under))
        .unwrap_or_else(|e| panic!("search {query:?}: {e}"))
        .hits
        .into_iter()
        .map(|h| (h.path, h.score))
        .collect()
}

/// Whether `got` (the engine's) is `want` (the plain BM25F's): the same paths,
/// scores within [`EPS`], and the same order, except that two scores within
/// [`EPS`] of each other may be in either order (two computations of one real
/// number can differ in the last bit: the engine then orders by its own bits,
/// the plain BM25F by path); and `got` is sorted by its own scores, exactly equal
/// ones by path. The difference, if not.
pub fn same(got: &[(String, f64)], want: &[(String, f64)]) -> Result<(), String> {
    let wanted: BTreeMap<&str, f64> = want.iter().map(|(p, s)| (p.as_str(), *s)).collect();
    let mut paths: Vec<&str> = got.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort_unstable();
    if paths != wanted.keys().copied().collect::<Vec<_>>() || paths.len() != got.len() {
        return Err(format!("paths: got {got:?}, want {want:?}"));
    }
    for (p, g) in got {
        let w = wanted[p.as_str()];
        if (g - w).abs() > EPS {
            return Err(format!("score of {p}: got {g}, want {w}"));
        }
    }
    for pair in got.windows(2) {
        let ((pa, a), (pb, b)) = (&pair[0], &pair[1]);
        if a < b || (a == b && pa >= pb) {
            return Err(format!("not sorted by score then path: {got:?}"));
        }
        if wanted[pa.as_str()] < wanted[pb.as_str()] - EPS {
            return Err(format!("order: got {got:?}, want {want:?}"));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ corpora

/// Words that share prefixes, suffixes and scripts, so part matches, CJK pairs,
/// identifiers and path terms all meet.
pub const WORDS: &[&str] = &[
    "format",
    "formatting",
    "reformat",
    "Sicherheit",
    "Sicherheitsrichtlinie",
    "Richtlinie",
    "Straße",
    "STRASSE",
    "Müller",
    "Mu\u{308}ller",
    "dark",
    "mode",
    "darkmode",
    "tea",
    "user_id",
    "config.json",
    "don't",
    "数据库",
    "数据",
    "库",
    "管理系统",
    "東京タワー",
    "タワー",
    "ｶﾀｶﾅ",
    "한국어",
    "API키를",
    "2024년에",
    "국어",
    "the",
    "a",
    "ＦＵＬＬ",
    "2024年",
];

const PATHS: &[&str] = &[
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
    let sep = prop::sample::select(vec![" ", " ", "\n", ", ", "", "-"]);
    prop::collection::vec((prop::sample::select(WORDS.to_vec()), sep), 0..14)
        .prop_map(|v| v.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
}

fn corpus() -> impl Strategy<Value = BTreeMap<String, String>> {
    prop::collection::btree_map(
        prop::sample::select(PATHS.to_vec()).prop_map(String::from),
        text(),
        1..8,
    )
}

fn query() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS.to_vec()), 1..4).prop_map(|v| v.join(" "))
}

fn tool(engine: &Engine<MemoryStore>, input: serde_json::Value) {
    let r = block_on(engine.execute(&input));
    assert!(!r.is_error, "{input}: {}", r.content);
}

/// An engine whose tree holds `corpus` (store paths), written by the memory tool.
pub fn engine_with(corpus: &BTreeMap<String, String>) -> Engine<MemoryStore> {
    let engine = Engine::new(MemoryStore::new(), Config::default());
    for (p, t) in corpus {
        tool(
            &engine,
            json!({"command": "create", "path": format!("/memories{p}"), "file_text": t}),
        );
    }
    engine
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_engine_ranks_as_plain_bm25f(corpus in corpus(), queries in prop::collection::vec(query(), 1..6)) {
        let engine = engine_with(&corpus);
        let oracle = Bm25::new(corpus.iter().map(|(p, t)| (p.as_str(), t.as_str())));
        for q in &queries {
            if terms(q).is_empty() {
                continue;
            }
            for under in [None, Some("/notes"), Some("/数据")] {
                let got = engine_rank(&engine, q, under);
                let want = oracle.rank(q, under);
                if let Err(e) = same(&got, &want) {
                    return Err(TestCaseError::fail(format!("query {q:?} under {under:?}: {e}\ncorpus {corpus:?}")));
                }
            }
        }
    }
}

#[test]
fn a_worked_example_by_hand() {
    // Two memories, one query term, no parts: the numbers written out.
    let corpus: BTreeMap<String, String> = [
        ("/a.md".to_string(), "tea tea cake".to_string()),
        ("/b.md".to_string(), "cake".to_string()),
    ]
    .into();
    let engine = engine_with(&corpus);
    // a: tea 2, cake 1, a 2, md 2, a.md 2 → len 9; b: cake 1, b 2, md 2, b.md 2 → 7.
    // n 2, avgdl 8; tea df 1: idf ln(1 + 1.5/1.5) = ln 2.
    let norm = 1.2 * (1.0 - 0.75 + 0.75 * 9.0 / 8.0);
    let want = 2f64.ln() * 2.0 * 2.2 / (2.0 + norm);
    let got = engine_rank(&engine, "tea", None);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, "/a.md");
    assert!((got[0].1 - want).abs() < EPS, "{} vs {want}", got[0].1);
    // "cake" is in both with tf 1: b, the shorter, first.
    let got = engine_rank(&engine, "cake", None);
    assert_eq!(
        got.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["/b.md", "/a.md"]
    );
}

#[test]
fn equal_scores_are_ordered_by_path() {
    let corpus: BTreeMap<String, String> = [
        ("/z.md".to_string(), "same words".to_string()),
        ("/y.md".to_string(), "same words".to_string()),
        ("/x.md".to_string(), "same words".to_string()),
    ]
    .into();
    let engine = engine_with(&corpus);
    let got = engine_rank(&engine, "words", None);
    assert_eq!(
        got.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["/x.md", "/y.md", "/z.md"]
    );
    assert_eq!(got[0].1, got[2].1);
}

#[test]
fn part_matches_weigh_half_and_a_memory_takes_its_best_per_query_term() {
    // "richtlinie" ends "sicherheitsrichtlinie" (a part, 0.5) and is whole in b.
    let corpus: BTreeMap<String, String> = [
        ("/a.md".to_string(), "Sicherheitsrichtlinie".to_string()),
        ("/b.md".to_string(), "Richtlinie".to_string()),
        (
            "/c.md".to_string(),
            "Richtlinie Sicherheitsrichtlinie".to_string(),
        ),
        ("/d.md".to_string(), "other".to_string()),
    ]
    .into();
    let engine = engine_with(&corpus);
    let oracle = Bm25::new(corpus.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    same(
        &engine_rank(&engine, "richtlinie", None),
        &oracle.rank("richtlinie", None),
    )
    .unwrap();
    // A three-letter query term matches no parts; a lone CJK character does.
    let got = engine_rank(&engine, "oth", None);
    assert_eq!(got, []);
    let corpus: BTreeMap<String, String> =
        [("/zh.md".to_string(), "数据库管理".to_string())].into();
    let engine = engine_with(&corpus);
    assert_eq!(engine_rank(&engine, "库", None).len(), 1);
}

#[test]
fn the_bounds_on_parts_and_query_terms_are_the_documented_ones() {
    // SEARCH_MAX_PARTS + 8 terms beginning "form" and as many ending it, in
    // memories of different lengths: a query term matches only the first
    // SEARCH_MAX_PARTS of each (in order, the ending ones by their reversed
    // spelling).
    let n = SEARCH_MAX_PARTS + 8;
    let mut corpus: BTreeMap<String, String> = BTreeMap::new();
    for i in 0..n {
        let words: Vec<String> = (0..=i % 5).map(|k| format!("w{k}")).collect();
        // The ending term's digits reversed, so its reversed spelling
        // (`mrof0038x`) orders the memories as the beginning one does.
        let digits: String = format!("{i:04}").chars().rev().collect();
        corpus.insert(
            format!("/p{i:04}.md"),
            format!("form{i:04}x x{digits}form {}", words.join(" ")),
        );
    }
    let engine = engine_with(&corpus);
    let oracle = Bm25::new(corpus.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let got = engine_rank(&engine, "form", None);
    // Beginning and ending alike: the first SEARCH_MAX_PARTS memories by
    // number; the last 8 are matched by neither.
    assert_eq!(got.len(), SEARCH_MAX_PARTS, "the parts were bounded");
    same(&got, &oracle.rank("form", None)).unwrap();
    // A query's terms: repeats count once; past 32 distinct ones are dropped.
    same(
        &engine_rank(&engine, "w1 w1 w1 W1", None),
        &oracle.rank("w1", None),
    )
    .unwrap();
    let fillers: Vec<String> = (0..32).map(|i| format!("zz{i}")).collect();
    let late = format!("{} w1", fillers.join(" "));
    assert_eq!(engine_rank(&engine, &late, None), []);
    same(
        &engine_rank(&engine, &late, None),
        &oracle.rank(&late, None),
    )
    .unwrap();
    let early = format!("w1 {}", fillers.join(" "));
    let got = engine_rank(&engine, &early, None);
    let with_w1 = corpus.values().filter(|t| t.contains(" w1")).count();
    assert_eq!(got.len(), with_w1, "{got:?}");
    same(&got, &oracle.rank(&early, None)).unwrap();
}
