//! Search in the host: `memory.search`, `memory.recall`, the index's status and
//! the memory-store toolset, through the component's exports, over one store and
//! over several mounted; and the CLI's `search`, `recall`, `reindex` and
//! `search-status`.

use std::process::{Command, Output};
use std::sync::Arc;

use memdir::config::Config;
use memdir::mounts::{Access, Mount};
use memdir::{Engine, ErrorKind, block_on};
use memdir_host::{
    Backend, CallErrorKind, DirBackend, Host, HostLimits, IndexStatus, MountedHost, ToolConfig,
};
use serde_json::{Value, json};

use crate::support::{self, TempDir};

fn host(backend: &Arc<dyn Backend>) -> Host {
    support::runtime().host(backend.clone(), HostLimits::default())
}

fn create(h: &mut Host, path: &str, text: &str) {
    let r =
        h.execute_json(&json!({"command": "create", "path": path, "file_text": text}).to_string());
    assert_eq!(
        (r.content.as_str(), r.is_error),
        (
            format!("File created successfully at: {path}").as_str(),
            false
        )
    );
}

/// The paths of a search's answer, best first, and each hit's lines as `n: text`.
fn hits(answer: &str) -> Vec<(String, Vec<String>)> {
    let v: Value = serde_json::from_str(answer).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let lines = h["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| format!("{}: {}", l["line"], l["text"].as_str().unwrap()))
                .collect();
            (h["path"].as_str().unwrap().to_string(), lines)
        })
        .collect()
}

/// The same search by the native engine over the same store: the component's
/// answer must be the engine's, score for score.
fn native(backend: &Arc<dyn Backend>, request: Value) -> String {
    let engine = Engine::new(&**backend, Config::default());
    block_on(engine.search_json(&request)).unwrap().to_string()
}

#[test]
fn a_search_on_a_directory_store_finds_what_the_host_wrote() {
    let dir = TempDir::new("search");
    let backend: Arc<dyn Backend> = Arc::new(DirBackend::open(&dir.0).unwrap());
    let mut h = host(&backend);
    create(
        &mut h,
        "/memories/preferences/formatting.md",
        "Use tabs, not spaces.\nWrap at 100 columns.\n",
    );
    create(&mut h, "/memories/notes/tabs.md", "tabs tabs tabs\nother\n");
    create(&mut h, "/memories/notes/草稿.md", "我喜欢北京的秋天\n");

    let answer = h.search_json(r#"{"query":"tabs"}"#).unwrap();
    assert_eq!(
        hits(&answer),
        vec![
            (
                "/memories/notes/tabs.md".to_string(),
                vec!["1: tabs tabs tabs".to_string()]
            ),
            (
                "/memories/preferences/formatting.md".to_string(),
                vec!["1: Use tabs, not spaces.".to_string()]
            ),
        ]
    );
    assert_eq!(answer, native(&backend, json!({"query": "tabs"})));
    // A path's segment is found; a CJK word by its pairs.
    let answer = h
        .search_json(r#"{"query":"formatting","limit":1}"#)
        .unwrap();
    assert_eq!(
        hits(&answer),
        vec![("/memories/preferences/formatting.md".to_string(), vec![])]
    );
    let answer = h.search_json(r#"{"query":"北京"}"#).unwrap();
    assert_eq!(
        hits(&answer),
        vec![(
            "/memories/notes/草稿.md".to_string(),
            vec!["1: 我喜欢北京的秋天".to_string()]
        )]
    );
    // Only under a directory.
    let answer = h
        .search_json(r#"{"query":"tabs","path_prefix":"/memories/preferences"}"#)
        .unwrap();
    assert_eq!(
        hits(&answer),
        vec![(
            "/memories/preferences/formatting.md".to_string(),
            vec!["1: Use tabs, not spaces.".to_string()]
        )]
    );
    // The index is in the store: a fresh host (a fresh instance) finds the same,
    // with nothing pending.
    let mut again = host(&backend);
    assert_eq!(
        again.search_status().unwrap(),
        IndexStatus {
            indexed: 3,
            pending: false,
            vectors: None,
        }
    );
    assert_eq!(
        again.search_json(r#"{"query":"tabs"}"#).unwrap(),
        h.search_json(r#"{"query":"tabs"}"#).unwrap()
    );
}

#[test]
fn a_hit_deleted_or_renamed_away_is_never_found_again() {
    for kind in support::KINDS {
        let (backend, _dir) = support::fresh(kind);
        let mut h = host(&backend);
        create(&mut h, "/memories/a.md", "the harbour key is blue\n");
        create(&mut h, "/memories/b.md", "the harbour gate\n");
        let found = |h: &mut Host| -> Vec<String> {
            hits(&h.search_json(r#"{"query":"harbour"}"#).unwrap())
                .into_iter()
                .map(|(p, _)| p)
                .collect()
        };
        // The shorter text ranks first (BM25 normalises by length).
        assert_eq!(found(&mut h), ["/memories/b.md", "/memories/a.md"]);
        let r = h.execute_json(r#"{"command":"delete","path":"/memories/a.md"}"#);
        assert_eq!(r.content, "Successfully deleted /memories/a.md");
        // Another instance (another process's view) and this one: never again.
        let mut other = host(&backend);
        assert_eq!(found(&mut other), ["/memories/b.md"], "{kind:?}");
        assert_eq!(found(&mut h), ["/memories/b.md"], "{kind:?}");
        let r = h.execute_json(
            r#"{"command":"rename","old_path":"/memories/b.md","new_path":"/memories/gate.md"}"#,
        );
        assert!(!r.is_error, "{}", r.content);
        assert_eq!(found(&mut h), ["/memories/gate.md"], "{kind:?}");
        assert_eq!(found(&mut other), ["/memories/gate.md"], "{kind:?}");
        // A write the index has not seen shows as pending until a search or a
        // reindex reads it.
        create(&mut h, "/memories/c.md", "harbour lights\n");
        assert_eq!(
            other.search_status().unwrap(),
            IndexStatus {
                indexed: 1,
                pending: true,
                vectors: None,
            }
        );
        assert_eq!(
            other
                .reindex(memdir::config::SEARCH_REINDEX_ROUNDS)
                .unwrap(),
            IndexStatus {
                indexed: 2,
                pending: false,
                vectors: None,
            }
        );
    }
}

#[test]
fn recall_is_the_engines_block_within_its_budget() {
    let (backend, _dir) = support::fresh(support::Kind::Memory);
    let mut h = host(&backend);
    create(
        &mut h,
        "/memories/prefs.md",
        "Answer in German.\nKeep it short.\n",
    );
    create(&mut h, "/memories/other.md", "German grammar notes\n");
    assert_eq!(
        h.recall_json(r#"{"query":"German answer","limit":1}"#)
            .unwrap(),
        "<memories>\n<memory path=\"/memories/prefs.md\">\nAnswer in German.\nKeep it short.\n</memory>\n</memories>"
    );
    let engine = Engine::new(&*backend, Config::default());
    for request in [
        json!({"query": "German"}),
        json!({"query": "German", "max_chars": 90}),
        json!({"query": "zebra"}),
    ] {
        assert_eq!(
            h.recall_json(&request.to_string()).unwrap(),
            block_on(engine.recall_json(&request)).unwrap(),
            "{request}"
        );
    }
    assert_eq!(h.recall_json(r#"{"query":"zebra"}"#).unwrap(), "");
}

#[test]
fn a_refused_query_is_an_input_error_in_the_engines_words() {
    let (backend, _dir) = support::fresh(support::Kind::Memory);
    let mut h = host(&backend);
    for (request, message) in [
        (
            r#"{"query":"  "}"#,
            "The search query is empty: give the words to look for.",
        ),
        (
            r#"{"query":"x","limit":0}"#,
            "limit must be a whole number from 1 to 100, not 0.",
        ),
        (
            r#"{"query":"..."}"#,
            "The search query holds no words to look for (only punctuation or symbols).",
        ),
        ("[1]", "the options must be an object."),
        ("not json", "the options must be an object."),
        (
            r#"{"query":"x","path_prefix":"/etc"}"#,
            "path_prefix must be a directory path under /memories, such as /memories/notes.",
        ),
    ] {
        let e = h.search_json(request).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (CallErrorKind::Tool(ErrorKind::Input), message),
            "{request}"
        );
        let e = h.recall_json(request).unwrap_err();
        assert_eq!(e.message, message, "{request}");
    }
    // The instance lives on: the next call works.
    assert_eq!(h.search_json(r#"{"query":"x"}"#).unwrap(), "[]");
}

fn mount(name: &str, access: Access) -> Mount {
    Mount {
        name: name.into(),
        access,
        description: String::new(),
        instructions: String::new(),
    }
}

#[test]
fn a_search_across_mounts_ranks_every_store_and_leaves_a_read_only_one_as_it_was() {
    let (team_dir, me_dir) = (TempDir::new("team"), TempDir::new("me"));
    let team: Arc<dyn Backend> = Arc::new(DirBackend::open(&team_dir.0).unwrap());
    let me: Arc<dyn Backend> = Arc::new(DirBackend::open(&me_dir.0).unwrap());
    create(
        &mut host(&team),
        "/memories/deploy.md",
        "deploy on fridays never\n",
    );
    create(
        &mut host(&me),
        "/memories/deploy-notes.md",
        "deploy deploy\nmine\n",
    );
    let team_before = support::raw(&team);
    let memory = MountedHost::new(
        support::runtime(),
        vec![
            (mount("team", Access::ReadOnly), team.clone()),
            (mount("me", Access::ReadWrite), me.clone()),
        ],
        &ToolConfig::default(),
        HostLimits::default(),
    )
    .unwrap();
    let answer = memory.search_json(r#"{"query":"deploy"}"#).unwrap();
    assert_eq!(
        hits(&answer),
        vec![
            (
                "/memories/me/deploy-notes.md".to_string(),
                vec!["1: deploy deploy".to_string()]
            ),
            (
                "/memories/team/deploy.md".to_string(),
                vec!["1: deploy on fridays never".to_string()]
            ),
        ]
    );
    let answer = memory
        .search_json(r#"{"query":"deploy","path_prefix":"/memories/team"}"#)
        .unwrap();
    assert_eq!(
        hits(&answer),
        vec![(
            "/memories/team/deploy.md".to_string(),
            vec!["1: deploy on fridays never".to_string()]
        )]
    );
    let answer = memory
        .search_json(r#"{"query":"deploy","limit":1}"#)
        .unwrap();
    assert_eq!(hits(&answer).len(), 1);
    assert_eq!(
        memory
            .search_json(r#"{"query":"deploy","path_prefix":"/memories/elsewhere"}"#)
            .unwrap(),
        "[]"
    );
    assert_eq!(
        memory.recall_json(r#"{"query":"fridays"}"#).unwrap(),
        "<memories>\n<memory path=\"/memories/team/deploy.md\">\ndeploy on fridays never\n</memory>\n</memories>"
    );
    let e = memory.search_json(r#"{"query":""}"#).unwrap_err();
    assert_eq!(
        e.message,
        "The search query is empty: give the words to look for."
    );
    // The read-only store's index was built in its instance, not saved there.
    assert_eq!(support::raw(&team), team_before);

    // The toolset, routed as the engine's mounts route it.
    let written = memory
        .toolset_json(
            "memory_write",
            r#"{"path":"/me/todo.md","content":"ship it"}"#,
        )
        .unwrap();
    assert!(
        written.starts_with("Created /me/todo.md (7 bytes, content_sha256 "),
        "{written}"
    );
    let native = Engine::new(memdir::MemoryStore::new(), Config::default());
    assert_eq!(
        written,
        block_on(native.toolset_json(
            "/me",
            "memory_write",
            r#"{"path":"/todo.md","content":"ship it"}"#
        ))
        .unwrap()
    );
    assert_eq!(
        support::tree(&me).get("/memories/todo.md"),
        Some(&Some("ship it".to_string()))
    );
    let e = memory
        .toolset_json("memory_write", r#"{"path":"/team/x.md","content":"no"}"#)
        .unwrap_err();
    assert_eq!(
        (e.kind.as_str(), e.message.as_str()),
        (
            "read_only",
            "Cannot write /team/x.md: the memory store at /team is read-only; nothing was written."
        )
    );
    let e = memory
        .toolset_json("memory_read", r#"{"path":"/nowhere/x.md"}"#)
        .unwrap_err();
    assert_eq!(
        (e.kind.as_str(), e.message.as_str()),
        (
            "no_mount",
            "No memory store holds /nowhere/x.md: the stores are /team, /me."
        )
    );
    assert_eq!(support::raw(&team), team_before);
}

#[test]
fn the_toolset_through_the_component_answers_as_the_engine() {
    let (backend, _dir) = support::fresh(support::Kind::Memory);
    let mut h = host(&backend);
    let written = h
        .toolset(
            "",
            "memory_write",
            r#"{"path":"/notes/a.md","content":"alpha\nbeta"}"#,
        )
        .unwrap();
    assert!(
        written.starts_with("Created /notes/a.md (10 bytes, content_sha256 "),
        "{written}"
    );
    // The same call on a native engine over a copy of the store: the same text.
    let native = Engine::new(memdir::MemoryStore::new(), Config::default());
    let native_written = block_on(native.toolset_json(
        "",
        "memory_write",
        r#"{"path":"/notes/a.md","content":"alpha\nbeta"}"#,
    ))
    .unwrap();
    assert_eq!(written, native_written);
    assert_eq!(
        h.toolset("/team", "memory_read", r#"{"path":"/notes/a.md"}"#)
            .unwrap(),
        block_on(native.toolset_json("/team", "memory_read", r#"{"path":"/notes/a.md"}"#)).unwrap()
    );
    let e = h
        .toolset("", "memory_read", r#"{"path":"/notes/none.md"}"#)
        .unwrap_err();
    assert_eq!(
        (e.kind.as_str(), e.message.as_str()),
        (
            "not_found",
            "No document at /notes/none.md; memory_list shows the documents there are."
        )
    );
    let e = h.toolset("", "memory_fly", "{}").unwrap_err();
    assert_eq!(e.kind, "unknown_tool");
    let e = h.toolset("", "memory_read", "{").unwrap_err();
    assert_eq!(
        (e.kind.as_str(), e.message.as_str()),
        (
            "input",
            "Invalid input for memory_read: the input is not valid JSON."
        )
    );
    // The definitions the component gives are the engine's.
    let tools: Value = serde_json::from_str(&h.toolset_tools().unwrap()).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = memdir::toolset::TOOLS.iter().map(|t| t.name).collect();
    assert_eq!(names, want);
    for (t, want) in tools.as_array().unwrap().iter().zip(memdir::toolset::TOOLS) {
        let schema: Value = serde_json::from_str(want.input_schema).unwrap();
        assert_eq!(t["input_schema"], schema);
        assert_eq!(t["description"], want.description);
        assert_eq!(t["read_only"], want.read_only);
    }
}

fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_memdir-host"));
    c.env("MEMDIR_COMPONENT", support::component())
        .env("MEMDIR_CACHE", support::cache_dir());
    c
}

fn run_cli(args: &[&str], store: &TempDir) -> (String, i32) {
    let out: Output = cli()
        .arg(args[0])
        .arg("--store")
        .arg(&store.0)
        .args(&args[1..])
        .output()
        .expect("running memdir-host");
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

#[test]
fn search_recall_reindex_and_status_from_the_command_line() {
    let store = TempDir::new("search-cli");
    let make =
        json!({"command": "create", "path": "/memories/prefs.md", "file_text": "Use tabs.\n"});
    assert_eq!(run_cli(&["exec", &make.to_string()], &store).1, 0);
    assert_eq!(
        run_cli(&["search-status"], &store),
        ("{\"indexed\":0,\"pending\":true}\n".into(), 0)
    );
    let (out, code) = run_cli(&["search", "tabs", "--limit", "5"], &store);
    assert_eq!(code, 0);
    assert_eq!(
        hits(out.trim_end()),
        vec![(
            "/memories/prefs.md".to_string(),
            vec!["1: Use tabs.".to_string()]
        )]
    );
    assert_eq!(
        run_cli(&["search-status"], &store),
        ("{\"indexed\":1,\"pending\":false}\n".into(), 0)
    );
    assert_eq!(
        run_cli(&["search", "tabs", "--prefix", "/memories/other"], &store),
        ("[]\n".into(), 0)
    );
    assert_eq!(
        run_cli(&["recall", "tabs"], &store),
        (
            "<memories>\n<memory path=\"/memories/prefs.md\">\nUse tabs.\n</memory>\n</memories>\n"
                .into(),
            0
        )
    );
    assert_eq!(run_cli(&["recall", "absent"], &store), (String::new(), 0));
    assert_eq!(
        run_cli(&["search", "tabs", "--limit", "101"], &store),
        (
            "{\"content\":\"Error: limit must be a whole number from 1 to 100, not 101.\",\"is_error\":true}\n"
                .into(),
            1
        )
    );
    let del = json!({"command": "delete", "path": "/memories/prefs.md"});
    assert_eq!(run_cli(&["exec", &del.to_string()], &store).1, 0);
    assert_eq!(
        run_cli(&["reindex", "--rounds", "2"], &store),
        ("{\"indexed\":0,\"pending\":false}\n".into(), 0)
    );
    assert_eq!(run_cli(&["search", "tabs"], &store), ("[]\n".into(), 0));
}

#[test]
fn memory_search_over_every_mount_is_the_engines_merged_page() {
    let (team, me) = (
        support::fresh(support::Kind::Memory).0,
        support::fresh(support::Kind::Memory).0,
    );
    create(
        &mut host(&team),
        "/memories/deploy.md",
        "deploy on fridays never\n",
    );
    create(
        &mut host(&me),
        "/memories/deploy-notes.md",
        "deploy deploy\nmine\n",
    );
    let memory = MountedHost::new(
        support::runtime(),
        vec![
            (mount("team", Access::ReadOnly), team.clone()),
            (mount("me", Access::ReadWrite), me.clone()),
        ],
        &ToolConfig::default(),
        HostLimits::default(),
    )
    .unwrap();
    let got = memory
        .toolset_json("memory_search", r#"{"query":"deploy"}"#)
        .unwrap();
    fn engine<'a>(b: &'a Arc<dyn Backend>, name: &str) -> Engine<&'a dyn Backend> {
        let c = Config {
            mount: name.into(),
            ..Config::default()
        };
        Engine::new(&**b, c)
    }
    let native = memdir::mounts::Mounted::new(vec![
        (
            mount("team", Access::ReadOnly),
            engine(Box::leak(Box::new(team.clone())), "team"),
        ),
        (
            mount("me", Access::ReadWrite),
            engine(Box::leak(Box::new(me.clone())), "me"),
        ),
    ])
    .unwrap();
    let want = block_on(native.toolset_json("memory_search", r#"{"query":"deploy"}"#)).unwrap();
    assert_eq!(got, want);
    println!("{got}");
}
