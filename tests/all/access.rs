//! Every write path × access: tool commands, the toolset, the API, gc, expire and
//! import on a store mounted read-only are refused (or leave it alone) with their
//! exact texts and the store's bytes unchanged; the same writes on the read-write
//! store beside it succeed. And an archived store refuses what the docs say it
//! refuses, through `memory.update` as through `memory.create`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use memdir::config::Config;
use memdir::mounts::{Access, Mount, Mounted};
use memdir::{Engine, Entry, MemoryStore, block_on, mounts::MountTarget};
use serde_json::{Value, json};

/// The store opened as a runtime opens a mount: its access in the config. Its clock
/// is later than every seeded write, so expire has something to remove.
fn engine(store: &MemoryStore, name: &str, access: Access) -> Engine<MemoryStore> {
    let mut engine = Engine::new(
        store.clone(),
        Config {
            mount: name.into(),
            actor: "sesn_1".into(),
            read_only: access == Access::ReadOnly,
            ..Config::default()
        },
    );
    engine.set_clock(Box::new(|| 1_900_000_000_000));
    engine
}

/// An API store with one memory, created and updated through the API, opened
/// again as `name` with `access`.
fn seeded(name: &str, access: Access) -> (MemoryStore, Engine<MemoryStore>, String, String) {
    let (writer, store) = common::api_engine(Config::default());
    let made = block_on(
        writer
            .api(&json!({"op": "memory.create", "body": r#"{"path":"/doc.md","content":"old"}"#})),
    );
    assert_eq!(made.status, 200, "{}", made.body);
    let mem = made.body["id"].as_str().unwrap().to_string();
    let updated = block_on(
        writer.api(&json!({"op": "memory.update", "id": mem, "body": r#"{"content":"kept"}"#})),
    );
    assert_eq!(updated.status, 200, "{}", updated.body);
    // Newest first: the second is the old content's version, which may be redacted.
    let versions =
        block_on(writer.api(&json!({"op": "version.list", "query": {"memory_id": mem}})));
    let ver = versions.body["data"][1]["id"].as_str().unwrap().to_string();
    (store.clone(), engine(&store, name, access), mem, ver)
}

struct Memory {
    mounted: Mounted<Engine<MemoryStore>>,
    team: MemoryStore,
    me: MemoryStore,
    ids: [(String, String); 2],
}

fn memory() -> Memory {
    let (team, team_engine, team_mem, team_ver) = seeded("team", Access::ReadOnly);
    let (me, me_engine, me_mem, me_ver) = seeded("me", Access::ReadWrite);
    let mount = |name: &str, access| Mount {
        name: name.into(),
        access,
        description: String::new(),
        instructions: String::new(),
    };
    let mounted = Mounted::new(vec![
        (mount("team", Access::ReadOnly), team_engine),
        (mount("me", Access::ReadWrite), me_engine),
    ])
    .unwrap();
    Memory {
        mounted,
        team,
        me,
        ids: [(team_mem, team_ver), (me_mem, me_ver)],
    }
}

fn tool(m: &Memory, input: Value) -> (String, bool) {
    match block_on(m.mounted.run(memdir::Command::from_value(&input).unwrap())) {
        Ok(text) => (text, false),
        Err(e) => (format!("Error: {e}"), true),
    }
}

/// What a write answered, and whether it was refused.
type Answer = (String, bool);

const RO_API: &str = "This memory store is mounted read-only; nothing was changed.";

/// One write through one face, on the store mounted at `at`; what it answered.
fn write(m: &Memory, face: &str, at: &str) -> (String, bool) {
    let i = usize::from(at == "me");
    let (mem, ver) = &m.ids[i];
    let engine = m.mounted.engine(at).unwrap();
    let api = |request: Value| {
        let r = block_on(engine.api(&request));
        let text = if r.status == 200 {
            "ok".to_string()
        } else {
            format!(
                "{} {}: {}",
                r.status,
                r.body["error"]["type"].as_str().unwrap(),
                r.body["error"]["message"].as_str().unwrap()
            )
        };
        (text, r.status != 200)
    };
    let toolset = |name: &str, input: Value| match block_on(m.mounted.toolset(name, &input)) {
        Ok(_) => ("ok".to_string(), false),
        Err(e) => (format!("{}: {e}", e.kind()), true),
    };
    let p = |rest: &str| format!("/memories/{at}/{rest}");
    let ok = |r: (String, bool)| if r.1 { r } else { ("ok".to_string(), false) };
    match face {
        "create" => ok(tool(
            m,
            json!({"command": "create", "path": p("new.md"), "file_text": "x"}),
        )),
        "str_replace" => ok(tool(
            m,
            json!({"command": "str_replace", "path": p("doc.md"), "old_str": "kept", "new_str": "gone"}),
        )),
        "insert" => ok(tool(
            m,
            json!({"command": "insert", "path": p("doc.md"), "insert_line": 0, "insert_text": "x"}),
        )),
        "delete" => ok(tool(m, json!({"command": "delete", "path": p("doc.md")}))),
        "rename" => ok(tool(
            m,
            json!({"command": "rename", "old_path": p("doc.md"), "new_path": p("moved.md")}),
        )),
        "memory_write" => toolset(
            "memory_write",
            json!({"path": format!("/{at}/w.md"), "content": "x"}),
        ),
        "memory_edit" => toolset(
            "memory_edit",
            json!({"path": format!("/{at}/doc.md"), "old_str": "kept", "new_str": "x"}),
        ),
        "memory_delete" => toolset("memory_delete", json!({"path": format!("/{at}/doc.md")})),
        "memory.create" => {
            api(json!({"op": "memory.create", "body": r#"{"path":"/api.md","content":"x"}"#}))
        }
        "memory.update" => {
            api(json!({"op": "memory.update", "id": mem, "body": r#"{"content":"changed"}"#}))
        }
        "memory.delete" => api(json!({"op": "memory.delete", "id": mem})),
        "version.redact" => api(json!({"op": "version.redact", "id": ver, "body": "{}"})),
        "store.update" => api(json!({"op": "store.update", "body": r#"{"name":"Renamed"}"#})),
        "store.archive" => api(json!({"op": "store.archive"})),
        "gc" => {
            let r = block_on(engine.gc(0)).unwrap();
            (format!("gc deleted {}", r.deleted), false)
        }
        "expire" => {
            let r = block_on(engine.expire(0)).unwrap();
            (format!("expire removed {}", r.removed), false)
        }
        "import" => {
            let entries = [Entry {
                path: "/memories/imported.md".into(),
                content: Some("x".into()),
            }];
            match block_on(engine.import(&entries)) {
                Ok(()) => ("ok".into(), false),
                Err(e) => (format!("Error: {e}"), true),
            }
        }
        other => panic!("no face {other}"),
    }
}

#[test]
fn every_write_path_honours_read_only_and_the_read_write_store_takes_it() {
    let ro = |cmd: &str, path: &str| {
        (
            format!(
                "Error: Cannot {cmd} {path}: the memory store mounted at /memories/team is read-only"
            ),
            true,
        )
    };
    let toolset_ro = |verb: &str, path: &str| {
        (
            format!(
                "read_only: Cannot {verb} {path}: the memory store at /team is read-only; nothing was written."
            ),
            true,
        )
    };
    let api_ro = (format!("403 permission_error: {RO_API}"), true);
    let ok = ("ok".to_string(), false);
    // face, answer on the read-only store, answer on the read-write one
    let table: Vec<(&str, Answer, Answer)> = vec![
        ("create", ro("create", "/memories/team/new.md"), ok.clone()),
        (
            "str_replace",
            ro("str_replace", "/memories/team/doc.md"),
            ok.clone(),
        ),
        ("insert", ro("insert", "/memories/team/doc.md"), ok.clone()),
        ("rename", ro("rename", "/memories/team/doc.md"), ok.clone()),
        (
            "memory_write",
            toolset_ro("write", "/team/w.md"),
            ok.clone(),
        ),
        (
            "memory_edit",
            toolset_ro("edit", "/team/doc.md"),
            ok.clone(),
        ),
        ("memory.create", api_ro.clone(), ok.clone()),
        ("memory.update", api_ro.clone(), ok.clone()),
        ("version.redact", api_ro.clone(), ok.clone()),
        ("store.update", api_ro.clone(), ok.clone()),
        (
            "memory_delete",
            toolset_ro("delete", "/team/doc.md"),
            ok.clone(),
        ),
        ("memory.delete", api_ro.clone(), ok.clone()),
        ("delete", ro("delete", "/memories/team/doc.md"), ok.clone()),
        (
            "import",
            (
                "Error: This memory store is mounted read-only; nothing was changed".into(),
                true,
            ),
            ok.clone(),
        ),
        (
            "expire",
            ("expire removed 0".into(), false),
            ("expire removed 1".into(), false),
        ),
        (
            "gc",
            ("gc deleted 0".into(), false),
            ("gc deleted 0".into(), false),
        ),
        ("store.archive", api_ro.clone(), ok.clone()),
    ];
    for (face, on_ro, on_rw) in &table {
        // A fresh memory for each row: every write meets the same seeded stores.
        let m = memory();
        let team_before = common::dump(&m.team);
        assert_eq!(
            &write(&m, face, "team"),
            on_ro,
            "{face} on the read-only store"
        );
        assert_eq!(
            common::dump(&m.team),
            team_before,
            "{face} wrote to the read-only store"
        );
        let me_before = common::dump(&m.me);
        assert_eq!(
            &write(&m, face, "me"),
            on_rw,
            "{face} on the read-write store"
        );
        if *face != "gc" {
            assert_ne!(
                common::dump(&m.me),
                me_before,
                "{face} changed nothing on the read-write store"
            );
        }
    }
}

#[test]
fn a_toolset_write_to_the_whole_memory_is_refused_before_it_is_routed() {
    let m = memory();
    let before = common::dump(&m.team);
    let e = block_on(
        m.mounted
            .toolset("memory_write", &json!({"path": "/", "content": "x"})),
    )
    .unwrap_err();
    assert_eq!(
        (e.kind(), e.to_string()),
        (
            "read_only",
            "Cannot write /: the memory store at /team is read-only; nothing was written."
                .to_string()
        )
    );
    assert_eq!(common::dump(&m.team), before);
}

#[test]
fn the_engine_refuses_a_write_to_a_read_only_store_whatever_face_missed_it() {
    // The engine alone, no Mounted in front of it: its own check stops a commit.
    let (store, team, _, _) = seeded("", Access::ReadOnly);
    let before = common::dump(&store);
    let r = block_on(
        team.execute(&json!({"command": "create", "path": "/memories/x.md", "file_text": "x"})),
    );
    assert_eq!(
        r.content,
        "Error: This memory store is mounted read-only; nothing was changed"
    );
    assert!(r.is_error);
    let top = block_on(MountTarget::top_entries(&team)).unwrap();
    assert_eq!(top.entries.len(), 1);
    assert_eq!(common::dump(&store), before);
}

#[test]
fn the_api_refuses_every_write_to_a_read_only_store_before_reading_it() {
    // The 403 comes before any store operation: a write to a read-only store costs
    // nothing and cannot reach the publish backstop, which would answer the same.
    let (store, _, mem, ver) = seeded("", Access::ReadOnly);
    let counted = common::Harness::new(store);
    let shared = counted.shared.clone();
    let team = Engine::new(
        counted,
        Config {
            read_only: true,
            ..Config::default()
        },
    );
    let writes = [
        json!({"op": "store.create", "body": r#"{"name":"x"}"#}),
        json!({"op": "store.update", "body": r#"{"name":"x"}"#}),
        json!({"op": "store.archive"}),
        json!({"op": "store.delete"}),
        json!({"op": "memory.create", "body": r#"{"path":"/n.md","content":"x"}"#}),
        json!({"op": "memory.update", "id": mem, "body": r#"{"content":"x"}"#}),
        json!({"op": "memory.delete", "id": mem}),
        json!({"op": "version.redact", "id": ver}),
    ];
    for request in writes {
        shared.reset();
        let r = block_on(team.api(&request));
        assert_eq!(
            (r.status, r.body["error"]["type"].as_str()),
            (403, Some("permission_error")),
            "{request}"
        );
        assert_eq!(shared.ops.get(), 0, "{request} touched the store");
    }
}

#[test]
fn an_archived_store_refuses_creates_and_updates_and_allows_deletes() {
    let (engine, store) = common::api_engine(Config::default());
    let api = |request: Value| {
        let r = block_on(engine.api(&request));
        (r.status, r.body)
    };
    let (_, made) =
        api(json!({"op": "memory.create", "body": r#"{"path":"/a.md","content":"a"}"#}));
    let mem = made["id"].as_str().unwrap().to_string();
    assert_eq!(api(json!({"op": "store.archive"})).0, 200);
    let before = common::dump(&store);
    let refused = "This memory store is archived: its memories can be read and deleted, not created or changed.";
    for request in [
        json!({"op": "memory.create", "body": r#"{"path":"/b.md","content":"b"}"#}),
        json!({"op": "memory.update", "id": mem, "body": r#"{"content":"changed"}"#}),
        json!({"op": "memory.update", "id": mem, "body": r#"{"path":"/moved.md"}"#}),
    ] {
        let (status, body) = api(request.clone());
        assert_eq!(
            (status, body["error"]["message"].as_str().unwrap()),
            (400, refused),
            "{request}"
        );
        assert_eq!(common::dump(&store), before, "{request} wrote");
    }
    assert_eq!(
        api(json!({"op": "store.update", "body": r#"{"name":"x"}"#})).1["error"]["message"],
        "This memory store is archived and cannot be updated."
    );
    assert_eq!(api(json!({"op": "memory.delete", "id": mem})).0, 200);
}
