//! The search conformance data, `tests/conformance/search.json`: memory-tool
//! writes, then searches with their exact answers (`memory.search`'s JSON: paths,
//! scores as the engine prints them, lines) or exact error texts, including
//! multilingual cases, path prefixes, limits, deleted, renamed and edited texts,
//! and crash cuts (the index lost, or its table cut short, between writes).
//!
//! This test runs the cases below on the native engine through
//! `Engine::search_json`, checks every answer's paths, order and scores against the
//! plain BM25F of `search_rank` (written from the documented rules, not the
//! engine's scorer), and checks that the file says the same; with
//! `MEMDIR_REGENERATE=1` it rewrites the file instead. It then runs the file as
//! every runner does (see `tests/conformance/README.md`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;
use crate::search_rank::{Bm25, EPS};

use std::collections::BTreeMap;

use memdir::config::{Config, SEARCH_DEFAULT_LIMIT};
use memdir::search::{TestEmbedder, test_vector};
use memdir::{Engine, MemoryStore, Store, block_on};
use serde_json::{Value, json};

/// One step of a case, before its answer is known.
enum Step {
    Tool(Value),
    Search(Value),
    /// Every key under `index/` deleted through the raw store.
    DropIndex,
    /// `index/head` replaced by its first 10 bytes through the raw store.
    CutTable,
    /// Every key under `vec/` (the vectors) deleted through the raw store.
    DropVectors,
}

/// The embedder a case's engine is opened with: the test embedder, named by id
/// in the file (`"embedder": "memdir-test-ngram-v1"`, 384 dimensions).
const TEST_EMBEDDER: &str = "memdir-test-ngram-v1";

fn with_embedder<S: Store>(mut engine: Engine<S>, name: Option<&str>) -> Engine<S> {
    if let Some(n) = name {
        assert_eq!(n, TEST_EMBEDDER);
        engine.set_embedder(Some(std::rc::Rc::new(TestEmbedder::default())));
    }
    engine
}

/// The cases searched with the test embedder (semantic and hybrid, issue 47).
fn semantic_cases() -> Vec<(&'static str, Vec<Step>)> {
    let corpus = || {
        vec![
            create(
                "/memories/prefs/editor.md",
                "The user prefers dark mode in every editor.\n",
            ),
            create(
                "/memories/prefs/schedule.md",
                "The user hates meetings before ten.\nLunch at noon.\n",
            ),
            create(
                "/memories/notes/trip.md",
                "Flight to Lisbon on Friday, window seat.\n",
            ),
            create(
                "/memories/notes/zebra.md",
                "zebra crossing near the office\n",
            ),
            create("/memories/de/urlaub.md", "Urlaub im August, zwei Wochen.\n"),
            create("/memories/zh/coffee.md", "用户每天早上喝咖啡。\n"),
        ]
    };
    let sem = |query: &str| search(json!({"query": query, "mode": "semantic", "limit": 3}));
    vec![
        (
            "semantic/cross-language",
            corpus()
                .into_iter()
                .chain([
                    sem("夜间模式"),
                    sem("morning availability"),
                    sem("vacation plans"),
                    sem("coffee habits"),
                    sem("Reise nach Lissabon"),
                    search(json!({"query": "夜间模式", "mode": "lexical"})),
                ])
                .collect(),
        ),
        (
            "hybrid/keeps-keyword-hits",
            corpus()
                .into_iter()
                .chain([
                    q("zebra"),
                    q("dark mode"),
                    search(json!({"query": "zebra", "min_score": 0.99})),
                    search(json!({"query": "zebra", "mode": "semantic", "min_score": 0.99})),
                    search(json!({"query": "office", "mode": "hybrid", "limit": 2})),
                    search(json!({"query": "dark", "path_prefix": "/memories/notes"})),
                ])
                .collect(),
        ),
        (
            "semantic/never-stale",
            corpus()
                .into_iter()
                .chain([
                    sem("dark mode"),
                    Step::Tool(json!({"command": "delete", "path": "/memories/prefs/editor.md"})),
                    sem("dark mode"),
                    Step::Tool(json!({"command": "rename", "old_path": "/memories/notes/trip.md", "new_path": "/memories/trip.md"})),
                    Step::Tool(json!({"command": "str_replace", "path": "/memories/trip.md", "old_str": "Flight to Lisbon", "new_str": "Dark mode in the cabin"})),
                    sem("dark mode"),
                    q("lisbon"),
                ])
                .collect(),
        ),
        (
            "semantic/crash-cuts",
            corpus()
                .into_iter()
                .chain([
                    sem("夜间模式"),
                    Step::DropVectors,
                    sem("夜间模式"),
                    Step::DropIndex,
                    create("/memories/late.md", "A dark theme for the terminal.\n"),
                    q("morning availability"),
                    Step::CutTable,
                    Step::DropVectors,
                    create("/memories/later.md", "Meetings after lunch only.\n"),
                    q("morning availability"),
                    sem("夜间模式"),
                ])
                .collect(),
        ),
        (
            "semantic/errors",
            vec![
                create("/memories/a.md", "zebra\n"),
                search(json!({"query": "zebra", "mode": "fuzzy"})),
                search(json!({"query": "zebra", "mode": 1})),
                search(json!({"query": "zebra", "min_score": 2})),
                search(json!({"query": "zebra", "min_score": "0.5"})),
                search(json!({"query": "zebra", "mode": "lexical", "min_score": 0.5})),
            ],
        ),
    ]
}

fn create(path: &str, text: &str) -> Step {
    Step::Tool(json!({"command": "create", "path": path, "file_text": text}))
}

fn search(options: Value) -> Step {
    Step::Search(options)
}

fn q(query: &str) -> Step {
    search(json!({"query": query}))
}

fn cases() -> Vec<(&'static str, Vec<Step>)> {
    let tool = Step::Tool;
    vec![
        (
            "rank/bm25",
            vec![
                create(
                    "/memories/notes/a.md",
                    "The user likes dark mode.\nAnd tea.\n",
                ),
                create("/memories/notes/b.md", "dark dark dark mode everywhere\n"),
                create("/memories/c.md", "light mode\n"),
                q("dark mode"),
                q("DARK"),
                q("tea"),
            ],
        ),
        (
            "rank/ties-by-path",
            vec![
                create("/memories/z.md", "same words\n"),
                create("/memories/x.md", "same words\n"),
                create("/memories/y.md", "same words\n"),
                q("words"),
            ],
        ),
        (
            "rank/path-segments",
            vec![
                create(
                    "/memories/preferences/formatting.md",
                    "Use tabs, not spaces.\n",
                ),
                create("/memories/notes.md", "formatting matters\n"),
                q("formatting"),
                q("preferences"),
                q("md"),
            ],
        ),
        (
            "rank/parts",
            vec![
                create("/memories/de/a.md", "Die Sicherheitsrichtlinie gilt.\n"),
                create("/memories/de/b.md", "Eine Richtlinie.\n"),
                create("/memories/en/c.md", "reformatting and format\n"),
                q("richtlinie"),
                q("sicherheit"),
                q("format"),
                // Three letters: no parts.
                q("for"),
            ],
        ),
        (
            "options/limit-and-prefix",
            vec![
                create("/memories/notes/a.md", "zebra one\n"),
                create("/memories/notes/deep/b.md", "zebra two zebra\n"),
                create("/memories/other/c.md", "zebra three\n"),
                create("/memories/notesx.md", "zebra four\n"),
                search(json!({"query": "zebra", "limit": 2})),
                search(json!({"query": "zebra", "limit": 1})),
                search(json!({"query": "zebra", "path_prefix": "/memories/notes"})),
                search(json!({"query": "zebra", "path_prefix": "/memories/notes/"})),
                search(
                    json!({"query": "zebra", "path_prefix": "/memories/notes/deep", "limit": 100}),
                ),
                search(json!({"query": "zebra", "path_prefix": "/memories"})),
                search(json!({"query": "zebra", "path_prefix": "/memories/none"})),
                search(json!({"query": "zebra", "limit": null, "path_prefix": null})),
            ],
        ),
        (
            "script/chinese",
            vec![
                create(
                    "/memories/zh/a.md",
                    "用户喜欢使用数据库管理系统。\n第二行：数据\n",
                ),
                create("/memories/zh/b.md", "我爱猫\n"),
                create("/memories/zh/c.md", "資料庫\n"),
                q("数据库"),
                q("库"),
                q("猫"),
                q("管理"),
                q("资料库"),
            ],
        ),
        (
            "script/japanese",
            vec![
                create("/memories/ja/a.md", "東京タワーに行きたい\n"),
                create("/memories/ja/b.md", "ｶﾀｶﾅで書いたメモ\n"),
                create("/memories/ja/c.md", "私はコーヒーが好きです\n"),
                q("タワー"),
                q("カタカナ"),
                q("ｶﾀｶﾅ"),
                q("コーヒー"),
                q("東京"),
            ],
        ),
        (
            "script/korean",
            vec![
                create("/memories/ko/a.md", "한국어를 공부합니다\n"),
                create("/memories/ko/b.md", "API키를 2024년에 바꿨다\n"),
                q("한국어"),
                q("국어"),
                q("키를"),
                q("api"),
                q("년에"),
            ],
        ),
        (
            "script/german",
            vec![
                create("/memories/de/a.md", "Die Straße in Mu\u{308}nchen\n"),
                create("/memories/de/b.md", "GROẞE Größe\n"),
                q("strasse"),
                q("STRAẞE"),
                q("München"),
                q("grosse"),
                q("größe"),
            ],
        ),
        (
            "script/english",
            vec![
                create(
                    "/memories/en/a.md",
                    "set user_id in config.json\ndon't forget\n",
                ),
                create("/memories/en/b.md", "ＦＵＬＬ width text\n"),
                q("user"),
                q("user_id"),
                q("config.json"),
                q("json"),
                q("don't"),
                q("full"),
                q("ｗｉｄｔｈ"),
            ],
        ),
        (
            "never-stale/deleted",
            vec![
                create("/memories/a.md", "zebra crossing\n"),
                create("/memories/b.md", "giraffe\n"),
                q("zebra"),
                tool(json!({"command": "delete", "path": "/memories/a.md"})),
                q("zebra"),
                q("crossing giraffe"),
            ],
        ),
        (
            "never-stale/renamed",
            vec![
                create("/memories/old/name.md", "giraffe neck\n"),
                q("giraffe"),
                tool(
                    json!({"command": "rename", "old_path": "/memories/old", "new_path": "/memories/new"}),
                ),
                q("giraffe"),
                q("old"),
                q("new"),
            ],
        ),
        (
            "never-stale/edited",
            vec![
                create("/memories/a.md", "line one\ngiraffe here\nline three\n"),
                q("giraffe"),
                tool(
                    json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "giraffe", "new_str": "okapi"}),
                ),
                q("giraffe"),
                q("okapi"),
                tool(
                    json!({"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "zebra first\n"}),
                ),
                q("zebra okapi"),
            ],
        ),
        (
            "never-stale/directory-deleted",
            vec![
                create("/memories/d/a.md", "zebra\n"),
                create("/memories/d/e/b.md", "zebra zebra\n"),
                create("/memories/c.md", "zebra and more words here\n"),
                q("zebra"),
                tool(json!({"command": "delete", "path": "/memories/d"})),
                q("zebra"),
            ],
        ),
        (
            "crash-cut/index-lost",
            vec![
                create("/memories/a.md", "zebra crossing\n"),
                create("/memories/b.md", "giraffe\n"),
                q("zebra"),
                Step::DropIndex,
                q("zebra"),
                tool(json!({"command": "delete", "path": "/memories/a.md"})),
                create("/memories/c.md", "zebra again\n"),
                Step::DropIndex,
                q("zebra"),
            ],
        ),
        (
            "crash-cut/table-cut-short",
            vec![
                create("/memories/a.md", "zebra crossing\n"),
                q("zebra"),
                tool(
                    json!({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"}),
                ),
                Step::CutTable,
                q("zebra"),
                q("crossing"),
            ],
        ),
        (
            "crash-cut/writes-after-the-index",
            vec![
                create("/memories/a.md", "zebra crossing\n"),
                q("zebra"),
                // Writes the index has not seen: the next search catches up.
                tool(json!({"command": "delete", "path": "/memories/a.md"})),
                create("/memories/a.md", "okapi\n"),
                create("/memories/b.md", "zebra\n"),
                q("zebra"),
                q("okapi"),
            ],
        ),
        (
            "lines/best-matching",
            vec![
                create(
                    "/memories/a.md",
                    "intro\nthe zebra line\nfiller\nzebra crossing here\nmore filler\nlast zebra crossing\n",
                ),
                q("zebra crossing"),
                q("intro"),
            ],
        ),
        (
            "errors",
            vec![
                create("/memories/a.md", "zebra\n"),
                q(""),
                q("   "),
                q(&"x".repeat(257)),
                q("!!! ???"),
                search(json!({"query": "zebra", "limit": 0})),
                search(json!({"query": "zebra", "limit": 101})),
                search(json!({"query": "zebra", "limit": 2.5})),
                search(json!({"query": "zebra", "limit": "3"})),
                search(json!({"query": "zebra", "path_prefix": "/tmp"})),
                search(json!({"query": "zebra", "path_prefix": "/memories/../x"})),
                search(json!({"query": "zebra", "path_prefix": 3})),
                search(json!({"query": 3})),
                search(json!({})),
                search(json!(["zebra"])),
            ],
        ),
    ]
}

/// Deletes every key under `index/` of `store`.
fn drop_index(store: &impl Store) {
    for k in block_on(memdir::list_all(store, "index/")).unwrap() {
        block_on(store.delete(&k)).unwrap();
    }
}

/// Deletes every key under `vec/` of `store`.
fn drop_vectors(store: &impl Store) {
    for k in block_on(memdir::list_all(store, "vec/")).unwrap() {
        block_on(store.delete(&k)).unwrap();
    }
}

/// Checks a semantic or hybrid answer: each semantic hit's score within int8's
/// error of the float32 cosine of the test embedder's vectors, best first; each
/// hybrid hit's score the reciprocal-rank sum, every lexical hit present when
/// the limit leaves room.
fn agrees_with_meaning(engine: &Engine<MemoryStore>, options: &Value, answer: &Value, what: &str) {
    let hits = answer.as_array().unwrap();
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "{what}: best first"
    );
    let files = live(engine);
    let query = options["query"].as_str().unwrap();
    let unit = |v: Vec<f32>| {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect::<Vec<f32>>()
    };
    let qv = unit(test_vector(query, 384));
    if options["mode"] == "semantic" {
        for h in hits {
            let p = h["path"]
                .as_str()
                .unwrap()
                .strip_prefix("/memories")
                .unwrap();
            let dv = unit(test_vector(&files[p], 384));
            let exact: f32 = qv.iter().zip(&dv).map(|(a, b)| a * b).sum();
            let got = h["score"].as_f64().unwrap();
            assert!(
                (got - f64::from(exact)).abs() < 0.01,
                "{what}: {p} {got} vs {exact}"
            );
        }
    } else {
        let oracle = Bm25::new(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
        let lexical = oracle.rank(query, None);
        let limit = options["limit"]
            .as_u64()
            .map_or(SEARCH_DEFAULT_LIMIT, |l| l as usize);
        if options.get("path_prefix").is_none() && lexical.len() <= limit {
            for (p, _) in &lexical {
                let shown = format!("/memories{p}");
                assert!(
                    hits.iter().any(|h| h["path"] == shown.as_str()),
                    "{what}: the keyword hit {shown} was dropped"
                );
            }
        }
        for s in &scores {
            assert!(
                *s > 0.0 && *s <= 2.0 / 61.0 + 1e-12,
                "{what}: {s} is no RRF sum"
            );
        }
    }
}

fn cut_table(store: &impl Store) {
    let v = block_on(store.get("index/head")).unwrap().unwrap();
    block_on(store.set("index/head", &v[..10])).unwrap();
}

/// The live files of `engine`: store path → text.
fn live(engine: &Engine<MemoryStore>) -> BTreeMap<String, String> {
    block_on(engine.entries())
        .unwrap()
        .into_iter()
        .filter_map(|e| Some((e.path.strip_prefix("/memories")?.to_string(), e.content?)))
        .collect()
}

/// Checks an answer's paths, order and scores against the plain BM25F.
fn agrees_with_bm25(engine: &Engine<MemoryStore>, options: &Value, answer: &Value, what: &str) {
    let files = live(engine);
    let oracle = Bm25::new(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let query = options["query"].as_str().unwrap();
    let limit = options["limit"]
        .as_u64()
        .map_or(SEARCH_DEFAULT_LIMIT, |l| l as usize);
    let under = options["path_prefix"]
        .as_str()
        .map(|p| {
            p.trim_end_matches('/')
                .strip_prefix("/memories")
                .unwrap()
                .to_string()
        })
        .filter(|p| !p.is_empty());
    let want: Vec<(String, f64)> = oracle
        .rank(query, under.as_deref())
        .into_iter()
        .take(limit)
        .map(|(p, s)| (format!("/memories{p}"), s))
        .collect();
    let got: Vec<(String, f64)> = answer
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["path"].as_str().unwrap().to_string(),
                h["score"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got.iter().map(|h| &h.0).collect::<Vec<_>>(),
        want.iter().map(|h| &h.0).collect::<Vec<_>>(),
        "{what}: order"
    );
    for ((p, g), (_, w)) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= EPS,
            "{what}: {p} scored {g}, plain BM25F {w}"
        );
    }
}

/// The cases with their answers, made on the native engine and each checked
/// against the plain BM25F.
fn data() -> Value {
    let mut out = Vec::new();
    let plain = cases().into_iter().map(|c| (c, None));
    let meaning = semantic_cases()
        .into_iter()
        .map(|c| (c, Some(TEST_EMBEDDER)));
    for ((name, steps), embedder) in plain.chain(meaning) {
        let store = MemoryStore::new();
        let engine = with_embedder(Engine::new(store.clone(), Config::default()), embedder);
        let mut json_steps = Vec::new();
        for (i, step) in steps.into_iter().enumerate() {
            let what = format!("{name} step {i}");
            json_steps.push(match step {
                Step::Tool(input) => {
                    let r = block_on(engine.execute(&input));
                    assert!(!r.is_error, "{what}: {}", r.content);
                    json!({"tool": input})
                }
                Step::DropIndex => {
                    drop_index(&store);
                    json!({"drop_index": true})
                }
                Step::CutTable => {
                    cut_table(&store);
                    json!({"cut_table": true})
                }
                Step::DropVectors => {
                    drop_vectors(&store);
                    json!({"drop_vectors": true})
                }
                Step::Search(options) => match block_on(engine.search_json(&options)) {
                    Ok(answer) => {
                        let lexical = embedder.is_none() || options["mode"] == "lexical";
                        if lexical {
                            agrees_with_bm25(&engine, &options, &answer, &what);
                        } else {
                            agrees_with_meaning(&engine, &options, &answer, &what);
                        }
                        json!({"search": options, "answer": answer})
                    }
                    Err(e) => json!({"search": options, "error": e.to_string()}),
                },
            });
        }
        match embedder {
            Some(e) => out.push(json!({"name": name, "embedder": e, "steps": json_steps})),
            None => out.push(json!({"name": name, "steps": json_steps})),
        }
    }
    json!({
        "about": "memory.search's exact answers after memory-tool writes and crash cuts; see tests/conformance/README.md. Made by tests/all/search_conformance.rs (MEMDIR_REGENERATE=1), which checks every answer against a plain BM25F, and a case naming an embedder (the test embedder, examples/embedders/test-embedder.mjs) against float32 cosines and reciprocal-rank fusion.",
        "cases": out,
    })
}

/// Every `"score": …` of the file's text, in order, parsed correctly rounded
/// (serde_json's own parsing of a float may be an ulp off; `str::parse` is not).
fn scores_of(text: &str) -> Vec<f64> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("\"score\": "))
        .map(|n| n.trim_end_matches(',').parse::<f64>().unwrap())
        .collect()
}

/// `answer` with each hit's score taken out, in order, into `scores`.
fn without_scores(answer: &Value, scores: &mut Vec<f64>) -> Value {
    let mut a = answer.clone();
    for hit in a.as_array_mut().unwrap() {
        let s = hit.as_object_mut().unwrap().remove("score").unwrap();
        scores.push(s.as_f64().unwrap());
    }
    a
}

/// Runs the file's `cases` as every runner does, each on an engine over a fresh
/// store: `engine` opened over `store` (the same for every step), answers compared
/// as JSON values, each score as the double its text parses to.
fn run_file(data: &Value, text: &str) -> usize {
    let want_scores = scores_of(text);
    let mut got_scores = Vec::new();
    let mut ignored = Vec::new();
    let mut checked = 0;
    for case in data["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let store = common::Harness::new(MemoryStore::new());
        let raw = store.inner.clone();
        let engine = with_embedder(
            Engine::new(store, Config::default()),
            case["embedder"].as_str(),
        );
        for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            let what = format!("{name} step {i}");
            if let Some(input) = step.get("tool") {
                let r = block_on(engine.execute(input));
                assert!(!r.is_error, "{what}: {}", r.content);
            } else if step.get("drop_index").is_some() {
                drop_index(&raw);
            } else if step.get("cut_table").is_some() {
                cut_table(&raw);
            } else if step.get("drop_vectors").is_some() {
                drop_vectors(&raw);
            } else {
                let got = block_on(engine.search_json(&step["search"]));
                match (got, step.get("answer"), step.get("error")) {
                    (Ok(got), Some(want), None) => {
                        let got = without_scores(&got, &mut got_scores);
                        assert_eq!(got, without_scores(want, &mut ignored), "{what}");
                        let n = got_scores.len();
                        assert_eq!(
                            got_scores,
                            want_scores[..n.min(want_scores.len())],
                            "{what}: the scores, exactly"
                        );
                    }
                    (Err(e), None, Some(want)) => {
                        assert_eq!(Value::String(e.to_string()), *want, "{what}")
                    }
                    (got, answer, error) => {
                        panic!("{what}: got {got:?}, want {answer:?} / {error:?}")
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(got_scores.len(), want_scores.len());
    checked
}

#[test]
fn the_search_conformance_data_is_what_the_engine_answers() {
    let made = data();
    let text = serde_json::to_string_pretty(&made).unwrap() + "\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/search.json");
    if std::env::var_os("MEMDIR_REGENERATE").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        on_disk == text,
        "tests/conformance/search.json is stale: run MEMDIR_REGENERATE=1 cargo test -p memdir --test all search_conformance::"
    );
    let file: Value = serde_json::from_str(&on_disk).unwrap();
    let searches = run_file(&file, &on_disk);
    assert!(searches >= 80, "{searches} searches");
}
