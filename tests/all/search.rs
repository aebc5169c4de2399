//! The search index: ranked, multilingual, kept in the store, never stale.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use memdir::config::Config;
use memdir::{Engine, MemoryStore, Store, block_on};
use serde_json::{Value, json};

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

fn search(engine: &Engine<MemoryStore>, q: &str) -> Vec<String> {
    let v = block_on(engine.search_json(&json!({"query": q}))).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

fn index_keys(store: &MemoryStore) -> Vec<String> {
    block_on(memdir::list_all(store, "index/")).unwrap()
}

#[test]
fn ranks_by_bm25_and_finds_paths_words() {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    create(
        &engine,
        "/memories/preferences/formatting.md",
        "Use tabs, not spaces.\n",
    );
    create(
        &engine,
        "/memories/notes/a.md",
        "The user likes dark mode.\nAnd tea.\n",
    );
    create(
        &engine,
        "/memories/notes/b.md",
        "dark dark dark mode everywhere\n",
    );
    assert_eq!(
        search(&engine, "formatting"),
        ["/memories/preferences/formatting.md"]
    );
    assert_eq!(
        search(&engine, "dark mode"),
        ["/memories/notes/b.md", "/memories/notes/a.md"]
    );
    let v = block_on(engine.search_json(&json!({"query": "tea"}))).unwrap();
    assert_eq!(v[0]["lines"], json!([{"line": 2, "text": "And tea."}]));
    assert!(!index_keys(&store).is_empty());
}

#[test]
fn deleted_renamed_and_edited_texts_are_never_hits() {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    create(&engine, "/memories/a.md", "zebra crossing\n");
    create(&engine, "/memories/b.md", "giraffe neck\n");
    assert_eq!(search(&engine, "zebra"), ["/memories/a.md"]);
    run(
        &engine,
        json!({"command": "delete", "path": "/memories/a.md"}),
    );
    assert_eq!(search(&engine, "zebra"), Vec::<String>::new());
    run(
        &engine,
        json!({"command": "rename", "old_path": "/memories/b.md", "new_path": "/memories/c.md"}),
    );
    assert_eq!(search(&engine, "giraffe"), ["/memories/c.md"]);
    run(
        &engine,
        json!({"command": "str_replace", "path": "/memories/c.md", "old_str": "giraffe", "new_str": "okapi"}),
    );
    assert_eq!(search(&engine, "giraffe"), Vec::<String>::new());
    assert_eq!(search(&engine, "okapi"), ["/memories/c.md"]);
    // A second engine over the same store reads the stored index.
    let other = Engine::new(store.clone(), Config::default());
    assert_eq!(search(&other, "okapi"), ["/memories/c.md"]);
}

#[test]
fn chinese_japanese_and_german() {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    create(&engine, "/memories/zh.md", "用户喜欢使用数据库管理系统\n");
    create(&engine, "/memories/ja.md", "東京タワーに行きたい\n");
    create(
        &engine,
        "/memories/de.md",
        "Die Sicherheitsrichtlinie der Straße\n",
    );
    assert_eq!(search(&engine, "数据库"), ["/memories/zh.md"]);
    assert_eq!(search(&engine, "库"), ["/memories/zh.md"]);
    assert_eq!(search(&engine, "タワー"), ["/memories/ja.md"]);
    assert_eq!(search(&engine, "richtlinie"), ["/memories/de.md"]);
    assert_eq!(search(&engine, "STRASSE"), ["/memories/de.md"]);
}

#[test]
fn the_stored_index_is_rebuilt_when_damaged() {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    create(&engine, "/memories/a.md", "zebra crossing\n");
    assert_eq!(search(&engine, "zebra"), ["/memories/a.md"]);
    for k in index_keys(&store) {
        if k.starts_with("index/chunk/") {
            block_on(store.set(&k, b"garbage")).unwrap();
        }
    }
    let other = Engine::new(store.clone(), Config::default());
    assert_eq!(search(&other, "zebra"), ["/memories/a.md"]);
}

#[test]
fn a_redaction_leaves_no_index_chunk_holding_the_erased_terms() {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    let api = |v: Value| {
        let r = block_on(engine.api(&v));
        assert!(r.status < 300, "{v}: {}", r.body);
        r.body
    };
    let m = api(
        json!({"op": "memory.create", "body": r#"{"path":"/secret.md","content":"the launch code is zanzibar"}"#}),
    );
    let id = m["id"].as_str().unwrap().to_string();
    // Indexed while the secret is live...
    assert_eq!(search(&engine, "zanzibar"), ["/memories/secret.md"]);
    // ...then replaced, with no search since: the index is behind, its chunk
    // still holds "zanzibar".
    api(json!({"op": "memory.update", "id": id, "body": r#"{"content":"nothing to see"}"#}));
    let holds = |s: &MemoryStore| {
        index_keys(s).iter().any(|k| {
            let v = block_on(s.get(k)).unwrap().unwrap_or_default();
            String::from_utf8_lossy(&v).contains("zanzibar")
        })
    };
    assert!(holds(&store));
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
        "no index value holds the redacted text's terms"
    );
    assert_eq!(search(&engine, "zanzibar"), Vec::<String>::new());
    assert_eq!(search(&engine, "nothing"), ["/memories/secret.md"]);
}

#[test]
fn an_index_whose_tree_was_collected_is_rebuilt_and_stray_chunks_go_with_gc() {
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    create(&engine, "/memories/a.md", "zebra crossing\n");
    assert_eq!(search(&engine, "zebra"), ["/memories/a.md"]);
    create(&engine, "/memories/b.md", "zebra stripes, more zebra\n");
    run(
        &engine,
        json!({"command": "delete", "path": "/memories/a.md"}),
    );
    // Two passes collect the tree the stored index reflects.
    block_on(engine.gc(0)).unwrap();
    block_on(engine.gc(0)).unwrap();
    let fresh = Engine::new(store.clone(), Config::default());
    assert_eq!(search(&fresh, "zebra"), ["/memories/b.md"]);
    // A chunk no table names (a catch-up cut short) goes after two passes.
    block_on(store.set("index/chunk/00", b"left by a crash")).unwrap();
    block_on(fresh.gc(0)).unwrap();
    assert!(index_keys(&store).contains(&"index/chunk/00".to_string()));
    block_on(fresh.gc(0)).unwrap();
    assert!(!index_keys(&store).contains(&"index/chunk/00".to_string()));
    assert_eq!(search(&fresh, "stripes"), ["/memories/b.md"]);
}
