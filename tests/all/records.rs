//! Seed 002's records toolset (src/records): its definitions are the seed's, and
//! `memory_store`, `memory_retrieve` and `memory_delete` answer exactly, rank by
//! relevance times decayed importance, honour categories, min_importance and
//! expiry, replace near duplicates, prune to the capacity and keep a delete's
//! reason in its version.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::Cell;
use std::rc::Rc;

use memdir::RecordsError;
use memdir::config::Config;
use memdir::records::{Settings, TOOLS};
use memdir::{Engine, MemoryStore, block_on};
use serde_json::{Value, json};

use crate::common;

const DAY: u64 = 86_400_000;
/// 2026-11-18T11:06:40Z.
const T0: u64 = 1_795_000_000_000;

/// Every key and value of the store but the search index's: a search (a
/// retrieval, the comparison a store makes) brings the index up to the head and
/// saves it, which changes no memory.
fn memories(store: &MemoryStore) -> Vec<(String, Vec<u8>)> {
    let mut all = common::dump(store);
    all.retain(|(k, _)| !k.starts_with("index/"));
    all
}

struct T {
    engine: Engine<MemoryStore>,
    store: MemoryStore,
    now: Rc<Cell<u64>>,
}

/// An engine whose clock stands at `T0` until the test moves it, over a store
/// with a store record (its ids carry the tag `abcdefghjkmn`).
fn setup() -> T {
    let store = MemoryStore::new();
    let mut engine = Engine::new(
        store.clone(),
        Config {
            actor: "sesn_test".into(),
            ..Config::default()
        },
    );
    let now = Rc::new(Cell::new(T0));
    let clock = now.clone();
    engine.set_clock(Box::new(move || clock.get()));
    let made = block_on(engine.api(&json!({
        "op": "store.create", "id": common::STORE_ID, "body": r#"{"name":"Prefs"}"#
    })));
    assert_eq!(made.status, 200, "{:?}", made.body);
    T { engine, store, now }
}

impl T {
    fn call(&self, s: &Settings, name: &str, input: Value) -> Result<Value, RecordsError> {
        block_on(self.engine.records(name, &input, s, None))
    }

    fn ok(&self, name: &str, input: Value) -> String {
        self.ok_with(&Settings::default(), name, input)
    }

    fn ok_with(&self, s: &Settings, name: &str, input: Value) -> String {
        let v = self
            .call(s, name, input.clone())
            .unwrap_or_else(|e| panic!("{name} {input} -> {e}"));
        serde_json::to_string(&v).unwrap()
    }

    /// The text and kind of a call that must fail, checking it changed nothing.
    fn err(&self, name: &str, input: Value) -> (String, &'static str) {
        let before = memories(&self.store);
        let e = self
            .call(&Settings::default(), name, input.clone())
            .unwrap_err();
        assert_eq!(
            memories(&self.store),
            before,
            "{name} {input} changed the store"
        );
        (e.to_string(), e.kind())
    }

    fn api(&self, request: Value) -> Value {
        let r = block_on(self.engine.api(&request));
        assert_eq!(r.status, 200, "{request} -> {:?}", r.body);
        r.body
    }

    fn at(&self, ms: u64) {
        self.now.set(ms);
    }

    /// The BM25 score the engine's search gives the document at `path` for `query`.
    fn bm25(&self, query: &str, path: &str) -> f64 {
        let found = block_on(self.engine.search(query, 100, Some("/records"))).unwrap();
        found
            .hits
            .iter()
            .find(|h| h.path == path)
            .unwrap_or_else(|| panic!("{path} not found for {query}"))
            .score
    }
}

/// A JSON value with every `description` taken out.
fn without_descriptions(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "description")
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_tools_are_the_seeds_with_its_schemas() {
    // Chapter 25.2 of the seed, descriptions left out (the seed's are Chinese; the
    // tools say the same in English).
    let seed = [
        (
            "memory_store",
            json!({"type": "object", "properties": {
                "content": {"type": "string"},
                "category": {"type": "string", "enum": ["user_preference", "project_context", "factual_knowledge", "decision_log", "relationship", "task_progress"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "importance": {"type": "integer", "minimum": 1, "maximum": 5},
                "expires_at": {"type": "string", "format": "date-time"}},
                "required": ["content", "category", "importance"]}),
        ),
        (
            "memory_retrieve",
            json!({"type": "object", "properties": {
                "query": {"type": "string"},
                "categories": {"type": "array", "items": {"type": "string"}},
                "limit": {"type": "integer", "default": 10},
                "min_importance": {"type": "integer", "minimum": 1, "maximum": 5, "default": 1}},
                "required": ["query"]}),
        ),
        (
            "memory_delete",
            json!({"type": "object", "properties": {
                "memory_id": {"type": "string"},
                "reason": {"type": "string"}},
                "required": ["memory_id", "reason"]}),
        ),
    ];
    assert_eq!(TOOLS.len(), seed.len());
    for (tool, (name, schema)) in TOOLS.iter().zip(seed) {
        assert_eq!(tool.name, name);
        let parsed: Value = serde_json::from_str(tool.input_schema).unwrap();
        assert_eq!(without_descriptions(&parsed), schema, "{name}");
        // Every property says what it is for, as the seed's do.
        for (field, p) in parsed["properties"].as_object().unwrap() {
            assert!(
                p["description"].as_str().is_some_and(|d| d.ends_with('.')),
                "{name}.{field}"
            );
        }
        assert_eq!(tool.read_only, name == "memory_retrieve");
    }
    assert_eq!(
        TOOLS[0].description,
        "Store important information in the persistent memory system. Call this tool when you find information that will be useful in the future (user preferences, project progress, key decisions, important facts)."
    );
}

#[test]
fn a_record_is_a_memory_document_retrieved_and_deleted_by_its_id() {
    let t = setup();
    let stored = t.ok(
        "memory_store",
        json!({"content": "The user writes Python with FastAPI, async/await style.",
               "category": "user_preference", "tags": ["python", "fastapi"], "importance": 5}),
    );
    assert_eq!(
        stored,
        r#"{"memory_id":"mem_abcdefghjkmn_1","success":true}"#
    );
    // The document every face sees: the API's memory, the memory tool's file.
    let memory = t.api(json!({"op": "memory.retrieve", "id": "mem_abcdefghjkmn_1"}));
    let path = "/records/user_preference/f910bdb7c957.md";
    assert_eq!(memory["path"], path);
    let text = "---\nimportance: 5\ntags: [\"python\",\"fastapi\"]\ncreated: 2026-11-18T11:06:40.000Z\n---\nThe user writes Python with FastAPI, async/await style.";
    assert_eq!(memory["content"], text);
    let viewed = block_on(
        t.engine
            .execute(&json!({"command": "view", "path": format!("/memories{path}")})),
    );
    assert!(
        viewed
            .content
            .ends_with("     6\tThe user writes Python with FastAPI, async/await style."),
        "{}",
        viewed.content
    );

    let score = t.bm25("async python", path) * 5.0;
    let found = t.ok("memory_retrieve", json!({"query": "async python"}));
    assert_eq!(
        found,
        format!(
            r#"{{"memories":[{{"category":"user_preference","content":"The user writes Python with FastAPI, async/await style.","created_at":"2026-11-18T11:06:40.000Z","id":"mem_abcdefghjkmn_1","importance":5,"score":{},"tags":["python","fastapi"]}}]}}"#,
            serde_json::to_string(&score).unwrap()
        )
    );
    assert_eq!(
        t.ok("memory_retrieve", json!({"query": "kubernetes"})),
        r#"{"memories":[]}"#
    );

    t.at(T0 + 1000);
    assert_eq!(
        t.ok(
            "memory_delete",
            json!({"memory_id": "mem_abcdefghjkmn_1", "reason": "The user switched to Go."})
        ),
        r#"{"success":true}"#
    );
    assert_eq!(
        t.ok("memory_retrieve", json!({"query": "async python"})),
        r#"{"memories":[]}"#
    );
    // The reason is in the deleted version, by the configured actor.
    let versions =
        t.api(json!({"op": "version.list", "query": {"memory_id": "mem_abcdefghjkmn_1"}}));
    let deleted = &versions["data"][0];
    assert_eq!(
        (
            &deleted["operation"],
            &deleted["reason"],
            &deleted["created_by"]["session_id"]
        ),
        (
            &json!("deleted"),
            &json!("The user switched to Go."),
            &json!("sesn_test")
        )
    );
    // The created version has none: every other version object is unchanged.
    assert_eq!(versions["data"][1].get("reason"), None);
    assert_eq!(
        t.err("memory_delete", json!({"memory_id": "mem_abcdefghjkmn_1", "reason": "again"})),
        (
            "No memory record has the id \"mem_abcdefghjkmn_1\"; memory_retrieve shows the records and their ids.".into(),
            "not_found"
        )
    );
}

#[test]
fn importance_decays_with_the_half_life() {
    let t = setup();
    let content = "Deploys go through the staging cluster first.";
    t.ok(
        "memory_store",
        json!({"content": content, "category": "decision_log", "importance": 4}),
    );
    t.at(T0 + 60 * DAY);
    t.ok(
        "memory_store",
        json!({"content": content, "category": "project_context", "importance": 3}),
    );
    let old = "/records/decision_log/abc999be4002.md";
    let new = "/records/project_context/abc999be4002.md";
    let ids = |answer: &str| -> Vec<(String, f64)> {
        let v: Value = serde_json::from_str(answer).unwrap();
        v["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["id"].as_str().unwrap().to_string(),
                    m["score"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    // Sixty days on, at a half-life of 30: the old 4 counts 1, the new 3 counts 3.
    let got = ids(&t.ok("memory_retrieve", json!({"query": "staging cluster"})));
    let (s_old, s_new) = (
        t.bm25("staging cluster", old),
        t.bm25("staging cluster", new),
    );
    assert_eq!(got[0].0, "mem_abcdefghjkmn_2");
    assert_eq!(got[1].0, "mem_abcdefghjkmn_1");
    assert!((got[0].1 - s_new * 3.0).abs() < 1e-9, "{got:?}");
    assert!((got[1].1 - s_old * 1.0).abs() < 1e-9, "{got:?}");
    // At a half-life of 1,000 days the old 4 still counts more than the new 3.
    let slow = Settings {
        half_life_days: 1000.0,
        ..Settings::default()
    };
    let got = ids(&t.ok_with(
        &slow,
        "memory_retrieve",
        json!({"query": "staging cluster"}),
    ));
    assert_eq!(got[0].0, "mem_abcdefghjkmn_1");
    let want = s_old * 4.0 * 2f64.powf(-60.0 / 1000.0);
    assert!((got[0].1 - want).abs() < 1e-9, "{got:?}");
}

#[test]
fn retrieval_honours_categories_min_importance_and_expiry() {
    let t = setup();
    t.ok("memory_store", json!({"content": "Tea with oat milk, no sugar.", "category": "user_preference", "importance": 2}));
    t.ok("memory_store", json!({"content": "Sprint goal: ship the milk ordering page.", "category": "task_progress", "importance": 4,
        "expires_at": "2026-11-18T13:06:40+01:00"}));
    let ids = |input: Value| -> Vec<String> {
        let v: Value = serde_json::from_str(&t.ok("memory_retrieve", input)).unwrap();
        v["memories"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(json!({"query": "milk"})).len(), 2);
    assert_eq!(ids(json!({"query": "milk", "categories": []})).len(), 2);
    assert_eq!(
        ids(json!({"query": "milk", "categories": ["user_preference"]})),
        ["mem_abcdefghjkmn_1"]
    );
    assert_eq!(
        ids(json!({"query": "milk", "min_importance": 3})),
        ["mem_abcdefghjkmn_2"]
    );
    assert_eq!(ids(json!({"query": "milk", "limit": 1})).len(), 1);
    // A field the seed's schema does not name is allowed by it, and ignored.
    assert_eq!(
        ids(json!({"query": "milk", "user_id": "user_001"})).len(),
        2
    );
    // The header keeps the expiry in UTC; at it, the record is never returned.
    let doc = t.api(json!({"op": "memory.retrieve", "id": "mem_abcdefghjkmn_2"}));
    assert_eq!(
        doc["content"],
        "---\nimportance: 4\ntags: []\ncreated: 2026-11-18T11:06:40.000Z\nexpires_at: 2026-11-18T12:06:40.000Z\n---\nSprint goal: ship the milk ordering page."
    );
    t.at(T0 + 3_600_000 - 1);
    assert_eq!(
        ids(json!({"query": "milk", "min_importance": 3})),
        ["mem_abcdefghjkmn_2"]
    );
    t.at(T0 + 3_600_000);
    assert_eq!(ids(json!({"query": "milk"})), ["mem_abcdefghjkmn_1"]);
    assert_eq!(
        t.err("memory_retrieve", json!({"query": "milk", "categories": ["todo"]})),
        (
            "Invalid input for memory_retrieve: each of categories must be one of user_preference, project_context, factual_knowledge, decision_log, relationship and task_progress, not \"todo\".".into(),
            "input"
        )
    );
}

#[test]
fn a_near_duplicate_in_its_category_is_replaced_as_a_new_version() {
    let t = setup();
    // Six terms; the next text shares five of its six (Jaccard 5/6 ≥ 0.8).
    let first = "alpha bravo charlie delta echo foxtrot";
    assert_eq!(
        t.ok(
            "memory_store",
            json!({"content": first, "category": "factual_knowledge", "importance": 2})
        ),
        r#"{"memory_id":"mem_abcdefghjkmn_1","success":true}"#
    );
    t.at(T0 + DAY);
    assert_eq!(
        t.ok("memory_store", json!({"content": "alpha bravo charlie delta echo", "category": "factual_knowledge", "importance": 3, "tags": ["nato"]})),
        r#"{"memory_id":"mem_abcdefghjkmn_1","replaced":true,"success":true}"#
    );
    let doc = t.api(json!({"op": "memory.retrieve", "id": "mem_abcdefghjkmn_1"}));
    assert_eq!(
        (&doc["path"], &doc["content"]),
        (
            &json!("/records/factual_knowledge/bcb23d4e4e5d.md"),
            &json!(
                "---\nimportance: 3\ntags: [\"nato\"]\ncreated: 2026-11-19T11:06:40.000Z\n---\nalpha bravo charlie delta echo"
            )
        )
    );
    let versions =
        t.api(json!({"op": "version.list", "query": {"memory_id": "mem_abcdefghjkmn_1"}}));
    let ops: Vec<&Value> = versions["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["operation"])
        .collect();
    assert_eq!(ops, [&json!("modified"), &json!("created")]);
    // Four of six shared (Jaccard 4/6): a record of its own.
    assert_eq!(
        t.ok("memory_store", json!({"content": "alpha bravo charlie delta golf hotel", "category": "factual_knowledge", "importance": 3})),
        r#"{"memory_id":"mem_abcdefghjkmn_3","success":true}"#
    );
    // The same text in another category: a record of its own too.
    assert_eq!(
        t.ok("memory_store", json!({"content": "alpha bravo charlie delta echo", "category": "relationship", "importance": 3})),
        r#"{"memory_id":"mem_abcdefghjkmn_4","success":true}"#
    );
    // At a similarity of 0.6 the 4/6 text replaces the closest record.
    let loose = Settings {
        similarity: 0.6,
        ..Settings::default()
    };
    assert_eq!(
        t.ok_with(&loose, "memory_store", json!({"content": "alpha bravo charlie delta golf india", "category": "factual_knowledge", "importance": 1})),
        r#"{"memory_id":"mem_abcdefghjkmn_3","replaced":true,"success":true}"#
    );
}

#[test]
fn past_the_capacity_the_lowest_effective_importance_is_pruned() {
    let t = setup();
    let small = Settings {
        capacity: 3,
        ..Settings::default()
    };
    let store = |content: &str, importance: u64| {
        t.ok_with(
            &small,
            "memory_store",
            json!({"content": content, "category": "task_progress", "importance": importance}),
        )
    };
    store("Wrote the parser for the config files.", 5);
    t.at(T0 + 90 * DAY);
    store("Reviewed the storage layer with Ana.", 2);
    store("Benchmarked the index on ten thousand notes.", 3);
    // Ninety days on, the first 5 counts 5/8, below the fresh 2: it goes.
    assert_eq!(
        store("Released version two of the command line tool.", 1),
        r#"{"memory_id":"mem_abcdefghjkmn_4","pruned":["mem_abcdefghjkmn_1"],"success":true}"#
    );
    let deleted =
        t.api(json!({"op": "version.list", "query": {"memory_id": "mem_abcdefghjkmn_1"}}));
    assert_eq!(
        (
            &deleted["data"][0]["operation"],
            &deleted["data"][0]["reason"]
        ),
        (&json!("deleted"), &json!("capacity pruning"))
    );
    // The record just stored is never the one pruned, however low it counts.
    t.at(T0 + 91 * DAY);
    assert_eq!(
        store("Fixed the flaky sync test.", 1),
        r#"{"memory_id":"mem_abcdefghjkmn_6","pruned":["mem_abcdefghjkmn_4"],"success":true}"#
    );
    let listed = t.api(json!({"op": "memory.list", "query": {"path_prefix": "/records/"}}));
    assert_eq!(listed["data"].as_array().unwrap().len(), 3);
}

#[test]
fn bad_input_is_refused_in_words_and_changes_nothing() {
    let t = setup();
    t.ok(
        "memory_store",
        json!({"content": "Kept.", "category": "relationship", "importance": 1}),
    );
    for (name, input, text) in [
        (
            "memory_store",
            json!([]),
            "Invalid input for memory_store: the input must be a JSON object, got an array.",
        ),
        (
            "memory_store",
            json!({"category": "relationship", "importance": 1}),
            "Invalid input for memory_store: content is required.",
        ),
        (
            "memory_store",
            json!({"content": "  ", "category": "relationship", "importance": 1}),
            "Invalid input for memory_store: content must not be empty.",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "friends", "importance": 1}),
            "Invalid input for memory_store: category must be one of user_preference, project_context, factual_knowledge, decision_log, relationship and task_progress, not \"friends\".",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "relationship", "importance": 6}),
            "Invalid input for memory_store: importance must be a whole number from 1 to 5, got 6.",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "relationship", "importance": 2.5}),
            "Invalid input for memory_store: importance must be a whole number from 1 to 5, got 2.5.",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "relationship", "importance": 1, "tags": "a"}),
            "Invalid input for memory_store: tags must be an array of strings, got a string.",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "relationship", "importance": 1, "tags": [1]}),
            "Invalid input for memory_store: tags must be an array of strings, but holds a number.",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "relationship", "importance": 1, "tags": ["a\nb"]}),
            "Invalid input for memory_store: each tag must be 1 to 64 characters without control characters, not \"a\\nb\".",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "relationship", "importance": 1, "expires_at": "next week"}),
            "Invalid input for memory_store: expires_at must be an ISO 8601 date-time such as 2026-12-31T00:00:00Z, not \"next week\".",
        ),
        (
            "memory_store",
            json!({"content": "x", "category": "relationship", "importance": 1, "expires_at": "2020-01-01T00:00:00Z"}),
            "Invalid input for memory_store: expires_at 2020-01-01T00:00:00.000Z has already passed (it is now 2026-11-18T11:06:40.000Z); nothing was stored.",
        ),
        (
            "memory_retrieve",
            json!({"query": ""}),
            "Invalid input for memory_retrieve: The search query is empty: give the words to look for.",
        ),
        (
            "memory_retrieve",
            json!({"query": "x", "limit": 0}),
            "Invalid input for memory_retrieve: limit must be a whole number from 1 to 100, got 0.",
        ),
        (
            "memory_retrieve",
            json!({"query": "x", "min_importance": "high"}),
            "Invalid input for memory_retrieve: min_importance must be a whole number from 1 to 5, got a string.",
        ),
        (
            "memory_delete",
            json!({"memory_id": "mem_abcdefghjkmn_1"}),
            "Invalid input for memory_delete: reason is required.",
        ),
        (
            "memory_delete",
            json!({"memory_id": "mem_abcdefghjkmn_1", "reason": " "}),
            "Invalid input for memory_delete: reason must not be empty.",
        ),
        (
            "memory_delete",
            json!({"memory_id": "mem_abcdefghjkmn_1", "reason": "r".repeat(1001)}),
            "Invalid input for memory_delete: reason is 1,001 characters long; the most is 1,000.",
        ),
        (
            "memory_delete",
            json!({"memory_id": 7, "reason": "r"}),
            "Invalid input for memory_delete: memory_id must be a string, got a number.",
        ),
        (
            "memory_delete",
            json!({"memory_id": "mem_other_1", "reason": "r"}),
            "No memory record has the id \"mem_other_1\"; memory_retrieve shows the records and their ids.",
        ),
        (
            "memory_forget",
            json!({}),
            "Unknown tool \"memory_forget\". The memory record tools are memory_store, memory_retrieve and memory_delete.",
        ),
    ] {
        let (got, _) = t.err(name, input.clone());
        assert_eq!(got, text, "{name} {input}");
    }
    // A document that is not a record is not the records toolset's to delete.
    t.api(json!({"op": "memory.create", "body": r#"{"path":"/notes/a.md","content":"hi"}"#}));
    assert_eq!(
        t.err(
            "memory_delete",
            json!({"memory_id": "mem_abcdefghjkmn_2", "reason": "r"})
        )
        .0,
        "No memory record has the id \"mem_abcdefghjkmn_2\"; memory_retrieve shows the records and their ids."
    );
    for (s, text) in [
        (
            Settings {
                capacity: 0,
                ..Settings::default()
            },
            "capacity must be a whole number from 1 to 10000, not 0.",
        ),
        (
            Settings {
                half_life_days: 0.0,
                ..Settings::default()
            },
            "halfLifeDays must be a number of days above 0 and at most 36500, not 0.",
        ),
        (
            Settings {
                similarity: 1.5,
                ..Settings::default()
            },
            "similarity must be a number above 0 and at most 1, not 1.5.",
        ),
    ] {
        let e = t
            .call(&s, "memory_retrieve", json!({"query": "kept"}))
            .unwrap_err();
        assert_eq!((e.to_string().as_str(), e.kind()), (text, "settings"));
    }
}

#[test]
fn a_record_ranked_lower_by_words_but_more_important_still_comes_first() {
    let t = setup();
    t.ok("memory_store", json!({"content": "Coffee. Coffee in the morning, coffee after lunch.", "category": "user_preference", "importance": 1}));
    t.ok("memory_store", json!({"content": "Allergic to hazelnut, so no hazelnut coffee syrup, ever, at any meeting.", "category": "user_preference", "importance": 5}));
    let (words, important) = (
        t.bm25("coffee", "/records/user_preference/5214a77c5d3e.md"),
        t.bm25("coffee", "/records/user_preference/9f148f994813.md"),
    );
    assert!(
        words > important && words < important * 5.0,
        "{words} {important}"
    );
    // With one result asked for, reading stops only once no later record could
    // beat the first kept at the highest importance: the second is still read.
    let one = t.ok("memory_retrieve", json!({"query": "coffee", "limit": 1}));
    let v: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v["memories"][0]["id"], "mem_abcdefghjkmn_2");
    assert_eq!(v["memories"].as_array().unwrap().len(), 1);
}

#[test]
fn across_mounted_stores_an_id_names_its_store() {
    use memdir::mounts::{Access, Mount, Mounted};
    let mount = |name: &str, access| Mount {
        name: name.into(),
        access,
        description: String::new(),
        instructions: String::new(),
    };
    let engine = |store: &MemoryStore, name: &str, read_only| {
        let mut e = Engine::new(
            store.clone(),
            Config {
                mount: name.into(),
                read_only,
                ..Config::default()
            },
        );
        e.set_clock(Box::new(|| T0));
        e
    };
    let (team, me) = (MemoryStore::new(), MemoryStore::new());
    // The read-only team store already holds a record, written on its own.
    let alone = engine(&team, "", false);
    let s = Settings::default();
    let made = block_on(alone.records(
        "memory_store",
        &json!({"content": "The team deploys on Tuesdays.", "category": "project_context", "importance": 3}),
        &s,
        None,
    ))
    .unwrap();
    assert_eq!(made["memory_id"], "mem_local_1");
    let memory = Mounted::new(vec![
        (mount("team", Access::ReadOnly), engine(&team, "team", true)),
        (mount("me", Access::ReadWrite), engine(&me, "me", false)),
    ])
    .unwrap();
    let call = |name: &str, input: Value| {
        block_on(memory.records_json(name, &input.to_string(), &s, None))
    };
    // Stored in the first read-write store; both stores' ids are alike on their own.
    assert_eq!(
        call("memory_store", json!({"content": "I deploy on Fridays, never Tuesdays.", "category": "user_preference", "importance": 2})).unwrap(),
        r#"{"memory_id":"me/mem_local_1","success":true}"#
    );
    let found: Value = serde_json::from_str(
        &call("memory_retrieve", json!({"query": "deploy tuesdays"})).unwrap(),
    )
    .unwrap();
    let ids: Vec<&str> = found["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["team/mem_local_1", "me/mem_local_1"]);
    // A delete goes to the store its id names: the read-only one refuses.
    assert_eq!(
        call(
            "memory_delete",
            json!({"memory_id": "team/mem_local_1", "reason": "wrong"})
        )
        .unwrap_err()
        .to_string(),
        "Cannot delete a memory record: the memory store at /team is read-only; nothing was written."
    );
    assert_eq!(
        call(
            "memory_delete",
            json!({"memory_id": "mem_local_1", "reason": "no store named"})
        )
        .unwrap_err()
        .to_string(),
        "No memory record has the id \"mem_local_1\"; memory_retrieve shows the records and their ids."
    );
    assert_eq!(
        call(
            "memory_delete",
            json!({"memory_id": "me/mem_local_1", "reason": "moved"})
        )
        .unwrap(),
        r#"{"success":true}"#
    );
    assert_eq!(
        call(
            "memory_delete",
            json!({"memory_id": "me/mem_local_1", "reason": "again"})
        )
        .unwrap_err()
        .to_string(),
        "No memory record has the id \"me/mem_local_1\"; memory_retrieve shows the records and their ids."
    );
}

#[test]
fn a_store_the_api_refuses_writes_nothing_and_says_why() {
    let store = MemoryStore::new();
    let mut engine = Engine::new(
        store.clone(),
        Config {
            limits: memdir::config::Limits {
                max_memories: 1,
                max_file_bytes: 200,
                ..memdir::config::Limits::default()
            },
            ..Config::default()
        },
    );
    engine.set_clock(Box::new(|| T0));
    let s = Settings::default();
    let call = |input: Value| block_on(engine.records("memory_store", &input, &s, None));
    call(json!({"content": "One.", "category": "relationship", "importance": 1})).unwrap();
    for (input, text) in [
        (
            json!({"content": "Two, a record of its own.", "category": "relationship", "importance": 1}),
            "This memory store holds 1 memories, the most it may; delete some first.",
        ),
        (
            json!({"content": "x".repeat(300), "category": "relationship", "importance": 1}),
            "Invalid input for memory_store: content is too long: with its header the record would be 365 bytes, and a document may be at most 200.",
        ),
    ] {
        let before = memories(&store);
        let e = call(input).unwrap_err();
        assert_eq!(memories(&store), before);
        assert_eq!(e.to_string(), text);
    }
}

#[test]
fn two_writers_storing_one_text_at_once_make_one_record() {
    let store = MemoryStore::new();
    let engines: Vec<Engine<common::Harness<MemoryStore>>> = (0..2)
        .map(|_| {
            let mut h = common::Harness::new(store.clone());
            h.yielding = true;
            let mut e = Engine::new(h, Config::default());
            e.set_clock(Box::new(|| T0));
            e
        })
        .collect();
    let s = Settings::default();
    let input = json!({"content": "The build runs on every push to main.", "category": "project_context", "importance": 3});
    let answers = common::run_interleaved(
        engines
            .iter()
            .map(|e| e.records("memory_store", &input, &s, None))
            .collect(),
    );
    let mut texts: Vec<String> = answers
        .into_iter()
        .map(|a| serde_json::to_string(&a.unwrap()).unwrap())
        .collect();
    texts.sort();
    // One created it; the other found it while naming its own and replaced it.
    assert_eq!(
        texts,
        [
            r#"{"memory_id":"mem_local_1","replaced":true,"success":true}"#,
            r#"{"memory_id":"mem_local_1","success":true}"#,
        ]
    );
    let alone = Engine::new(store.clone(), Config::default());
    let listed =
        block_on(alone.api(&json!({"op": "memory.list", "query": {"path_prefix": "/records/"}})));
    assert_eq!(
        listed.body["data"].as_array().unwrap().len(),
        1,
        "{}",
        listed.body
    );
}

#[test]
fn an_archived_store_refuses_a_record_before_anything_is_written() {
    let t = setup();
    t.ok(
        "memory_store",
        json!({"content": "Kept while archived.", "category": "decision_log", "importance": 2}),
    );
    t.api(json!({"op": "store.archive"}));
    let before = common::dump(&t.store);
    let e = t
        .call(
            &Settings::default(),
            "memory_store",
            json!({"content": "Another decision.", "category": "decision_log", "importance": 2}),
        )
        .unwrap_err();
    assert_eq!(
        (e.to_string().as_str(), e.kind()),
        (
            "This memory store is archived: its memories can be read and deleted, not created or changed.",
            "refused"
        )
    );
    // Not even the search index: the comparison is not made.
    assert_eq!(common::dump(&t.store), before);
    // Its records are still found and deleted, as an archived store's memories are.
    assert_eq!(
        t.ok(
            "memory_delete",
            json!({"memory_id": "mem_abcdefghjkmn_1", "reason": "Superseded."})
        ),
        r#"{"success":true}"#
    );
}

#[test]
fn a_prune_that_fails_says_the_record_was_stored() {
    let small = Settings {
        capacity: 1,
        ..Settings::default()
    };
    let second = json!({"content": "Second: the office moved to Lyon.", "category": "factual_knowledge", "importance": 4});
    // The store fails at each operation in turn, from the first of the second
    // store: some failure falls in its pruning, after the record is written.
    let mut seen = Vec::new();
    for k in 0..400 {
        let store = MemoryStore::new();
        let harness = common::Harness::new(store.clone());
        let shared = harness.shared.clone();
        let mut engine = Engine::new(harness, Config::default());
        engine.set_clock(Box::new(|| T0));
        block_on(engine.records(
            "memory_store",
            &json!({"content": "First fact about the build.", "category": "factual_knowledge", "importance": 1}),
            &small,
            None,
        ))
        .unwrap();
        shared.fail_at.set(Some(shared.ops.get() + k));
        let Err(e) = block_on(engine.records("memory_store", &second, &small, None)) else {
            break;
        };
        seen.push(e.kind());
        if e.kind() == "pruning" {
            assert_eq!(
                e.to_string(),
                "The memory was stored as mem_local_2, but deleting the records past the capacity failed (the store failed); the next memory_store tries again."
            );
            let alone = Engine::new(store.clone(), Config::default());
            let kept = block_on(alone.api(&json!({"op": "memory.retrieve", "id": "mem_local_2"})));
            assert_eq!(kept.status, 200);
            return;
        }
    }
    panic!("no failure fell in the pruning: {seen:?}");
}

#[test]
fn a_store_opened_read_only_refuses_a_record_and_still_retrieves() {
    let t = setup();
    t.ok("memory_store", json!({"content": "Reviews happen on Thursdays.", "category": "decision_log", "importance": 3}));
    let mut engine = Engine::new(
        t.store.clone(),
        Config {
            read_only: true,
            ..Config::default()
        },
    );
    engine.set_clock(Box::new(|| T0));
    let before = common::dump(&t.store);
    let s = Settings::default();
    let e = block_on(engine.records(
        "memory_store",
        &json!({"content": "Reviews moved to Fridays.", "category": "decision_log", "importance": 3}),
        &s,
        None,
    ))
    .unwrap_err();
    assert_eq!(
        (e.to_string().as_str(), e.kind()),
        (
            "This memory store is mounted read-only; nothing was changed.",
            "read_only"
        )
    );
    let found = block_on(engine.records("memory_retrieve", &json!({"query": "reviews"}), &s, None))
        .unwrap();
    assert_eq!(found["memories"][0]["id"], "mem_abcdefghjkmn_1");
    assert_eq!(common::dump(&t.store), before);
}

#[test]
fn a_file_where_the_records_directory_must_be_is_named_in_the_refusal() {
    let t = setup();
    t.api(json!({"op": "memory.create", "body": r#"{"path":"/records/task_progress","content":"a file"}"#}));
    let (text, kind) = t.err(
        "memory_store",
        json!({"content": "Half the tests pass.", "category": "task_progress", "importance": 2}),
    );
    assert_eq!(
        (text.as_str(), kind),
        (
            "The path /records/task_progress/e20834090d9d.md conflicts with memory mem_abcdefghjkmn_1 at /records/task_progress.",
            "refused"
        )
    );
}

#[test]
fn below_the_capacity_a_store_reads_no_other_record() {
    let store = MemoryStore::new();
    let s = Settings::default();
    let mut writer = Engine::new(store.clone(), Config::default());
    let now = Rc::new(Cell::new(T0));
    let clock = now.clone();
    writer.set_clock(Box::new(move || clock.get()));
    for i in 0..30 {
        now.set(T0 + i * DAY);
        let content = format!("Sprint {i} closed with every ticket done.");
        block_on(writer.records(
            "memory_store",
            &json!({"content": content, "category": "task_progress", "importance": 2}),
            &s,
            None,
        ))
        .unwrap();
    }
    // A new engine (an empty object cache) stores a text that shares no word with
    // them: the comparison reads none, and neither does the capacity's count.
    let harness = common::Harness::new(store.clone());
    let shared = harness.shared.clone();
    let mut fresh = Engine::new(harness, Config::default());
    fresh.set_clock(Box::new(|| T0 + 40 * DAY));
    let stored = block_on(fresh.records(
        "memory_store",
        &json!({"content": "Lunch orders go to Maria by noon.", "category": "task_progress", "importance": 2}),
        &s,
        None,
    ))
    .unwrap();
    assert_eq!(stored["memory_id"], "mem_local_31");
    // One: the search index catching up with the writer's last record, which it
    // stored after its own last search.
    assert_eq!(shared.count("get", "blob"), 1);
    // Past a capacity of 30, every record is read once, and the two oldest go.
    let small = Settings { capacity: 30, ..s };
    shared.reset();
    let stored = block_on(fresh.records(
        "memory_store",
        &json!({"content": "Parking moves to level two in May.", "category": "task_progress", "importance": 2}),
        &small,
        None,
    ))
    .unwrap();
    assert_eq!(stored["pruned"], json!(["mem_local_1", "mem_local_2"]));
    // The 32 records once each, but for the three this engine holds already (the
    // two it wrote, the one its first search caught up with).
    assert_eq!(shared.count("get", "blob"), 29);
}
