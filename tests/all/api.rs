//! The Memory Stores API over one store (docs/memory-stores.md): what each
//! operation answers, the versions the memory tool records, preconditions, pages,
//! redaction that leaves no trace of the text in any stored value, and bad input
//! that changes nothing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use common::STORE_ID;
use memdir::config::{Config, Limits};
use memdir::{Actor, Command, Engine, MemoryStore, Store, block_on};
use serde_json::{Value, json};

const OTHER_STORE_ID: &str = "memstore_zzzzzzzzzzzz0123456789ab";

struct Api {
    engine: Engine<MemoryStore>,
    store: MemoryStore,
}

fn api_with(config: Config) -> Api {
    let (engine, store) = common::api_engine(config);
    Api { engine, store }
}

fn api() -> Api {
    api_with(Config {
        actor: "sesn_test".into(),
        ..Config::default()
    })
}

impl Api {
    /// `{status, body}` of one request.
    fn call(&self, request: Value) -> Value {
        let r = block_on(self.engine.api(&request));
        json!({"status": r.status, "body": r.body})
    }

    fn ok(&self, request: Value) -> Value {
        let r = self.call(request.clone());
        assert_eq!(r["status"], 200, "{request} -> {r}");
        r["body"].clone()
    }

    fn tool(&self, input: Value) -> String {
        let r = block_on(self.engine.execute(&input));
        assert!(!r.is_error, "{input} -> {}", r.content);
        r.content
    }

    fn create(&self, path: &str, content: &str) -> Value {
        self.ok(json!({"op": "memory.create", "body": json!({"path": path, "content": content}).to_string()}))
    }

    /// Every key and value the store holds.
    fn dump(&self) -> Vec<(String, Vec<u8>)> {
        common::dump(&self.store)
    }

    fn versions(&self, mem: &str) -> Vec<(String, String)> {
        let page = self.ok(json!({"op": "version.list", "query": {"memory_id": mem}}));
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["operation"].as_str().unwrap().to_string(),
                    v["path"].as_str().unwrap_or("(redacted)").to_string(),
                )
            })
            .collect()
    }
}

fn error(r: &Value) -> (u64, String, String) {
    (
        r["status"].as_u64().unwrap(),
        r["body"]["error"]["type"].as_str().unwrap().to_string(),
        r["body"]["error"]["message"].as_str().unwrap().to_string(),
    )
}

#[test]
fn a_store_record_is_created_retrieved_updated_and_archived() {
    let a = api();
    let s = a.ok(json!({"op": "store.retrieve"}));
    assert_eq!(s["id"], STORE_ID);
    assert_eq!(s["name"], "Prefs");
    assert_eq!(s["description"], "");
    assert_eq!(s["metadata"], json!({}));
    assert_eq!(s["archived_at"], Value::Null);
    assert_eq!(s["created_at"], "2026-11-18T11:06:41.000Z");
    let u = a.ok(json!({"op": "store.update", "body": r#"{"description":"Team notes","metadata":{"owner":"ana","team":"x"}}"#}));
    assert_eq!(u["description"], "Team notes");
    let u = a.ok(json!({"op": "store.update", "body": r#"{"metadata":{"team":null}}"#}));
    assert_eq!(u["metadata"], json!({"owner": "ana"}));
    let too_many: serde_json::Map<String, Value> =
        (0..17).map(|i| (format!("k{i}"), json!("v"))).collect();
    let r =
        a.call(json!({"op": "store.update", "body": json!({"metadata": too_many}).to_string()}));
    assert_eq!(
        error(&r),
        (
            400,
            "invalid_request_error".into(),
            "metadata must have at most 16 pairs, got 18".into()
        )
    );
    let archived = a.ok(json!({"op": "store.archive"}));
    assert_eq!(archived["archived_at"], "2026-11-18T11:06:48.000Z");
    let r = a.call(json!({"op": "store.update", "body": r#"{"name":"x"}"#}));
    assert_eq!(
        error(&r).2,
        "This memory store is archived and cannot be updated."
    );
    let r = a.call(json!({"op": "memory.create", "body": r#"{"path":"/a.md","content":"x"}"#}));
    assert_eq!(
        error(&r),
        (
            400,
            "invalid_request_error".into(),
            "This memory store is archived: its memories can be read and deleted, not created or changed.".into()
        )
    );
    assert_eq!(
        a.ok(json!({"op": "store.delete"})),
        json!({"id": STORE_ID, "type": "memory_store_deleted"})
    );
}

#[test]
fn the_memory_tool_records_a_version_for_every_change() {
    let a = api();
    a.tool(json!({"command": "create", "path": "/memories/notes/a.md", "file_text": "one\n"}));
    a.tool(json!({"command": "create", "path": "/memories/notes/b.md", "file_text": "two\n"}));
    a.tool(json!({"command": "str_replace", "path": "/memories/notes/a.md", "old_str": "one", "new_str": "uno"}));
    a.tool(json!({"command": "insert", "path": "/memories/notes/a.md", "insert_line": 1, "insert_text": "dos\n"}));
    a.tool(json!({"command": "rename", "old_path": "/memories/notes/a.md", "new_path": "/memories/notes/c.md"}));
    a.tool(json!({"command": "rename", "old_path": "/memories/notes", "new_path": "/memories/archive"}));
    let list = a.ok(json!({"op": "memory.list"}));
    let paths: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/archive/b.md", "/archive/c.md"]);
    let c = &list["data"][1];
    assert_eq!(
        c["id"], "mem_abcdefghjkmn_1",
        "the id outlives edits and renames"
    );
    assert_eq!(c["memory_version_id"], "memver_abcdefghjkmn_7");
    assert_eq!(
        a.versions("mem_abcdefghjkmn_1"),
        [
            ("modified".into(), "/archive/c.md".into()),
            ("modified".into(), "/notes/c.md".into()),
            ("modified".into(), "/notes/a.md".into()),
            ("modified".into(), "/notes/a.md".into()),
            ("created".into(), "/notes/a.md".into()),
        ]
    );
    let retrieved = a.ok(json!({"op": "memory.retrieve", "id": "mem_abcdefghjkmn_1"}));
    assert_eq!(retrieved["content"], "uno\ndos\n");
    let v = a.ok(json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_3"}));
    assert_eq!(v["content"], "uno\n");
    assert_eq!(
        v["created_by"],
        json!({"type": "session_actor", "session_id": "sesn_test"})
    );
    a.tool(json!({"command": "delete", "path": "/memories/archive"}));
    assert_eq!(
        a.versions("mem_abcdefghjkmn_2")[0],
        ("deleted".into(), "/archive/b.md".into())
    );
    let r = a.call(json!({"op": "memory.retrieve", "id": "mem_abcdefghjkmn_1"}));
    assert_eq!(
        error(&r),
        (
            404,
            "not_found_error".into(),
            "No memory \"mem_abcdefghjkmn_1\" in this store.".into()
        )
    );
    let all = a.ok(json!({"op": "version.list", "query": {"operation": "deleted"}}));
    assert_eq!(all["data"].as_array().unwrap().len(), 2);
}

#[test]
fn the_memory_tool_refuses_to_create_or_change_in_an_archived_store() {
    // The API's rule for an archived store (its memories read and deleted, not
    // created or changed) holds for the memory tool too, whichever face runs it.
    let a = api();
    a.tool(json!({"command": "create", "path": "/memories/a.md", "file_text": "one\n"}));
    a.tool(json!({"command": "create", "path": "/memories/b.md", "file_text": "two\n"}));
    a.ok(json!({"op": "store.archive"}));
    let before = a.dump();
    let refused = |input: Value| {
        let r = block_on(a.engine.execute(&input));
        assert!(r.is_error, "{input} -> {}", r.content);
        assert_eq!(a.dump(), before, "{input} changed the store");
        r.content
    };
    let why = "the memory store is archived; its memories can be viewed and deleted, not created or changed";
    assert_eq!(
        refused(json!({"command": "create", "path": "/memories/c.md", "file_text": "x"})),
        format!("Error: Cannot create /memories/c.md: {why}")
    );
    assert_eq!(
        refused(json!({"command": "create", "path": "/memories/a.md", "file_text": "x"})),
        format!("Error: Cannot create /memories/a.md: {why}")
    );
    assert_eq!(
        refused(
            json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "uno"})
        ),
        format!("Error: Cannot str_replace /memories/a.md: {why}")
    );
    assert_eq!(
        refused(
            json!({"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "x\n"})
        ),
        format!("Error: Cannot insert /memories/a.md: {why}")
    );
    assert_eq!(
        refused(
            json!({"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/z.md"})
        ),
        format!("Error: Cannot rename /memories/a.md: {why}")
    );
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories/a.md"})),
        "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\t"
    );
    assert_eq!(
        a.tool(json!({"command": "delete", "path": "/memories/b.md"})),
        "Successfully deleted /memories/b.md"
    );
}

#[test]
fn the_memory_tool_and_the_toolset_record_the_actor_they_act_for() {
    // A server running either for an API key passes the key's actor: the versions
    // name it, as the API's own writes do, not the store's configured session.
    let a = api();
    let key = Actor::Api {
        api_key_id: "apikey_0123".into(),
    };
    let cmd = Command::from_value(
        &json!({"command": "create", "path": "/memories/a.md", "file_text": "one\n"}),
    )
    .unwrap();
    block_on(a.engine.run_by(cmd, Some(&key))).unwrap();
    let cmd = Command::from_value(&json!({"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "uno"})).unwrap();
    block_on(a.engine.run_by(cmd, Some(&key))).unwrap();
    block_on(a.engine.toolset_by(
        "",
        "memory_write",
        &json!({"path": "/b.md", "content": "two"}),
        Some(&key),
    ))
    .unwrap();
    block_on(a.engine.toolset_by(
        "",
        "memory_edit",
        &json!({"path": "/b.md", "old_str": "two", "new_str": "dos"}),
        Some(&key),
    ))
    .unwrap();
    a.tool(json!({"command": "create", "path": "/memories/c.md", "file_text": "three"}));
    let page = a.ok(json!({"op": "version.list", "query": {"limit": "10"}}));
    let by: Vec<(String, Value)> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap().to_string(),
                v["created_by"].clone(),
            )
        })
        .collect();
    let api = json!({"type": "api_actor", "api_key_id": "apikey_0123"});
    let session = json!({"type": "session_actor", "session_id": "sesn_test"});
    assert_eq!(
        by,
        [
            ("/c.md".into(), session),
            ("/b.md".into(), api.clone()),
            ("/b.md".into(), api.clone()),
            ("/a.md".into(), api.clone()),
            ("/a.md".into(), api),
        ]
    );
}

#[test]
fn creating_on_a_taken_path_is_a_conflict_naming_what_blocks() {
    let a = api();
    let m = a.create("/notes/todo.md", "x");
    assert_eq!(m["content"], Value::Null, "create answers view=basic");
    assert_eq!(m["content_size_bytes"], 1);
    let r = a
        .call(json!({"op": "memory.create", "body": r#"{"path":"/notes/todo.md","content":"y"}"#}));
    assert_eq!(r["status"], 409);
    assert_eq!(
        r["body"],
        json!({"type": "error", "error": {
            "type": "memory_path_conflict_error",
            "message": "The path /notes/todo.md conflicts with memory mem_abcdefghjkmn_1 at /notes/todo.md.",
            "conflicting_path": "/notes/todo.md",
            "conflicting_memory_id": "mem_abcdefghjkmn_1"
        }})
    );
    let r = a.call(
        json!({"op": "memory.create", "body": r#"{"path":"/notes/todo.md/deeper","content":"y"}"#}),
    );
    assert_eq!(r["body"]["error"]["conflicting_path"], "/notes/todo.md");
    // A directory holding a memory: the conflict names that memory, never "".
    let r = a.call(json!({"op": "memory.create", "body": r#"{"path":"/notes","content":"y"}"#}));
    assert_eq!(
        r["body"],
        json!({"type": "error", "error": {
            "type": "memory_path_conflict_error",
            "message": "The path /notes conflicts with memory mem_abcdefghjkmn_1 at /notes/todo.md.",
            "conflicting_path": "/notes/todo.md",
            "conflicting_memory_id": "mem_abcdefghjkmn_1"
        }})
    );
    let r = a.call(json!({"op": "memory.create", "body": r#"{"path":"/notes/todo.md","content":"y","precondition":{"type":"not_exists"}}"#}));
    assert_eq!(
        error(&r),
        (
            409,
            "memory_precondition_failed_error".into(),
            "The precondition not_exists failed: something is already at /notes/todo.md.".into()
        )
    );
}

#[test]
fn directories_without_memories_give_way_to_creates_and_renames() {
    let a = api();
    let gone = a.create("/notes/a.md", "a");
    let id = gone["id"].as_str().unwrap();
    a.ok(json!({"op": "memory.delete", "id": id}));
    // /notes is left, empty: the memory tool still shows it.
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories/notes"})),
        "Here're the files and directories up to 2 levels deep in /memories/notes, excluding hidden items and node_modules:\n0B\t/memories/notes"
    );
    // Paths conflict only with memories: the empty directory is replaced.
    let made = a.ok(
        json!({"op": "memory.create", "body": r#"{"path":"/notes","content":"now a memory"}"#}),
    );
    assert_eq!(made["path"], "/notes");
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories/notes"})),
        "Here's the content of /memories/notes with line numbers:\n     1\tnow a memory"
    );
    // Likewise for not_exists, and for a rename onto directories that hold only
    // empty directories.
    a.create("/old/deep/x.md", "x");
    let x = a.ok(json!({"op": "version.list"}))["data"][0]["memory_id"]
        .as_str()
        .unwrap()
        .to_string();
    a.ok(json!({"op": "memory.delete", "id": x}));
    let m = a.create("/m.md", "m");
    let moved = a.ok(json!({"op": "memory.update", "id": m["id"], "body": r#"{"path":"/old","precondition":{"type":"not_exists"}}"#}));
    assert_eq!(moved["path"], "/old");
    let again = a.ok(json!({"op": "memory.create", "body": r#"{"path":"/y.md","content":"y","precondition":{"type":"not_exists"}}"#}));
    assert_eq!(again["path"], "/y.md");
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories"})),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n14B\t/memories\n12B\t/memories/notes\n1B\t/memories/old\n1B\t/memories/y.md"
    );
}

/// A directory of `depth` levels whose every level names the level below twice:
/// 2^depth paths over `depth` + 1 stored nodes, none holding a file.
fn doubling_empty_dirs(store: &MemoryStore, depth: usize) -> String {
    let mut node = br#"{"e":[]}"#.to_vec();
    let mut hash = hex_sha(&node);
    block_on(store.set(&format!("tree/{hash}"), &node)).unwrap();
    for _ in 0..depth {
        node = format!(r#"{{"e":[["a","d","{hash}",0,0],["b","d","{hash}",0,0]]}}"#).into_bytes();
        hash = hex_sha(&node);
        block_on(store.set(&format!("tree/{hash}"), &node)).unwrap();
    }
    hash
}

fn hex_sha(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_directory_repeating_one_empty_directory_is_read_once_per_node() {
    let a = api();
    // The tool makes /d (empty once its file is deleted); its entry is then
    // pointed at 2^64 paths of empty directories, rehashed up to a new head.
    a.tool(json!({"command": "create", "path": "/memories/d/f.md", "file_text": "f"}));
    a.tool(json!({"command": "delete", "path": "/memories/d/f.md"}));
    let hostile = doubling_empty_dirs(&a.store, 64);
    let head = String::from_utf8(block_on(a.store.get("head")).unwrap().unwrap()).unwrap();
    let commit_key = format!("commit/{head}");
    let mut commit: Value =
        serde_json::from_slice(&block_on(a.store.get(&commit_key)).unwrap().unwrap()).unwrap();
    let root_key = format!("tree/{}", commit["root"].as_str().unwrap());
    // The root in the JSON form (which every build reads), to edit by hand.
    let root = memdir::__hooks::tree_json(&block_on(a.store.get(&root_key)).unwrap().unwrap());
    let mut root: Value = serde_json::from_slice(&root.unwrap()).unwrap();
    for e in root["e"].as_array_mut().unwrap() {
        if e[0] == "d" {
            e[2] = json!(hostile);
        }
    }
    let root = serde_json::to_vec(&root).unwrap();
    let root_hash = hex_sha(&root);
    block_on(a.store.set(&format!("tree/{root_hash}"), &root)).unwrap();
    commit["root"] = json!(root_hash);
    let commit = serde_json::to_vec(&commit).unwrap();
    let commit_hash = hex_sha(&commit);
    block_on(a.store.set(&format!("commit/{commit_hash}"), &commit)).unwrap();
    block_on(a.store.set("head", commit_hash.as_bytes())).unwrap();
    // No memory beneath /d: it gives way, after reading each of its 65 nodes once.
    let made = a.ok(json!({"op": "memory.create", "body": r#"{"path":"/d","content":"d"}"#}));
    assert_eq!(made["path"], "/d");
}

#[test]
fn updates_check_their_precondition_and_add_no_version_when_nothing_changes() {
    let a = api();
    let m = a.create("/a.md", "first");
    let sha = m["content_sha256"].as_str().unwrap().to_string();
    let id = m["id"].as_str().unwrap().to_string();
    let body = json!({"content": "second", "precondition": {"type": "content_sha256", "content_sha256": sha}}).to_string();
    let u = a.ok(json!({"op": "memory.update", "id": id, "body": body}));
    assert_eq!(u["memory_version_id"], "memver_abcdefghjkmn_2");
    // The same stale hash again: the memory changed since.
    let r =
        a.call(json!({"op": "memory.update", "id": id, "body": body.replace("second", "third")}));
    assert_eq!(
        error(&r),
        (
            409,
            "memory_precondition_failed_error".into(),
            "The precondition content_sha256 failed: memory mem_abcdefghjkmn_1 has changed since that hash was read.".into()
        )
    );
    // Exactly the requested content already: succeeds, and writes nothing.
    let before = a.dump();
    let same = a.ok(json!({"op": "memory.update", "id": id, "body": body}));
    assert_eq!(same["memory_version_id"], "memver_abcdefghjkmn_2");
    assert_eq!(a.dump(), before);
    // A rename onto a taken path is a conflict; with not_exists it is a no-op.
    a.create("/b.md", "b");
    let r = a.call(json!({"op": "memory.update", "id": id, "body": r#"{"path":"/b.md"}"#}));
    assert_eq!(
        r["body"]["error"]["conflicting_memory_id"],
        "mem_abcdefghjkmn_3"
    );
    let kept = a.ok(json!({"op": "memory.update", "id": id, "body": r#"{"path":"/b.md","precondition":{"type":"not_exists"}}"#}));
    assert_eq!(kept["path"], "/a.md");
    let moved = a.ok(json!({"op": "memory.update", "id": id, "query": {"view": "full"}, "body": r#"{"path":"/c/d.md"}"#}));
    assert_eq!(
        (moved["path"].as_str(), moved["content"].as_str()),
        (Some("/c/d.md"), Some("second"))
    );
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories/c/d.md"})),
        "Here's the content of /memories/c/d.md with line numbers:\n     1\tsecond"
    );
    let r =
        a.call(json!({"op": "memory.delete", "id": id, "query": {"expected_content_sha256": sha}}));
    assert_eq!(error(&r).0, 409);
    assert_eq!(
        a.ok(json!({"op": "memory.delete", "id": id})),
        json!({"id": "mem_abcdefghjkmn_1", "type": "memory_deleted"})
    );
}

#[test]
fn lists_roll_deeper_memories_into_prefixes_and_pages_chain() {
    let a = api();
    for p in [
        "/a.md",
        "/notes/b.md",
        "/notes/deep/c.md",
        "/notes/deep/d.md",
        "/notes-archive/e.md",
        "/z.md",
    ] {
        a.create(p, p);
    }
    // An empty directory of the memory tool is invisible to the API.
    a.tool(json!({"command": "create", "path": "/memories/empty/x.md", "file_text": ""}));
    a.tool(json!({"command": "delete", "path": "/memories/empty/x.md"}));
    let top = a.ok(json!({"op": "memory.list", "query": {"depth": "1"}}));
    let shown: Vec<String> = top["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}",
                i["type"].as_str().unwrap(),
                i["path"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "memory /a.md",
            "memory_prefix /notes/",
            "memory_prefix /notes-archive/",
            "memory /z.md"
        ]
    );
    let notes = a.ok(json!({"op": "memory.list", "query": {"path_prefix": "/notes/"}}));
    let paths: Vec<&str> = notes["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["/notes/b.md", "/notes/deep/c.md", "/notes/deep/d.md"],
        "/notes/ never matches /notes-archive/"
    );
    // Pages of two, chained by their tokens, give the whole list once.
    let mut all = Vec::new();
    let mut query = json!({"limit": "2"});
    loop {
        let page = a.ok(json!({"op": "memory.list", "query": query.clone()}));
        all.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["path"].as_str().unwrap().to_string()),
        );
        match page["next_page"].as_str() {
            Some(t) => query = json!({"limit": "2", "page": t}),
            None => break,
        }
    }
    assert_eq!(
        all,
        [
            "/a.md",
            "/notes/b.md",
            "/notes/deep/c.md",
            "/notes/deep/d.md",
            "/notes-archive/e.md",
            "/z.md"
        ]
    );
    let first = a.ok(json!({"op": "memory.list", "query": {"limit": "2"}}));
    let token = first["next_page"].as_str().unwrap();
    let r =
        a.call(json!({"op": "memory.list", "query": {"limit": "2", "depth": "1", "page": token}}));
    assert_eq!(
        error(&r),
        (
            400,
            "invalid_request_error".into(),
            "page is not a page token of this list and query".into()
        )
    );
    let r = a.call(json!({"op": "version.list", "query": {"page": token}}));
    assert_eq!(
        error(&r).2,
        "page is not a page token of this list and query"
    );
    let r = a.call(json!({"op": "memory.list", "query": {"path_prefix": "/notes"}}));
    assert_eq!(
        error(&r).2,
        "path_prefix must start and end with '/', got \"/notes\""
    );
    let r = a.call(json!({"op": "memory.list", "query": {"depth": "-1"}}));
    assert_eq!(
        error(&r).2,
        "depth must be a whole number from 0 to 18446744073709551615, got \"-1\""
    );
    let full = a.ok(json!({"op": "memory.list", "query": {"view": "full", "limit": "100"}}));
    assert_eq!(
        full["data"].as_array().unwrap().len(),
        6,
        "full view caps the page at 20"
    );
    assert_eq!(full["data"][0]["content"], "/a.md");
}

#[test]
fn search_finds_lines_case_insensitively() {
    let a = api();
    a.create("/a.md", "Alpha\nbeta GAMMA\ngamma ray");
    a.create("/b.md", "nothing here");
    let r = a.ok(json!({"op": "memory.search", "query": {"query": "gamma"}}));
    assert_eq!(
        r,
        json!({"data": [{"type": "memory_search_result", "memory_id": "mem_abcdefghjkmn_1", "path": "/a.md",
            "score": 0.9125528235403374, "matches": [{"line_number": 2, "text": "beta GAMMA"}, {"line_number": 3, "text": "gamma ray"}]}],
            "next_page": null, "query": "gamma"})
    );
    let r = a.call(json!({"op": "memory.search", "query": {}}));
    assert_eq!(error(&r).2, "query must be 1 to 256 characters, got 0");
}

#[test]
fn redaction_leaves_the_text_in_no_stored_value() {
    let a = api();
    let m = a.create("/secret.md", "the launch code is PINEAPPLE-7741");
    let id = m["id"].as_str().unwrap();
    a.ok(json!({"op": "memory.update", "id": id, "body": r#"{"content":"nothing to see"}"#}));
    a.create("/other.md", "kept text");
    let leaked = |a: &Api| {
        a.dump()
            .iter()
            .any(|(_, v)| String::from_utf8_lossy(v).contains("PINEAPPLE-7741"))
    };
    assert!(leaked(&a));
    // The current version cannot be redacted; the old one can.
    let r = a.call(json!({"op": "version.redact", "id": "memver_abcdefghjkmn_2"}));
    assert_eq!(
        error(&r).2,
        "Version memver_abcdefghjkmn_2 holds the current content of memory mem_abcdefghjkmn_1; update or delete the memory first, then redact this version."
    );
    let red = a.ok(json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1", "actor": {"type": "user_actor", "user_id": "user_1"}}));
    assert_eq!(red["content"], Value::Null);
    assert_eq!(red["path"], Value::Null);
    assert_eq!(red["content_sha256"], Value::Null);
    assert_eq!(red["content_size_bytes"], Value::Null);
    assert_eq!(red["operation"], "created");
    assert_eq!(
        red["created_by"],
        json!({"type": "session_actor", "session_id": "sesn_test"})
    );
    assert_eq!(
        red["redacted_by"],
        json!({"type": "user_actor", "user_id": "user_1"})
    );
    assert!(red["redacted_at"].is_string());
    assert!(!leaked(&a), "no key or value holds the redacted text");
    // Everything else still reads back, and the store still checks out whole.
    let v2 = a.ok(json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_2"}));
    assert_eq!(v2["content"], "nothing to see");
    let other = a.ok(json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_3"}));
    assert_eq!(other["content"], "kept text");
    let again = a.ok(json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"}));
    assert_eq!(
        again["redacted_by"],
        json!({"type": "user_actor", "user_id": "user_1"}),
        "redacting twice changes nothing"
    );
    let gc = block_on(a.engine.gc(100)).unwrap();
    assert_eq!(gc.deleted, 0);
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories/secret.md"})),
        "Here's the content of /memories/secret.md with line numbers:\n     1\tnothing to see"
    );
}

#[test]
fn redaction_keeps_a_blob_another_version_still_holds() {
    let a = api();
    let m = a.create("/a.md", "shared words");
    let id = m["id"].as_str().unwrap();
    a.ok(json!({"op": "memory.update", "id": id, "body": r#"{"path":"/b.md"}"#}));
    a.ok(json!({"op": "memory.update", "id": id, "body": r#"{"content":"new"}"#}));
    a.ok(json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"}));
    let v2 = a.ok(json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_2"}));
    assert_eq!(
        v2["content"], "shared words",
        "version 2 holds the same text: its blob stays"
    );
}

#[test]
fn bad_requests_get_the_error_object_and_change_nothing() {
    let a = api();
    let m = a.create("/a.md", "x");
    let id = m["id"].as_str().unwrap().to_string();
    let before = a.dump();
    let huge = "x".repeat(102_401);
    let long_op = format!("No operation {:?}… (5,000 characters).", "é".repeat(100));
    let long_type = format!(
        "precondition.type must be content_sha256 or not_exists, got {:?}… (1,000,000 characters)",
        "z".repeat(100)
    );
    let long_path = format!(
        "path must start with '/', got {:?}… (200,000 characters)",
        "p".repeat(100)
    );
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"op": "memory.retrieve", "id": "mem_abcdefghjkmn_99"}),
            "No memory \"mem_abcdefghjkmn_99\" in this store.",
        ),
        (
            json!({"op": "memory.retrieve", "id": "mem_zzzzzzzzzzzz_1"}),
            "No memory \"mem_zzzzzzzzzzzz_1\" in this store.",
        ),
        (
            json!({"op": "memory.retrieve", "id": "memver_abcdefghjkmn_1"}),
            "No memory \"memver_abcdefghjkmn_1\" in this store.",
        ),
        (
            json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_9"}),
            "No memory version \"memver_abcdefghjkmn_9\" in this store.",
        ),
        (
            json!({"op": "memory.create", "body": "{"}),
            "the body is not valid JSON",
        ),
        (
            json!({"op": "memory.create", "body": "[1]"}),
            "the body must be a JSON object, got an array",
        ),
        (
            json!({"op": "memory.create", "body": r#"{"path":5,"content":"x"}"#}),
            "path: expected a string, got a number",
        ),
        (
            json!({"op": "memory.create", "body": r#"{"path":"/n.md","content":"x","extra":1}"#}),
            "extra: unknown field",
        ),
        (
            json!({"op": "memory.create", "body": r#"{"content":"x"}"#}),
            "path is required",
        ),
        (
            json!({"op": "memory.create", "body": json!({"path": "/big.md", "content": huge}).to_string()}),
            "content must be at most 102,400 bytes, got 102,401",
        ),
        (
            json!({"op": "memory.create", "body": r#"{"path":"/n.md","content":"x","precondition":{"type":"content_sha256","content_sha256":"ab"}}"#}),
            "precondition.content_sha256 must be 64 lowercase hexadecimal characters",
        ),
        (
            json!({"op": "memory.update", "id": id, "body": r#"{"precondition":{"type":"maybe"}}"#}),
            "precondition.type must be content_sha256 or not_exists, got \"maybe\"",
        ),
        (
            json!({"op": "memory.list", "query": {"view": "everything"}}),
            "view must be basic or full, got \"everything\"",
        ),
        (
            json!({"op": "memory.list", "query": {"limit": "0"}}),
            "limit must be a whole number from 1 to 100, got \"0\"",
        ),
        (
            json!({"op": "version.list", "query": {"created_at[gte]": "yesterday"}}),
            "created_at[gte] must be an RFC 3339 date-time, got \"yesterday\"",
        ),
        (
            json!({"op": "version.list", "query": {"operation": "renamed"}}),
            "operation must be created, modified or deleted, got \"renamed\"",
        ),
        (
            json!({"op": "memory.create", "actor": {"type": "api_actor", "api_key_id": ""}, "body": r#"{"path":"/n.md","content":"x"}"#}),
            "actor: its id must be 1 to 256 characters without control characters",
        ),
        (json!({"op": "nope"}), "No operation \"nope\"."),
        // Caller text is quoted up to MAX_ECHO_CHARS characters (not bytes), then counted.
        (json!({"op": "é".repeat(5_000)}), &long_op),
        (
            json!({"op": "memory.update", "id": id, "body": json!({"precondition": {"type": "z".repeat(1_000_000)}}).to_string()}),
            &long_type,
        ),
        (
            json!({"op": "memory.create", "body": json!({"path": "p".repeat(200_000), "content": "x"}).to_string()}),
            &long_path,
        ),
        (
            json!({"op": 5}),
            "not a memdir API request: {op, id?, query?, body?, actor?}",
        ),
        (
            json!({"op": "store.create", "id": OTHER_STORE_ID, "body": r#"{"name":"x"}"#}),
            "This store already has a record.",
        ),
    ];
    for (request, message) in cases {
        let r = a.call(request.clone());
        assert_eq!(r["body"]["error"]["message"], message, "{request}");
        assert_eq!(r["body"]["type"], "error");
    }
    let hostile: Value =
        serde_json::from_str(include_str!("../conformance/hostile-paths.json")).unwrap();
    let mut tried = 0;
    for case in hostile["paths"].as_array().unwrap() {
        let path = case["path"].as_str().unwrap();
        let Some(store_path) = path
            .strip_prefix("/memories")
            .filter(|p| p.starts_with('/'))
        else {
            continue;
        };
        tried += 1;
        let body = json!({"path": store_path, "content": "x"}).to_string();
        let r = a.call(json!({"op": "memory.create", "body": body}));
        assert_eq!(
            (r["status"].as_u64(), r["body"]["error"]["type"].as_str()),
            (Some(400), Some("invalid_request_error")),
            "{path:?}"
        );
    }
    assert!(tried > 40, "{tried} hostile paths");
    assert_eq!(a.dump(), before, "nothing changed");
    assert_eq!(
        block_on(a.engine.api_json("{")),
        r#"{"body":{"error":{"message":"the request is not valid JSON","type":"invalid_request_error"},"type":"error"},"status":400}"#
    );
}

#[test]
fn the_memory_cap_binds_api_creates() {
    let a = api_with(Config {
        limits: Limits {
            max_memories: 2,
            ..Limits::default()
        },
        ..Config::default()
    });
    a.create("/1.md", "");
    a.create("/2.md", "");
    let r = a.call(json!({"op": "memory.create", "body": r#"{"path":"/3.md","content":""}"#}));
    assert_eq!(
        error(&r).2,
        "This memory store holds 2 memories, the most it may; delete some first."
    );
}

#[test]
fn import_keeps_ids_by_path_and_records_what_it_changes() {
    let a = api();
    let m = a.create("/keep.md", "same");
    a.create("/edit.md", "old");
    a.create("/gone.md", "bye");
    let entries = [
        memdir::Entry {
            path: "/memories/keep.md".into(),
            content: Some("same".into()),
        },
        memdir::Entry {
            path: "/memories/edit.md".into(),
            content: Some("new".into()),
        },
        memdir::Entry {
            path: "/memories/new.md".into(),
            content: Some("hi".into()),
        },
    ];
    block_on(a.engine.import(&entries)).unwrap();
    let keep = a.ok(json!({"op": "memory.retrieve", "id": m["id"]}));
    assert_eq!(
        keep["memory_version_id"], "memver_abcdefghjkmn_1",
        "unchanged: no version"
    );
    let ops: Vec<String> = a.ok(json!({"op": "version.list"}))["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            format!(
                "{} {}",
                v["operation"].as_str().unwrap(),
                v["path"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        ops[..3],
        ["deleted /gone.md", "created /new.md", "modified /edit.md"]
    );
}

/// Rewrites every log node the way memdir's first version of the log stored them
/// (JSON, hex hashes: `{"l":[[record, blob or "", head, updated], ...]}` and
/// `{"n":[child, ...]}`), rehashing up to a new commit and head.
fn store_log_as_json(store: &MemoryStore) {
    use sha2::{Digest, Sha256};
    let sha = |b: &[u8]| {
        Sha256::digest(b)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    fn convert(store: &MemoryStore, node: &str, sha: &dyn Fn(&[u8]) -> String) -> String {
        let bytes = block_on(store.get(&format!("log/{node}")))
            .unwrap()
            .unwrap();
        let json = match memdir::__hooks::LogNode::decode(&bytes).unwrap() {
            memdir::__hooks::LogNode::Leaf(slots) => json!({"l": slots.iter().map(|s| json!([
                s.record.hex(),
                s.blob.map(|b| b.hex()).unwrap_or_default(),
                s.head,
                s.updated,
            ])).collect::<Vec<_>>()}),
            memdir::__hooks::LogNode::Inner(kids) => json!({"n": kids.iter()
                .map(|k| convert(store, &k.hex(), sha))
                .collect::<Vec<_>>()}),
        };
        let bytes = serde_json::to_vec(&json).unwrap();
        let hash = sha(&bytes);
        block_on(store.set(&format!("log/{hash}"), &bytes)).unwrap();
        hash
    }
    let head = String::from_utf8(block_on(store.get("head")).unwrap().unwrap()).unwrap();
    let commit_key = format!("commit/{head}");
    let mut commit: Value =
        serde_json::from_slice(&block_on(store.get(&commit_key)).unwrap().unwrap()).unwrap();
    commit["log"] = json!(convert(store, commit["log"].as_str().unwrap(), &sha));
    let bytes = serde_json::to_vec(&commit).unwrap();
    let hash = sha(&bytes);
    block_on(store.set(&format!("commit/{hash}"), &bytes)).unwrap();
    block_on(store.set("head", hash.as_bytes())).unwrap();
}

/// The log's top node as stored, through the head and its commit.
fn log_top(store: &MemoryStore) -> Vec<u8> {
    let head = String::from_utf8(block_on(store.get("head")).unwrap().unwrap()).unwrap();
    let commit: Value = serde_json::from_slice(
        &block_on(store.get(&format!("commit/{head}")))
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    block_on(store.get(&format!("log/{}", commit["log"].as_str().unwrap())))
        .unwrap()
        .unwrap()
}

#[test]
fn a_log_the_first_version_wrote_as_json_reads_on_and_takes_new_versions() {
    let a = api();
    let id = a.create("/notes/a.md", "one")["id"]
        .as_str()
        .unwrap()
        .to_string();
    a.tool(json!({"command": "str_replace", "path": "/memories/notes/a.md", "old_str": "one", "new_str": "two"}));
    a.create("/notes/b.md", "x");
    let before = a.versions(&id);
    assert_eq!(log_top(&a.store)[..2], *b"L1");

    store_log_as_json(&a.store);
    assert_eq!(log_top(&a.store)[0], b'{');
    let later = Api {
        engine: Engine::new(a.store.clone(), Config::default()),
        store: a.store.clone(),
    };
    assert_eq!(later.versions(&id), before);

    later.tool(json!({"command": "str_replace", "path": "/memories/notes/a.md", "old_str": "two", "new_str": "three"}));
    assert_eq!(
        later.versions(&id),
        [
            ("modified".to_string(), "/notes/a.md".to_string()),
            ("modified".to_string(), "/notes/a.md".to_string()),
            ("created".to_string(), "/notes/a.md".to_string()),
        ]
    );
    assert_eq!(log_top(&later.store)[..2], *b"L1");
}

#[test]
fn a_page_token_moved_into_another_memorys_chain_is_a_bad_token() {
    let a = api();
    let m = a.create("/a.md", "one");
    let id = m["id"].as_str().unwrap().to_string();
    a.create("/b.md", "other memory");
    a.ok(json!({"op": "memory.update", "id": id, "body": r#"{"content":"two"}"#}));
    let page = a.ok(json!({"op": "version.list", "query": {"memory_id": id, "limit": "1"}}));
    let token = page["next_page"].as_str().unwrap();
    // The token's position (after its last '.') is hex; version 2 is memory b's.
    let (fp, _) = token.rsplit_once('.').unwrap();
    let forged = format!(
        "{fp}.{}",
        "2".bytes().map(|b| format!("{b:02x}")).collect::<String>()
    );
    let before = a.dump();
    let r = a.call(
        json!({"op": "version.list", "query": {"memory_id": id, "limit": "1", "page": forged}}),
    );
    assert_eq!(
        error(&r),
        (
            400,
            "invalid_request_error".into(),
            "page is not a page token of this list and query".into()
        )
    );
    assert_eq!(a.dump(), before);
}

/// Puts a new head whose commit claims `versions` versions over a log of `levels`
/// inner nodes above its one real leaf (as tall as that count needs at the first
/// fanout, 64, which a commit naming no fanout has, so every slot asked for is
/// found and only the count is wrong).
fn claim_versions(a: &Api, versions: u64, levels: usize) {
    use sha2::Digest;
    let head = String::from_utf8(block_on(a.store.get("head")).unwrap().unwrap()).unwrap();
    let mut commit: Value = serde_json::from_slice(
        &block_on(a.store.get(&format!("commit/{head}")))
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let mut node = commit["log"].as_str().unwrap().to_string();
    for _ in 0..levels {
        let mut inner = b"N1\x01".to_vec();
        inner.extend((0..32).map(|i| u8::from_str_radix(&node[2 * i..2 * i + 2], 16).unwrap()));
        node = sha2::Sha256::digest(&inner)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        block_on(a.store.set(&format!("log/{node}"), &inner)).unwrap();
    }
    commit["log"] = json!(node);
    commit["versions"] = json!(versions);
    commit.as_object_mut().unwrap().remove("log_fanout");
    let bytes = commit.to_string();
    let hash: String = sha2::Sha256::digest(bytes.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    block_on(a.store.set(&format!("commit/{hash}"), bytes.as_bytes())).unwrap();
    block_on(a.store.set("head", hash.as_bytes())).unwrap();
}

/// A create and a tool create over the head: both refused as damage, nothing written.
fn writes_are_refused_as_damage(a: &Api) {
    let before = a.dump();
    let r = a.call(json!({"op": "memory.create", "body": r#"{"path":"/b.md","content":"x"}"#}));
    assert_eq!(
        error(&r),
        (
            500,
            "api_error".into(),
            "The store holds a damaged record; nothing was changed.".into()
        )
    );
    let t = block_on(
        a.engine
            .execute(&json!({"command": "create", "path": "/memories/c.md", "file_text": "x"})),
    );
    assert_eq!(
        (t.content.as_str(), t.is_error),
        (
            "Error: The memory directory's storage is damaged: a stored record is missing or unreadable.",
            true
        )
    );
    assert_eq!(
        a.dump(),
        before,
        "nothing was written over the damaged head"
    );
}

#[test]
fn a_commit_claiming_more_versions_than_any_store_holds_is_damage_not_a_wrap() {
    let a = api();
    a.create("/a.md", "one");
    // u64::MAX versions need 10 levels of inner nodes.
    claim_versions(&a, u64::MAX, 10);
    writes_are_refused_as_damage(&a);
}

#[test]
fn a_store_at_the_largest_version_count_numbers_no_further() {
    let a = api();
    let m = a.create("/a.md", "one");
    a.call(json!({"op": "memory.update", "id": m["id"], "body": r#"{"content":"two"}"#}));
    // 2^53 - 1 versions (the most a JS number holds exactly) over a log that holds
    // every slot up to 64^9: the head reads, and the next number would be past it.
    common::claim_versions(&a.store, 8, (1 << 53) - 1);
    writes_are_refused_as_damage(&a);
}

#[test]
fn a_memory_never_conflicts_with_itself() {
    let a = api();
    let m = a.create("/d/a.md", "a");
    let id = m["id"].as_str().unwrap().to_string();
    // Up onto its own parent directory: /d exists only because of this memory.
    let up = a.ok(json!({"op": "memory.update", "id": id, "body": r#"{"path":"/d"}"#}));
    assert_eq!(
        (up["id"].as_str(), up["path"].as_str()),
        (Some(id.as_str()), Some("/d"))
    );
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories/d"})),
        "Here's the content of /memories/d with line numbers:\n     1\ta"
    );
    // And back down beneath its own path: the file at /d is this memory.
    let down = a.ok(json!({"op": "memory.update", "id": id, "body": r#"{"path":"/d/a.md"}"#}));
    assert_eq!(down["path"], "/d/a.md");
    assert_eq!(
        a.versions(&id),
        [
            ("modified".to_string(), "/d/a.md".to_string()),
            ("modified".to_string(), "/d".to_string()),
            ("created".to_string(), "/d/a.md".to_string()),
        ]
    );
    // Another memory beneath the target still blocks, and is the one named.
    let b = a.create("/d/b.md", "b");
    let r = a.call(
        json!({"op": "memory.update", "id": id, "body": r#"{"path":"/d","content":"changed"}"#}),
    );
    assert_eq!(
        r,
        json!({"status": 409, "body": {"type": "error", "error": {
            "type": "memory_path_conflict_error",
            "message": "The path /d conflicts with memory mem_abcdefghjkmn_4 at /d/b.md.",
            "conflicting_path": "/d/b.md",
            "conflicting_memory_id": "mem_abcdefghjkmn_4"
        }}})
    );
    // not_exists onto the taken path: the whole update is a no-op, content included.
    let before = a.dump();
    let kept = a.ok(json!({"op": "memory.update", "id": id, "query": {"view": "full"}, "body": r#"{"path":"/d","content":"changed","precondition":{"type":"not_exists"}}"#}));
    assert_eq!(
        (kept["path"].as_str(), kept["content"].as_str()),
        (Some("/d/a.md"), Some("a"))
    );
    assert_eq!(a.dump(), before);
    // Once the other memory is gone, the same update applies whole.
    a.ok(json!({"op": "memory.delete", "id": b["id"]}));
    let moved = a.ok(json!({"op": "memory.update", "id": id, "query": {"view": "full"}, "body": r#"{"path":"/d","content":"changed","precondition":{"type":"not_exists"}}"#}));
    assert_eq!(
        (moved["path"].as_str(), moved["content"].as_str()),
        (Some("/d"), Some("changed"))
    );
    assert_eq!(
        a.tool(json!({"command": "view", "path": "/memories"})),
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n7B\t/memories\n7B\t/memories/d"
    );
}

/// Another instance's command, run to its end just before this engine's first
/// `op` ("get" or "delete") of a key under `prefix`: a race landing at that exact
/// point, every time.
type Cut = std::rc::Rc<
    std::cell::RefCell<Option<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>>>,
>;

struct Between {
    inner: MemoryStore,
    op: &'static str,
    prefix: &'static str,
    cut: Cut,
}

impl Between {
    async fn maybe(&self, op: &str, key: &str) {
        if op != self.op || !key.starts_with(self.prefix) {
            return;
        }
        let other = self.cut.borrow_mut().take();
        if let Some(other) = other {
            other.await;
        }
    }
}

impl Store for Between {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, memdir::StoreError> {
        self.maybe("get", key).await;
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), memdir::StoreError> {
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), memdir::StoreError> {
        self.maybe("delete", key).await;
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
}

/// An engine over `store` as [`common::api_engine`] makes one (its clock and its
/// store record), whose store runs `cut` at the first `op` of a key under `prefix`;
/// and a second engine on the same store, another instance whose clock is a day on.
fn two_instances(
    op: &'static str,
    prefix: &'static str,
) -> (
    Engine<Between>,
    std::rc::Rc<Engine<MemoryStore>>,
    MemoryStore,
    Cut,
) {
    let store = MemoryStore::new();
    let cut: Cut = Default::default();
    let config = Config {
        actor: "sesn_test".into(),
        ..Config::default()
    };
    let between = Between {
        inner: store.clone(),
        op,
        prefix,
        cut: cut.clone(),
    };
    let mut engine = Engine::new(between, config.clone());
    let now = std::rc::Rc::new(std::cell::Cell::new(1_795_000_000_000u64));
    engine.set_clock(Box::new(move || {
        now.set(now.get() + 1000);
        now.get()
    }));
    let made = block_on(
        engine.api(&json!({"op": "store.create", "id": STORE_ID, "body": r#"{"name":"Prefs"}"#})),
    );
    assert_eq!(made.status, 200, "{:?}", made.body);
    let mut other = Engine::new(store.clone(), config);
    other.set_clock(Box::new(|| 1_795_086_400_000));
    (engine, std::rc::Rc::new(other), store, cut)
}

fn call_on<S: Store>(engine: &Engine<S>, request: Value) -> Value {
    let r = block_on(engine.api(&request));
    json!({"status": r.status, "body": r.body})
}

#[test]
fn a_redaction_answers_what_it_published_when_retention_drops_the_version_at_once() {
    let (a, other, store, cut) = two_instances("delete", "rec/");
    let m = call_on(
        &a,
        json!({"op": "memory.create", "body": r#"{"path":"/s.md","content":"secret QUINCE"}"#}),
    );
    let id = m["body"]["id"].as_str().unwrap().to_string();
    call_on(
        &a,
        json!({"op": "memory.update", "id": id, "body": r#"{"content":"public"}"#}),
    );
    // The redaction has published and starts erasing the old record: another
    // instance's retention pass drops the (now redacted) version right then.
    *cut.borrow_mut() = Some(Box::pin(async move {
        let report = other.retain(1000).await.unwrap();
        assert_eq!(report.dropped, 1);
    }));
    let r = call_on(
        &a,
        json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1", "body": "{}"}),
    );
    assert!(cut.borrow().is_none(), "the retention pass ran");
    assert_eq!(
        r,
        json!({"status": 200, "body": {
            "type": "memory_version",
            "id": "memver_abcdefghjkmn_1",
            "memory_id": "mem_abcdefghjkmn_1",
            "memory_store_id": STORE_ID,
            "operation": "created",
            "created_at": "2026-11-18T11:06:43.000Z",
            "created_by": {"type": "session_actor", "session_id": "sesn_test"},
            "path": null,
            "content_sha256": null,
            "content_size_bytes": null,
            "content": null,
            "redacted_at": "2026-11-18T11:06:47.000Z",
            "redacted_by": {"type": "session_actor", "session_id": "sesn_test"}
        }})
    );
    // Dropped since, and the text is in no stored value.
    let gone = call_on(
        &a,
        json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_1"}),
    );
    assert_eq!(gone["status"], 404);
    assert!(
        !common::dump(&store)
            .iter()
            .any(|(_, v)| v.windows(7).any(|w| w == b"QUINCE ")),
        "the redacted text is gone"
    );
}

#[test]
fn a_read_racing_a_redaction_on_another_instance_reads_again_at_the_new_head() {
    let (reader, other, _, cut) = two_instances("get", "rec/");
    let w = other.clone();
    let write = |request: Value| {
        let r = block_on(w.api(&request));
        assert_eq!(r.status, 200, "{:?}", r.body);
        r.body
    };
    let m = write(json!({"op": "memory.create", "body": r#"{"path":"/s.md","content":"secret"}"#}));
    write(json!({"op": "memory.update", "id": m["id"], "body": r#"{"content":"public"}"#}));
    // The reader has read the head and asks for the first record: the other instance
    // redacts that version (erasing its record) right then.
    *cut.borrow_mut() = Some(Box::pin(async move {
        let r = other
            .api(&json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1", "body": "{}"}))
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }));
    let r = call_on(
        &reader,
        json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_1"}),
    );
    assert!(cut.borrow().is_none(), "the redaction ran");
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(
        (
            &r["body"]["content"],
            &r["body"]["path"],
            &r["body"]["redacted_at"]
        ),
        (
            &Value::Null,
            &Value::Null,
            &json!("2026-11-19T11:06:40.000Z")
        )
    );
    // A record missing at an unmoved head is damage, at once.
    for key in memdir::block_on(memdir::list_all(&reader.store().inner, "rec/")).unwrap() {
        block_on(reader.store().inner.delete(&key)).unwrap();
    }
    let fresh = call_on(
        &reader,
        json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_2"}),
    );
    assert_eq!(
        fresh,
        json!({"status": 500, "body": {"type": "error", "error": {"type": "api_error", "message": "The store holds a damaged record; nothing was changed."}}})
    );
}
