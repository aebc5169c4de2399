//! The memory-store toolset (src/toolset): every tool's exact answers and errors,
//! the versions its writes record (the API's own), paths shown under a mount
//! prefix, and bad inputs that change nothing in the store.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use memdir::ToolsetError;
use memdir::config::{Config, Limits};
use memdir::toolset::TOOLS;
use memdir::{Engine, MemoryStore, SecretPolicy, block_on};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

struct T {
    engine: Engine<MemoryStore>,
    store: MemoryStore,
}

fn with(config: Config) -> T {
    let (engine, store) = common::api_engine(config);
    T { engine, store }
}

fn setup() -> T {
    with(Config {
        actor: "sesn_test".into(),
        ..Config::default()
    })
}

fn sha(s: &str) -> String {
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl T {
    fn run(&self, prefix: &str, name: &str, input: Value) -> Result<String, ToolsetError> {
        block_on(self.engine.toolset(prefix, name, &input))
    }

    /// The answer of a call that must succeed.
    fn ok(&self, name: &str, input: Value) -> String {
        self.run("", name, input.clone())
            .unwrap_or_else(|e| panic!("{name} {input} -> {e}"))
    }

    /// The text and kind of a call that must fail, checking it changed nothing.
    fn err(&self, prefix: &str, name: &str, input: Value) -> (String, &'static str) {
        let before = self.dump();
        let e = self.run(prefix, name, input.clone()).unwrap_err();
        assert_eq!(self.dump(), before, "{name} {input} changed the store");
        (e.to_string(), e.kind())
    }

    fn api(&self, request: Value) -> Value {
        let r = block_on(self.engine.api(&request));
        assert_eq!(r.status, 200, "{request} -> {}", r.body);
        r.body
    }

    fn dump(&self) -> Vec<(String, Vec<u8>)> {
        common::dump(&self.store)
    }

    /// Each memory's versions, newest first: (operation, path).
    fn versions(&self) -> Vec<(String, String, String)> {
        let page = self.api(json!({"op": "version.list", "query": {"limit": "100"}}));
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                (
                    v["memory_id"].as_str().unwrap().to_string(),
                    v["operation"].as_str().unwrap().to_string(),
                    v["path"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

#[test]
fn the_tools_are_six_one_sentence_each_with_an_object_schema() {
    let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "memory_list",
            "memory_search",
            "memory_read",
            "memory_write",
            "memory_edit",
            "memory_delete"
        ]
    );
    let read_only: Vec<&str> = TOOLS
        .iter()
        .filter(|t| t.read_only)
        .map(|t| t.name)
        .collect();
    assert_eq!(read_only, ["memory_list", "memory_search", "memory_read"]);
    for t in TOOLS {
        assert!(
            t.description.ends_with('.') && !t.description.trim_end_matches('.').contains(". "),
            "one sentence: {}",
            t.description
        );
        let s: Value = serde_json::from_str(t.input_schema).unwrap();
        assert_eq!(s["type"], "object", "{}", t.name);
        assert_eq!(s["additionalProperties"], false, "{}", t.name);
        for (k, p) in s["properties"].as_object().unwrap() {
            assert!(p["description"].is_string(), "{}.{k} is described", t.name);
        }
    }
    let required = |name: &str| {
        let t = TOOLS.iter().find(|t| t.name == name).unwrap();
        let s: Value = serde_json::from_str(t.input_schema).unwrap();
        s["required"].clone()
    };
    assert_eq!(required("memory_list"), Value::Null);
    assert_eq!(required("memory_search"), json!(["query"]));
    assert_eq!(required("memory_read"), json!(["path"]));
    assert_eq!(required("memory_write"), json!(["path", "content"]));
    assert_eq!(
        required("memory_edit"),
        json!(["path", "old_str", "new_str"])
    );
    assert_eq!(required("memory_delete"), json!(["path"]));
}

#[test]
fn write_read_edit_delete_answer_exactly_and_record_versions() {
    let t = setup();
    assert_eq!(t.ok("memory_list", json!({})), "No documents under /.");
    let a = "Line 1\nLine 2\n";
    assert_eq!(
        t.ok("memory_write", json!({"path": "/notes/a.md", "content": a})),
        format!("Created /notes/a.md (14 bytes, content_sha256 {}).", sha(a))
    );
    assert_eq!(
        t.ok("memory_read", json!({"path": "/notes/a.md"})),
        format!("/notes/a.md (14 bytes, content_sha256 {}):\n{a}", sha(a))
    );
    assert_eq!(
        t.ok("memory_write", json!({"path": "/notes/a.md", "content": a})),
        format!(
            "/notes/a.md already holds this content (14 bytes, content_sha256 {}); nothing changed.",
            sha(a)
        )
    );
    let b = "Line 1\nLine two\n";
    assert_eq!(
        t.ok(
            "memory_edit",
            json!({"path": "/notes/a.md", "old_str": "Line 2", "new_str": "Line two", "content_sha256": sha(a)})
        ),
        format!("Edited /notes/a.md (16 bytes, content_sha256 {}).", sha(b))
    );
    let c = "x";
    assert_eq!(
        t.ok(
            "memory_write",
            json!({"path": "/notes/a.md", "content": c, "create_only": false})
        ),
        format!("Overwrote /notes/a.md (1 byte, content_sha256 {}).", sha(c))
    );
    assert_eq!(
        t.ok(
            "memory_write",
            json!({"path": "/b.md", "content": "", "create_only": true})
        ),
        format!("Created /b.md (0 bytes, content_sha256 {}).", sha(""))
    );
    assert_eq!(
        t.ok(
            "memory_delete",
            json!({"path": "/notes/a.md", "content_sha256": sha(c)})
        ),
        "Deleted /notes/a.md."
    );
    assert_eq!(
        t.ok("memory_delete", json!({"path": "/b.md"})),
        "Deleted /b.md."
    );
    // The API's versions, newest first: the toolset's writes are the API's writes.
    assert_eq!(
        t.versions(),
        [
            (
                "mem_abcdefghjkmn_4".into(),
                "deleted".into(),
                "/b.md".into()
            ),
            (
                "mem_abcdefghjkmn_1".into(),
                "deleted".into(),
                "/notes/a.md".into()
            ),
            (
                "mem_abcdefghjkmn_4".into(),
                "created".into(),
                "/b.md".into()
            ),
            (
                "mem_abcdefghjkmn_1".into(),
                "modified".into(),
                "/notes/a.md".into()
            ),
            (
                "mem_abcdefghjkmn_1".into(),
                "modified".into(),
                "/notes/a.md".into()
            ),
            (
                "mem_abcdefghjkmn_1".into(),
                "created".into(),
                "/notes/a.md".into()
            ),
        ]
    );
    let v = t.api(json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_2"}));
    assert_eq!(v["content"], b);
    assert_eq!(
        v["created_by"],
        json!({"type": "session_actor", "session_id": "sesn_test"})
    );
}

#[test]
fn list_shows_documents_and_directories_and_pages() {
    let t = setup();
    for (p, c) in [
        ("/notes/a.md", "aa"),
        ("/notes/deep/b.md", "bbb"),
        ("/notes_backup/old.md", "o"),
        ("/top.md", "1234"),
    ] {
        t.ok("memory_write", json!({"path": p, "content": c}));
    }
    assert_eq!(
        t.ok("memory_list", json!({})),
        "Documents under /:\n/notes/a.md (2 bytes)\n/notes/deep/b.md (3 bytes)\n/notes_backup/old.md (1 byte)\n/top.md (4 bytes)"
    );
    assert_eq!(
        t.ok("memory_list", json!({"path_prefix": "/notes/"})),
        "Documents under /notes/:\n/notes/a.md (2 bytes)\n/notes/deep/b.md (3 bytes)"
    );
    // The trailing slash may be left out; the prefix is still the directory.
    assert_eq!(
        t.ok("memory_list", json!({"path_prefix": "/notes", "depth": 1})),
        "Documents under /notes/:\n/notes/a.md (2 bytes)\n/notes/deep/ (directory)"
    );
    assert_eq!(
        t.ok("memory_list", json!({"depth": 1, "page": null})),
        "Documents under /:\n/notes/ (directory)\n/notes_backup/ (directory)\n/top.md (4 bytes)"
    );
    assert_eq!(
        t.ok("memory_list", json!({"path_prefix": "/nothing/"})),
        "No documents under /nothing/."
    );

    // Pages of memdir::config::LIST_PAGE, each saying how to get the next.
    let t = setup();
    let n = memdir::config::LIST_PAGE as usize + 3;
    for i in 0..n {
        t.ok(
            "memory_write",
            json!({"path": format!("/m/{i:04}.md"), "content": "x"}),
        );
    }
    let first = t.ok("memory_list", json!({"path_prefix": "/m/"}));
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines.len(), 1 + memdir::config::LIST_PAGE as usize + 1);
    assert_eq!(lines[1], "/m/0000.md (1 byte)");
    let more = lines.last().unwrap();
    let prefix = "More: call memory_list again with the same path_prefix and depth and page \"";
    assert!(more.starts_with(prefix), "{more}");
    let token = more
        .strip_prefix(prefix)
        .unwrap()
        .strip_suffix("\".")
        .unwrap();
    assert_eq!(
        t.ok("memory_list", json!({"path_prefix": "/m/", "page": token})),
        "Documents under /m/:\n/m/0100.md (1 byte)\n/m/0101.md (1 byte)\n/m/0102.md (1 byte)"
    );
    // A token is bound to its query.
    assert_eq!(
        t.err("", "memory_list", json!({"page": token})),
        (
            "Invalid input for memory_list: page is not a page token of this list and query."
                .into(),
            "input"
        )
    );
}

#[test]
fn search_shows_matching_lines_by_document() {
    let t = setup();
    t.ok(
        "memory_write",
        json!({"path": "/notes/a.md", "content": "Tea at four\nno coffee\nTEA again"}),
    );
    t.ok(
        "memory_write",
        json!({"path": "/notes/b.md", "content": "nothing here"}),
    );
    t.ok(
        "memory_write",
        json!({"path": "/prefs.md", "content": "green tea"}),
    );
    assert_eq!(
        t.ok("memory_search", json!({"query": "tea"})),
        "2 documents under / match \"tea\", best first:\n/notes/a.md (score 0.586)\n     1\tTea at four\n     3\tTEA again\n/prefs.md (score 0.529)\n     1\tgreen tea"
    );
    assert_eq!(
        t.ok(
            "memory_search",
            json!({"query": "tea", "path_prefix": "/notes/"})
        ),
        "1 document under /notes/ matches \"tea\":\n/notes/a.md (score 0.586)\n     1\tTea at four\n     3\tTEA again"
    );
    assert_eq!(
        t.ok("memory_search", json!({"query": "milk"})),
        "No document under / matches \"milk\"."
    );
    assert_eq!(
        t.err("", "memory_search", json!({"query": ""})),
        (
            "Invalid input for memory_search: query must be 1 to 256 characters, got 0.".into(),
            "input"
        )
    );
}

#[test]
fn edit_refuses_what_is_not_one_match_or_has_changed() {
    let t = setup();
    let a = "one\ntwo one\nthree\none";
    t.ok("memory_write", json!({"path": "/a.md", "content": a}));
    assert_eq!(
        t.err("", "memory_edit", json!({"path": "/a.md", "old_str": "one", "new_str": "1"})),
        (
            "old_str appears 3 times in /a.md, on lines 1, 2, 4; nothing was changed. Include more of the text around it so that it appears once.".into(),
            "many_matches"
        )
    );
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/a.md", "old_str": "four", "new_str": "4"})
        ),
        (
            "old_str does not appear in /a.md; nothing was changed. memory_read shows its content."
                .into(),
            "no_match"
        )
    );
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/a.md", "old_str": "three", "new_str": "3", "content_sha256": sha("old")})
        ),
        (
            format!(
                "/a.md has changed since that content_sha256 was read (it is now {}); nothing was changed. Read it again with memory_read.",
                sha(a)
            ),
            "precondition"
        )
    );
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/a.md", "old_str": "three", "new_str": "3", "content_sha256": "ABC"})
        ),
        (
            "Invalid input for memory_edit: content_sha256 must be 64 lowercase hexadecimal characters.".into(),
            "input"
        )
    );
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/a.md", "old_str": "", "new_str": "x"})
        ),
        (
            "Invalid input for memory_edit: old_str must not be empty.".into(),
            "input"
        )
    );
    assert_eq!(
        t.err(
            "",
            "memory_delete",
            json!({"path": "/a.md", "content_sha256": sha("old")})
        ),
        (
            format!(
                "/a.md has changed since that content_sha256 was read (it is now {}); nothing was changed. Read it again with memory_read.",
                sha(a)
            ),
            "precondition"
        )
    );
    // Many lines listed up to a bound.
    let many: String = (0..30).map(|_| "x\n").collect();
    t.ok("memory_write", json!({"path": "/x.md", "content": many}));
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/x.md", "old_str": "x", "new_str": "y"})
        )
        .0,
        "old_str appears 30 times in /x.md, on lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 10 more; nothing was changed. Include more of the text around it so that it appears once."
    );
}

#[test]
fn missing_documents_directories_and_conflicts() {
    let t = setup();
    t.ok(
        "memory_write",
        json!({"path": "/notes/a.md", "content": "a"}),
    );
    for tool in ["memory_read", "memory_delete"] {
        assert_eq!(
            t.err("", tool, json!({"path": "/nope.md"})),
            (
                "No document at /nope.md; memory_list shows the documents there are.".into(),
                "not_found"
            )
        );
        assert_eq!(
            t.err("", tool, json!({"path": "/notes"})),
            (
                "/notes is a directory, not a document; memory_list shows what it holds.".into(),
                "not_found"
            )
        );
    }
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/nope.md", "old_str": "a", "new_str": "b"})
        )
        .0,
        "No document at /nope.md; memory_list shows the documents there are."
    );
    assert_eq!(
        t.err(
            "",
            "memory_write",
            json!({"path": "/notes", "content": "x"})
        ),
        (
            "Cannot write /notes: it is a directory holding the document /notes/a.md; nothing was written.".into(),
            "conflict"
        )
    );
    assert_eq!(
        t.err("", "memory_write", json!({"path": "/notes/a.md/b.md", "content": "x"})),
        (
            "Cannot write /notes/a.md/b.md: /notes/a.md is a document, so nothing can be beneath it; nothing was written.".into(),
            "conflict"
        )
    );
    assert_eq!(
        t.err(
            "",
            "memory_write",
            json!({"path": "/notes/a.md", "content": "x", "create_only": true})
        ),
        (
            "/notes/a.md already exists and create_only is set; nothing was written.".into(),
            "precondition"
        )
    );
    // Once its document is deleted, /notes is an empty directory: no document
    // blocks it, so a write (create_only too) replaces it.
    t.ok("memory_delete", json!({"path": "/notes/a.md"}));
    assert_eq!(
        t.ok(
            "memory_write",
            json!({"path": "/notes", "content": "x", "create_only": true})
        )
        .lines()
        .next()
        .unwrap(),
        "Created /notes (1 byte, content_sha256 2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881)."
    );
}

#[test]
fn inputs_are_held_to_the_schema_and_paths_to_the_rules() {
    let t = setup();
    t.ok("memory_write", json!({"path": "/a.md", "content": "a"}));
    let cases: [(&str, Value, &str, &str); 12] = [
        (
            "memory_rename",
            json!({}),
            "Unknown tool \"memory_rename\". The memory tools are memory_list, memory_search, memory_read, memory_write, memory_edit and memory_delete.",
            "unknown_tool",
        ),
        (
            "memory_read",
            json!(["/a.md"]),
            "Invalid input for memory_read: the input must be a JSON object, got an array.",
            "input",
        ),
        (
            "memory_read",
            json!({}),
            "Invalid input for memory_read: path is required.",
            "input",
        ),
        (
            "memory_read",
            json!({"path": null}),
            "Invalid input for memory_read: path is required.",
            "input",
        ),
        (
            "memory_read",
            json!({"path": 7}),
            "Invalid input for memory_read: path must be a string, got a number.",
            "input",
        ),
        (
            "memory_write",
            json!({"path": "/a.md", "content": "b", "mode": "x"}),
            "Invalid input for memory_write: \"mode\" is not one of its fields (memory_write takes content, create_only and path).",
            "input",
        ),
        (
            "memory_write",
            json!({"path": "/a.md", "content": "b", "create_only": "yes"}),
            "Invalid input for memory_write: create_only must be true or false, got a string.",
            "input",
        ),
        (
            "memory_list",
            json!({"depth": 0}),
            "Invalid input for memory_list: depth must be a whole number of at least 1, got 0.",
            "input",
        ),
        (
            "memory_list",
            json!({"depth": 1.5}),
            "Invalid input for memory_list: depth must be a whole number, got 1.5.",
            "input",
        ),
        (
            "memory_read",
            json!({"path": "a.md"}),
            "path must start with '/', got \"a.md\"",
            "path",
        ),
        (
            "memory_write",
            json!({"path": "/x/../a.md", "content": "b"}),
            "path \"/x/../a.md\" is not valid: a segment is '.' or '..', or holds a separator or a look-alike of one",
            "path",
        ),
        (
            "memory_list",
            json!({"path_prefix": "notes/"}),
            "path must start with '/', got \"notes/\"",
            "path",
        ),
    ];
    for (tool, input, text, kind) in cases {
        assert_eq!(
            t.err("", tool, input.clone()),
            (text.to_string(), kind),
            "{tool} {input}"
        );
    }
    assert_eq!(
        block_on(t.engine.toolset_json("", "memory_read", "{nope"))
            .unwrap_err()
            .to_string(),
        "Invalid input for memory_read: the input is not valid JSON."
    );
    assert_eq!(
        t.ok("memory_read", json!({"path": "/a.md"})),
        format!("/a.md (1 byte, content_sha256 {}):\na", sha("a"))
    );
}

#[test]
fn a_mounted_store_shows_every_path_under_its_prefix() {
    let t = setup();
    let run = |name: &str, input: Value| t.run("/team", name, input);
    assert_eq!(
        run(
            "memory_write",
            json!({"path": "/notes/a.md", "content": "hi"})
        )
        .unwrap(),
        format!(
            "Created /team/notes/a.md (2 bytes, content_sha256 {}).",
            sha("hi")
        )
    );
    assert_eq!(
        run("memory_list", json!({"path_prefix": "/notes/"})).unwrap(),
        "Documents under /team/notes/:\n/team/notes/a.md (2 bytes)"
    );
    assert_eq!(
        run("memory_list", json!({"depth": 1})).unwrap(),
        "Documents under /team/:\n/team/notes/ (directory)"
    );
    assert_eq!(
        run("memory_search", json!({"query": "HI"})).unwrap(),
        "1 document under /team/ matches \"HI\":\n/team/notes/a.md (score 0.288)\n     1\thi"
    );
    assert_eq!(
        run("memory_read", json!({"path": "/notes/a.md"})).unwrap(),
        format!(
            "/team/notes/a.md (2 bytes, content_sha256 {}):\nhi",
            sha("hi")
        )
    );
    assert_eq!(
        t.err("/team", "memory_read", json!({"path": "/notes/b.md"}))
            .0,
        "No document at /team/notes/b.md; memory_list shows the documents there are."
    );
    assert_eq!(
        t.err("/team", "memory_read", json!({"path": "/notes/../b.md"}))
            .0,
        "path \"/team/notes/../b.md\" is not valid: a segment is '.' or '..', or holds a separator or a look-alike of one"
    );
    assert_eq!(
        t.err(
            "/team",
            "memory_write",
            json!({"path": "/notes/a.md/x", "content": ""})
        )
        .0,
        "Cannot write /team/notes/a.md/x: /team/notes/a.md is a document, so nothing can be beneath it; nothing was written."
    );
    assert_eq!(
        run("memory_delete", json!({"path": "/notes/a.md"})).unwrap(),
        "Deleted /team/notes/a.md."
    );
}

#[test]
fn the_memory_tool_and_the_toolset_share_documents() {
    let t = setup();
    let r = block_on(t.engine.execute(&json!({"command": "create", "path": "/memories/notes/a.md", "file_text": "from the tool\n"})));
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(
        t.ok("memory_read", json!({"path": "/notes/a.md"})),
        format!(
            "/notes/a.md (14 bytes, content_sha256 {}):\nfrom the tool\n",
            sha("from the tool\n")
        )
    );
    t.ok(
        "memory_edit",
        json!({"path": "/notes/a.md", "old_str": "the tool", "new_str": "both"}),
    );
    let r = block_on(
        t.engine
            .execute(&json!({"command": "view", "path": "/memories/notes/a.md"})),
    );
    assert_eq!(
        r.content,
        "Here's the content of /memories/notes/a.md with line numbers:\n     1\tfrom both\n     2\t"
    );
    // A store opened only for the memory tool (no store record) serves the toolset too.
    let bare = Engine::new(MemoryStore::new(), Config::default());
    assert_eq!(
        block_on(bare.toolset(
            "",
            "memory_write",
            &json!({"path": "/x.md", "content": "x"})
        ))
        .unwrap(),
        format!("Created /x.md (1 byte, content_sha256 {}).", sha("x"))
    );
}

#[test]
fn the_store_rules_refuse_writes_that_break_them() {
    let t = with(Config {
        limits: Limits {
            max_file_bytes: 10,
            max_memories: 2,
            ..Limits::default()
        },
        secrets: SecretPolicy::Redact,
        ..Config::default()
    });
    assert_eq!(
        t.err(
            "",
            "memory_write",
            json!({"path": "/a.md", "content": "12345678901"})
        ),
        ("content must be at most 10 bytes, got 11".into(), "refused")
    );
    t.ok(
        "memory_write",
        json!({"path": "/a.md", "content": "0123456789"}),
    );
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/a.md", "old_str": "0", "new_str": "00"})
        )
        .0,
        "content must be at most 10 bytes, got 11"
    );
    t.ok("memory_write", json!({"path": "/b.md", "content": "b"}));
    assert_eq!(
        t.err("", "memory_write", json!({"path": "/c.md", "content": "c"}))
            .0,
        "This memory store holds 2 memories, the most it may; delete some first."
    );
    t.api(json!({"op": "store.archive"}));
    assert_eq!(
        t.err("", "memory_write", json!({"path": "/a.md", "content": "x"})),
        (
            "This memory store is archived: its documents can be listed, searched, read and deleted, not written or edited.".into(),
            "archived"
        )
    );
    assert_eq!(
        t.err(
            "",
            "memory_edit",
            json!({"path": "/a.md", "old_str": "0", "new_str": "x"})
        )
        .1,
        "archived"
    );
    assert!(
        t.ok("memory_read", json!({"path": "/a.md"}))
            .starts_with("/a.md (10 bytes")
    );
    assert_eq!(
        t.ok("memory_delete", json!({"path": "/b.md"})),
        "Deleted /b.md."
    );
}

#[test]
fn a_credential_is_redacted_and_the_answer_says_so() {
    let t = with(Config {
        secrets: SecretPolicy::Redact,
        ..Config::default()
    });
    let key = format!("sk-ant-api03-{}", "a".repeat(93));
    let answer = t.ok(
        "memory_write",
        json!({"path": "/k.md", "content": format!("key {key}")}),
    );
    let stored = t.ok("memory_read", json!({"path": "/k.md"}));
    let content = stored.split_once('\n').unwrap().1;
    assert!(!content.contains(&key), "{content}");
    assert_eq!(
        answer,
        format!(
            "Created /k.md ({} bytes, content_sha256 {}). Text that looked like a credential was redacted before it was stored.",
            content.len(),
            sha(content)
        )
    );
}
