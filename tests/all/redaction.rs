//! Redaction against a hostile version log, and what a redaction leaves in the
//! store's bytes: neither the content nor the path, as soon as it answers (the
//! trees of older commits included), and no commit message that ever held either;
//! readers and writers that were under way on an older tree still answer right.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use std::cell::RefCell;

use sha2::Digest;

use common::Harness;
use memdir::config::Config;
use memdir::{Engine, MemoryStore, Page, Store, StoreError, block_on};
use serde_json::{Value, json};

fn ok(engine: &Engine<impl Store>, request: Value) -> Value {
    let r = block_on(engine.api(&request));
    assert_eq!(r.status, 200, "{request} -> {}", r.body);
    r.body
}

#[test]
fn a_log_claiming_64_to_the_6th_versions_over_one_filler_node_is_read_once_per_node() {
    // Run aside so that a walk over the claimed versions (hours) fails the test
    // instead of hanging it; the engine's Rc types stay on that thread.
    common::finishes_within(
        120,
        "the redaction finished (a walk over every claimed version never does)",
        redact_in_hostile_log,
    );
}

fn redact_in_hostile_log() {
    let (engine, store) = common::api_engine(Config::default());
    let m = ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/a.md","content":"one"}"#}),
    );
    let id = m["id"].as_str().unwrap();
    ok(
        &engine,
        json!({"op": "memory.update", "id": id, "body": r#"{"content":"two"}"#}),
    );
    common::claim_64_to_the_6th_versions(&store);

    // A counting store that fails its 2,000th operation: a redaction that walked the
    // claimed versions would fail there (the old one took 10.6 s for 64^4).
    let counted = Harness::new(store.clone());
    let shared = counted.shared.clone();
    shared.fail_at.set(Some(2_000));
    let hostile = Engine::new(counted, Config::default());
    let r = block_on(hostile.api(&json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"})));
    assert_eq!(
        (r.status, &r.body["redacted_at"].is_string()),
        (200, &true),
        "{}",
        r.body
    );
    assert!(
        shared.count("get", "log") <= 12,
        "log reads: {}",
        shared.count("get", "log")
    );
}

/// The keys' kinds (`tree`, `commit`, …) of every stored value holding `needle`.
fn holding(store: &MemoryStore, needle: &str) -> Vec<String> {
    common::dump(store)
        .into_iter()
        .filter(|(_, v)| v.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(k, _)| k.split('/').next().unwrap().to_string())
        .collect()
}

#[test]
fn a_redacted_path_is_in_no_commit_message_and_in_no_byte_once_redacted() {
    let (engine, store) = common::api_engine(Config::default());
    let m = ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/ssn-123-45-6789.md","content":"SECRET-CONTENT"}"#}),
    );
    let id = m["id"].as_str().unwrap();
    // The memory tool's commands and the API's writes alike: none writes a path
    // into its commit.
    let r = block_on(engine.execute(
        &json!({"command": "create", "path": "/memories/tool-ssn-987.md", "file_text": "x"}),
    ));
    assert!(!r.is_error, "{}", r.content);
    block_on(engine.execute(&json!({"command": "delete", "path": "/memories/tool-ssn-987.md"})));
    ok(
        &engine,
        json!({"op": "memory.update", "id": id, "body": r#"{"path":"/renamed.md","content":"public"}"#}),
    );
    // (Its version records hold it, as records do until redacted; commits do not.)
    assert!(
        !holding(&store, "tool-ssn-987").contains(&"commit".to_string()),
        "{:?}",
        holding(&store, "tool-ssn-987")
    );
    // Before the redaction, the trees of the commits before the rename name it.
    assert_eq!(holding(&store, "ssn-123-45-6789"), ["rec", "tree", "tree"]);
    ok(
        &engine,
        json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"}),
    );
    assert_eq!(
        holding(&store, "SECRET-CONTENT"),
        Vec::<String>::new(),
        "the content is erased at once"
    );
    assert_eq!(
        holding(&store, "ssn-123-45-6789"),
        Vec::<String>::new(),
        "the path is erased at once, from the old trees too"
    );
    // History starts again at the redaction: no walk reaches a tree it cut.
    assert_eq!(head_commit(&store)["parent"], Value::Null);
    let v = ok(
        &engine,
        json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_1"}),
    );
    assert_eq!(
        (v["path"].clone(), v["content"].clone()),
        (Value::Null, Value::Null)
    );
    // The store is whole: gc keeping any number of commits walks what is left.
    for keep in [100, 0, 0, 100] {
        block_on(engine.gc(keep)).unwrap();
    }
    let listed = ok(&engine, json!({"op": "memory.list"}));
    assert_eq!(listed["data"][0]["path"], "/renamed.md");
}

/// Creates `/secret-name.md` among `siblings` other files of the root (enough,
/// past 128, for the root to be split into branches), renames it as `rename`
/// says (the memory tool or the API), redacts the version that held the old name
/// and answers the store.
fn renamed_and_redacted(siblings: usize, through_tool: bool) -> (Engine<MemoryStore>, MemoryStore) {
    let (engine, store) = common::api_engine(Config::default());
    let entries: Vec<memdir::Entry> = (0..siblings)
        .map(|i| common::file(&format!("/memories/s{i:03}.md"), "sibling"))
        .collect();
    block_on(engine.import(&entries)).unwrap();
    let m = ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/secret-name.md","content":"SECRET-CONTENT"}"#}),
    );
    let id = m["id"].as_str().unwrap();
    // A few writes while it lives there: each commit's tree names it.
    for i in 0..3 {
        let body = format!(r#"{{"path":"/s{i:03}x.md","content":"later {i}"}}"#);
        ok(&engine, json!({"op": "memory.create", "body": body}));
    }
    if through_tool {
        let r = block_on(engine.execute(&json!({"command": "rename", "old_path": "/memories/secret-name.md", "new_path": "/memories/d/public.md"})));
        assert!(!r.is_error, "{}", r.content);
    } else {
        ok(
            &engine,
            json!({"op": "memory.update", "id": id, "body": r#"{"path":"/d/public.md"}"#}),
        );
    }
    ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/after.md","content":"after"}"#}),
    );
    assert!(!holding(&store, "secret-name").is_empty());
    let created = id.rsplit('_').next().unwrap().to_string();
    let r = ok(
        &engine,
        json!({"op": "version.redact", "id": format!("memver_abcdefghjkmn_{created}")}),
    );
    assert_eq!(r["path"], Value::Null);
    (engine, store)
}

#[test]
fn a_renamed_memorys_old_name_is_in_no_stored_byte_when_the_redaction_answers() {
    for (siblings, through_tool) in [(0, false), (0, true), (2, false), (200, false), (200, true)] {
        let (engine, store) = renamed_and_redacted(siblings, through_tool);
        let case = format!("{siblings} siblings, tool: {through_tool}");
        assert_eq!(
            holding(&store, "secret-name"),
            Vec::<String>::new(),
            "{case}"
        );
        // The content stays: the memory still holds it at its new path.
        let r =
            block_on(engine.execute(&json!({"command": "view", "path": "/memories/d/public.md"})));
        assert_eq!(
            r.content,
            "Here's the content of /memories/d/public.md with line numbers:\n     1\tSECRET-CONTENT",
            "{case}"
        );
        // Every read and gc still works, whatever gc keeps.
        for keep in [1000, 0, 0, 1000] {
            block_on(engine.gc(keep)).unwrap();
        }
        let fresh = Engine::new(store.clone(), Config::default());
        assert_eq!(
            block_on(fresh.entries()).unwrap().len(),
            siblings + 6,
            "{case}"
        );
        let listed = ok(
            &fresh,
            json!({"op": "version.list", "query": {"limit": "100"}}),
        );
        assert!(listed["data"].as_array().unwrap().len() >= 5, "{case}");
    }
}

#[test]
fn a_path_still_in_use_is_not_erased_and_history_is_kept() {
    // The redacted version's path holds the memory's current content: the path is
    // in use, so no tree is touched and the commits keep their parents.
    let (engine, store) = common::api_engine(Config::default());
    let m = ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/kept-name.md","content":"one"}"#}),
    );
    let id = m["id"].as_str().unwrap();
    ok(
        &engine,
        json!({"op": "memory.update", "id": id, "body": r#"{"content":"two"}"#}),
    );
    let trees = holding(&store, "kept-name")
        .iter()
        .filter(|k| *k == "tree")
        .count();
    ok(
        &engine,
        json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"}),
    );
    assert_eq!(
        holding(&store, "kept-name")
            .iter()
            .filter(|k| *k == "tree")
            .count(),
        trees
    );
    assert!(head_commit(&store)["parent"].is_string());
}

/// The head commit, as stored.
fn head_commit(store: &MemoryStore) -> Value {
    let head = String::from_utf8(block_on(store.get("head")).unwrap().unwrap()).unwrap();
    serde_json::from_slice(
        &block_on(store.get(&format!("commit/{head}")))
            .unwrap()
            .unwrap(),
    )
    .unwrap()
}

/// A memory store that runs `hook` once, at the first operation `when` names: just
/// after a read, just before a delete (`before`). Another client acting then.
struct Hooked {
    inner: MemoryStore,
    /// The operation and the start of the key that fire the hook.
    when: (&'static str, &'static str),
    hook: RefCell<Option<Box<dyn FnOnce()>>>,
    before: bool,
}

impl Hooked {
    fn fire(&self, op: &str, key: &str) {
        if op == self.when.0
            && key.starts_with(self.when.1)
            && let Some(hook) = self.hook.borrow_mut().take()
        {
            hook();
        }
    }
}

impl Store for Hooked {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let v = self.inner.get(key).await;
        self.fire("get", key);
        v
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        if self.before {
            self.fire("delete", key);
        }
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.inner.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.inner.compare_and_swap(key, expected, new).await
    }
}

/// A store where `/secret-name.md` was created beside `/other.md`, and a second
/// client (on the same store) that renames it and redacts the version that held
/// the name, as a closure to run in the middle of the first client's request.
fn with_a_rename_and_redaction_by_another_client() -> (MemoryStore, Box<dyn FnOnce()>) {
    let (engine, store) = common::api_engine(Config::default());
    ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/other.md","content":"other"}"#}),
    );
    let m = ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/secret-name.md","content":"SECRET-CONTENT"}"#}),
    );
    let id = m["id"].as_str().unwrap().to_string();
    let other = Engine::new(store.clone(), Config::default());
    let act = Box::new(move || {
        let body = r#"{"path":"/public.md"}"#;
        ok(
            &other,
            json!({"op": "memory.update", "id": id, "body": body}),
        );
        let ver = id.replace("mem_", "memver_");
        ok(&other, json!({"op": "version.redact", "id": ver}));
    });
    (store, act)
}

#[test]
fn a_read_that_began_before_the_rename_answers_from_the_new_tree() {
    let (store, act) = with_a_rename_and_redaction_by_another_client();
    // The reader has read the head (the name still there) when the other client
    // renames and redacts; the leaf it goes on to read is gone.
    let reader = Engine::new(
        Hooked {
            inner: store.clone(),
            when: ("get", "head"),
            hook: RefCell::new(Some(act)),
            before: false,
        },
        Config::default(),
    );
    let r = block_on(reader.api(&json!({"op": "memory.list"})));
    assert_eq!(r.status, 200, "{}", r.body);
    let paths: Vec<&str> = r.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/other.md", "/public.md"]);
    assert_eq!(holding(&store, "secret-name"), Vec::<String>::new());
}

#[test]
fn a_write_planned_on_a_head_from_before_the_rename_plans_again() {
    let (store, act) = with_a_rename_and_redaction_by_another_client();
    // The writer's first attempt plans on the head it read just before the other
    // client renamed and redacted: the root leaf it needs is gone.
    let writer = Engine::new(
        Hooked {
            inner: store.clone(),
            when: ("get", "head"),
            hook: RefCell::new(Some(act)),
            before: false,
        },
        Config::default(),
    );
    let r = block_on(
        writer
            .execute(&json!({"command": "create", "path": "/memories/new.md", "file_text": "new"})),
    );
    assert_eq!(
        (r.content.as_str(), r.is_error),
        ("File created successfully at: /memories/new.md", false)
    );
    let fresh = Engine::new(store.clone(), Config::default());
    let paths: Vec<String> = block_on(fresh.entries())
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_eq!(
        paths,
        [
            "/memories/new.md",
            "/memories/other.md",
            "/memories/public.md"
        ]
    );
    assert_eq!(holding(&store, "secret-name"), Vec::<String>::new());
}

#[test]
fn a_writer_that_makes_a_deleted_leaf_again_while_it_is_erased_gets_it_back() {
    // With a clock that stands still, renaming the memory back makes the very leaf
    // the redaction is deleting: published between the redaction's commit and its
    // delete, that writer's tree must not lose it.
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    let tool = |e: &Engine<_>, input: Value| {
        let r = block_on(e.execute(&input));
        assert!(!r.is_error, "{}", r.content);
    };
    tool(
        &engine,
        json!({"command": "create", "path": "/memories/secret-name.md", "file_text": "x"}),
    );
    tool(
        &engine,
        json!({"command": "rename", "old_path": "/memories/secret-name.md", "new_path": "/memories/public.md"}),
    );
    let back = Engine::new(store.clone(), Config::default());
    let hooked = Engine::new(
        Hooked {
            inner: store.clone(),
            when: ("delete", "tree/"),
            hook: RefCell::new(Some(Box::new(move || {
                let r = block_on(back.execute(&json!({"command": "rename", "old_path": "/memories/public.md", "new_path": "/memories/secret-name.md"})));
                assert!(!r.is_error, "{}", r.content);
            }))),
            before: true,
        },
        Config::default(),
    );
    let r = block_on(hooked.api(&json!({"op": "version.redact", "id": "memver_local_1"})));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body["redacted_at"].is_string());
    let fresh = Engine::new(store.clone(), Config::default());
    let view = block_on(fresh.execute(&json!({"command": "view", "path": "/memories"})));
    assert!(!view.is_error, "{}", view.content);
    assert!(
        view.content.contains("/memories/secret-name.md"),
        "{}",
        view.content
    );
    block_on(fresh.gc(100)).unwrap();
}

#[test]
fn a_redaction_reads_at_most_max_redact_commits_commits_back() {
    use memdir::config::MAX_REDACT_COMMITS;
    let (engine, store) = common::api_engine(Config::default());
    let m = ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/secret-name.md","content":"one"}"#}),
    );
    let id = m["id"].as_str().unwrap();
    ok(
        &engine,
        json!({"op": "memory.update", "id": id, "body": r#"{"path":"/public.md"}"#}),
    );
    // A history longer than the bound: commits of the same tree, each naming the
    // one before, made directly (as many writes would).
    let head = String::from_utf8(block_on(store.get("head")).unwrap().unwrap()).unwrap();
    let top: Value = serde_json::from_slice(
        &block_on(store.get(&format!("commit/{head}")))
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let mut parent = head;
    for i in 0..MAX_REDACT_COMMITS + 10 {
        let mut c = top.clone();
        c["parent"] = json!(parent);
        c["time"] = json!(i);
        let bytes = serde_json::to_vec(&c).unwrap();
        let hash: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        block_on(store.set(&format!("commit/{hash}"), &bytes)).unwrap();
        parent = hash;
    }
    block_on(store.set("head", parent.as_bytes())).unwrap();
    let counted = Harness::new(store.clone());
    let shared = counted.shared.clone();
    let redacting = Engine::new(counted, Config::default());
    let r =
        block_on(redacting.api(&json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"})));
    assert_eq!(r.status, 200, "{}", r.body);
    // The head's commit once to read the head, then the walk.
    assert_eq!(
        shared.count("get", "commit") as usize,
        1 + MAX_REDACT_COMMITS
    );
    // The name is past the bound: its trees are left for gc, history starting
    // again at the redaction only if it deleted something (here nothing).
    assert_eq!(holding(&store, "secret-name"), ["tree"]);
}

#[test]
fn a_gc_pass_that_began_before_the_rename_marks_from_the_new_head() {
    let (store, act) = with_a_rename_and_redaction_by_another_client();
    // The pass has read the head (the name still there) when the other client
    // renames and redacts; the old tree it goes on to mark has lost its leaf.
    let collector = Engine::new(
        Hooked {
            inner: store.clone(),
            when: ("get", "head"),
            hook: RefCell::new(Some(act)),
            before: false,
        },
        Config::default(),
    );
    block_on(collector.gc(1000)).unwrap();
    block_on(collector.gc(1000)).unwrap();
    let fresh = Engine::new(store.clone(), Config::default());
    let paths: Vec<String> = block_on(fresh.entries())
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_eq!(paths, ["/memories/other.md", "/memories/public.md"]);
    assert_eq!(holding(&store, "secret-name"), Vec::<String>::new());
}

/// The id of the version that created the memory `id`.
fn created_version(id: &str) -> String {
    id.replace("mem_", "memver_")
}

/// Creates a memory holding `x` at `path` through the API; its id.
fn create_x(engine: &Engine<MemoryStore>, path: &str) -> String {
    let body = json!({"path": path, "content": "x"}).to_string();
    ok(engine, json!({"op": "memory.create", "body": body}))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Moves the memory `id` to `path` through the API.
fn move_to(engine: &Engine<MemoryStore>, id: &str, path: &str) {
    let body = json!({"path": path}).to_string();
    ok(
        engine,
        json!({"op": "memory.update", "id": id, "body": body}),
    );
}

#[test]
fn a_second_redaction_finds_the_older_trees_past_the_first_ones_new_start() {
    // Two leaked names, the older memory renamed first; the newer memory's
    // redaction starts history again, and the older one's must still reach the
    // trees it names, stored before that start.
    let (engine, store) = common::api_engine(Config::default());
    let create = |path: &str| create_x(&engine, path);
    let rename = |id: &str, path: &str| move_to(&engine, id, path);
    let older = create("/secret-older.md");
    rename(&older, "/public-older.md");
    let newer = create("/secret-newer.md");
    rename(&newer, "/public-newer.md");
    ok(
        &engine,
        json!({"op": "version.redact", "id": created_version(&newer)}),
    );
    assert_eq!(holding(&store, "secret-newer"), Vec::<String>::new());
    assert_eq!(holding(&store, "secret-older"), ["rec", "tree"]);
    ok(
        &engine,
        json!({"op": "version.redact", "id": created_version(&older)}),
    );
    assert_eq!(holding(&store, "secret-older"), Vec::<String>::new());
    for keep in [1000, 0, 0] {
        block_on(engine.gc(keep)).unwrap();
    }
}

#[test]
fn what_lay_beneath_a_deleted_leaf_goes_with_it_so_no_name_is_stranded() {
    // `/d/secret-b.md` lived only while `/secret-a.md` did: the first redaction
    // deletes those commits' root leaves, and with them `/d`'s leaf naming the
    // other, which no walk from a root could reach afterwards.
    let (engine, store) = common::api_engine(Config::default());
    let create = |path: &str| create_x(&engine, path);
    let rename = |id: &str, path: &str| move_to(&engine, id, path);
    let a = create("/secret-a.md");
    let b = create("/d/secret-b.md");
    rename(&b, "/d/public-b.md");
    rename(&a, "/public-a.md");
    ok(
        &engine,
        json!({"op": "version.redact", "id": created_version(&a)}),
    );
    assert_eq!(holding(&store, "secret-a"), Vec::<String>::new());
    // Only its own version's record names the other now.
    assert_eq!(holding(&store, "secret-b"), ["rec"]);
    ok(
        &engine,
        json!({"op": "version.redact", "id": created_version(&b)}),
    );
    assert_eq!(holding(&store, "secret-b"), Vec::<String>::new());
    for keep in [1000, 0, 0] {
        block_on(engine.gc(keep)).unwrap();
    }
    let listed = ok(&engine, json!({"op": "memory.list"}));
    let paths: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/d/public-b.md", "/public-a.md"]);
}

#[test]
fn a_renamed_directorys_old_name_goes_with_the_redaction_of_its_files_version() {
    let (engine, store) = common::api_engine(Config::default());
    let tool = |input: Value| {
        let r = block_on(engine.execute(&input));
        assert!(!r.is_error, "{}", r.content);
    };
    tool(json!({"command": "create", "path": "/memories/ssn-dir-42/notes.md", "file_text": "x"}));
    tool(json!({"command": "create", "path": "/memories/top.md", "file_text": "y"}));
    tool(
        json!({"command": "rename", "old_path": "/memories/ssn-dir-42", "new_path": "/memories/public-dir"}),
    );
    assert_eq!(holding(&store, "ssn-dir-42"), ["rec", "tree", "tree"]);
    // The file's own leaf lives on under the new name: it is kept.
    ok(
        &engine,
        json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"}),
    );
    assert_eq!(holding(&store, "ssn-dir-42"), Vec::<String>::new());
    let r = block_on(
        engine.execute(&json!({"command": "view", "path": "/memories/public-dir/notes.md"})),
    );
    assert_eq!(
        r.content,
        "Here's the content of /memories/public-dir/notes.md with line numbers:\n     1\tx"
    );
    for keep in [1000, 0, 0] {
        block_on(engine.gc(keep)).unwrap();
    }
}

/// The index's stored values (`index/…`) that hold `needle`'s bytes.
fn index_holding(store: &MemoryStore, needle: &str) -> Vec<String> {
    common::dump(store)
        .into_iter()
        .filter(|(k, v)| {
            k.starts_with("index/") && v.windows(needle.len()).any(|w| w == needle.as_bytes())
        })
        .map(|(k, _)| k)
        .collect()
}

/// The terms of `text` and `path` (and their raw words) that no live memory's
/// text or path holds: what no index byte may hold once they are gone.
fn distinctive(engine: &Engine<MemoryStore>, path: &str, text: &str) -> Vec<String> {
    use memdir::search::{path_terms, terms};
    let mut live = std::collections::BTreeSet::new();
    for e in block_on(engine.entries()).unwrap() {
        let p = e.path.strip_prefix("/memories").unwrap().to_string();
        live.extend(path_terms(&p));
        if let Some(c) = e.content {
            live.extend(terms(&c));
            live.extend(c.split_whitespace().map(String::from));
        }
    }
    let mut gone: Vec<String> = terms(text);
    gone.extend(path_terms(path));
    gone.extend(text.split_whitespace().map(String::from));
    gone.push(path.to_string());
    gone.sort();
    gone.dedup();
    gone.retain(|t| !live.iter().any(|l| l.contains(t.as_str())));
    gone
}

const REMOVED: &str = "Kaffeemaschine zebrafish 机密文件 Straße";

/// A store where `/notes/secret-name.md` held [`REMOVED`] and was searched (so
/// the index held it), then was given other text and a new name: the version
/// that held both, redacted. The engine, its store, and the removed terms.
fn searched_then_redacted() -> (Engine<MemoryStore>, MemoryStore, Vec<String>) {
    let (engine, store) = common::api_engine(Config::default());
    let body = json!({"path": "/notes/secret-name.md", "content": REMOVED}).to_string();
    let id = ok(&engine, json!({"op": "memory.create", "body": body}))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let body = json!({"path": "/b.md", "content": "public words"}).to_string();
    ok(&engine, json!({"op": "memory.create", "body": body}));
    let found = block_on(engine.search("zebrafish", 10, None)).unwrap();
    assert_eq!(found.hits.len(), 1);
    // The index held each of its terms and its path before.
    let mut indexed = memdir::search::terms(REMOVED);
    indexed.extend(memdir::search::path_terms("/notes/secret-name.md"));
    indexed.push("/notes/secret-name.md".into());
    for t in &indexed {
        assert!(!index_holding(&store, t).is_empty(), "{t} indexed");
    }
    let body = json!({"path": "/public.md", "content": "public words too"}).to_string();
    ok(
        &engine,
        json!({"op": "memory.update", "id": id, "body": body}),
    );
    ok(
        &engine,
        json!({"op": "version.redact", "id": created_version(&id)}),
    );
    let gone = distinctive(&engine, "/notes/secret-name.md", REMOVED);
    assert!(gone.len() >= 8, "{gone:?}");
    (engine, store, gone)
}

#[test]
fn no_index_byte_holds_a_redacted_texts_terms_once_the_redaction_answers() {
    let (_, store, gone) = searched_then_redacted();
    let held: Vec<(String, Vec<String>)> = gone
        .iter()
        .map(|t| (t.clone(), index_holding(&store, t)))
        .filter(|(_, k)| !k.is_empty())
        .collect();
    assert_eq!(held, Vec::<(String, Vec<String>)>::new());
}

#[test]
fn no_index_byte_holds_a_redacted_texts_terms_after_the_next_search() {
    let (engine, store, gone) = searched_then_redacted();
    for q in ["public", "zebrafish"] {
        block_on(engine.search(q, 10, None)).unwrap();
        let other = Engine::new(store.clone(), Config::default());
        block_on(other.search(q, 10, None)).unwrap();
    }
    let held: Vec<(String, Vec<String>)> = gone
        .iter()
        .map(|t| (t.clone(), index_holding(&store, t)))
        .filter(|(_, k)| !k.is_empty())
        .collect();
    assert_eq!(held, Vec::<(String, Vec<String>)>::new());
}

#[test]
fn no_index_byte_holds_a_deleted_texts_terms_after_gc() {
    for through_tool in [true, false] {
        let (engine, store) = common::api_engine(Config::default());
        let body = json!({"path": "/notes/secret-name.md", "content": REMOVED}).to_string();
        let id = ok(&engine, json!({"op": "memory.create", "body": body}))["id"]
            .as_str()
            .unwrap()
            .to_string();
        let body = json!({"path": "/b.md", "content": "public words"}).to_string();
        ok(&engine, json!({"op": "memory.create", "body": body}));
        assert_eq!(
            block_on(engine.search("zebrafish", 10, None))
                .unwrap()
                .hits
                .len(),
            1
        );
        if through_tool {
            let r =
                block_on(engine.execute(&json!({"command": "delete", "path": "/memories/notes"})));
            assert!(!r.is_error, "{}", r.content);
        } else {
            ok(&engine, json!({"op": "memory.delete", "id": id}));
        }
        let gone = distinctive(&engine, "/notes/secret-name.md", REMOVED);
        assert!(gone.len() >= 8, "{gone:?}");
        // Another client's search, then this one's.
        let other = Engine::new(store.clone(), Config::default());
        assert_eq!(
            block_on(other.search("zebrafish", 10, None)).unwrap().hits,
            []
        );
        assert_eq!(
            block_on(engine.search("public", 10, None))
                .unwrap()
                .hits
                .len(),
            1
        );
        // gc folds the index: a deleted text's terms leave it with the pass
        // that could collect the text itself.
        block_on(engine.gc(100)).unwrap();
        let held: Vec<(String, Vec<String>)> = gone
            .iter()
            .map(|t| (t.clone(), index_holding(&store, t)))
            .filter(|(_, k)| !k.is_empty())
            .collect();
        assert_eq!(
            held,
            Vec::<(String, Vec<String>)>::new(),
            "tool: {through_tool}"
        );
    }
}

#[test]
fn a_delete_reason_is_kept_in_its_version_until_that_version_is_redacted() {
    let (engine, store) = common::api_engine(Config::default());
    let settings = memdir::records::Settings::default();
    let stored = block_on(engine.records(
        "memory_store",
        &json!({"content": "Lives at 12 Elm Street.", "category": "factual_knowledge", "importance": 3}),
        &settings,
        None,
    ))
    .unwrap();
    let id = stored["memory_id"].as_str().unwrap();
    block_on(engine.records(
        "memory_delete",
        &json!({"memory_id": id, "reason": "REASON-moved-to-SSN-555"}),
        &settings,
        None,
    ))
    .unwrap();
    // The deleted version's record holds the reason, and nothing else does.
    assert_eq!(holding(&store, "REASON-moved-to-SSN-555"), ["rec"]);
    let v = ok(
        &engine,
        json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_2"}),
    );
    assert_eq!(
        (&v["operation"], &v["reason"]),
        (&json!("deleted"), &json!("REASON-moved-to-SSN-555"))
    );
    let redacted = ok(
        &engine,
        json!({"op": "version.redact", "id": "memver_abcdefghjkmn_2"}),
    );
    assert_eq!(
        (redacted.get("reason"), redacted["redacted_at"].is_string()),
        (None, true)
    );
    assert_eq!(
        holding(&store, "REASON-moved-to-SSN-555"),
        Vec::<String>::new(),
        "the reason is erased with the redaction"
    );
    let v = ok(
        &engine,
        json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_2"}),
    );
    assert_eq!((v.get("reason"), &v["path"]), (None, &Value::Null));
}

#[test]
fn redacting_the_version_a_memorys_first_slot_names_leaves_it_found() {
    // Created through the API, then written twice by the memory tool: edits of
    // content, named by the file, so its first slot still names its creation,
    // whose record says where the memory is. Redacting that version erases its
    // path, so the first slot must name a version that still says it.
    let (engine, store) = common::api_engine(Config::default());
    let m = ok(
        &engine,
        json!({"op": "memory.create", "body": r#"{"path":"/x.md","content":"one\n"}"#}),
    );
    let id = m["id"].as_str().unwrap();
    for (from, to) in [("one", "two"), ("two", "three")] {
        let r = block_on(engine.execute(&json!({"command": "str_replace", "path": "/memories/x.md", "old_str": from, "new_str": to})));
        assert!(!r.is_error, "{}", r.content);
    }
    let created = ok(
        &engine,
        json!({"op": "version.redact", "id": m["memory_version_id"]}),
    );
    assert!(created["redacted_at"].is_string());
    assert_eq!(created["path"], Value::Null);
    let fresh = Engine::new(store.clone(), Config::default());
    for e in [&engine, &fresh] {
        let found = ok(e, json!({"op": "memory.retrieve", "id": id}));
        assert_eq!(
            (
                &found["path"],
                &found["content"],
                &found["memory_version_id"]
            ),
            (
                &json!("/x.md"),
                &json!("three\n"),
                &json!("memver_abcdefghjkmn_3")
            )
        );
        let listed = ok(e, json!({"op": "version.list", "query": {"memory_id": id}}));
        let ids: Vec<&str> = listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "memver_abcdefghjkmn_3",
                "memver_abcdefghjkmn_2",
                "memver_abcdefghjkmn_1"
            ]
        );
    }
    // And it is still written to, and the current version still refused.
    let r = block_on(engine.execute(
        &json!({"command": "rename", "old_path": "/memories/x.md", "new_path": "/memories/y.md"}),
    ));
    assert!(!r.is_error, "{}", r.content);
    let found = ok(&engine, json!({"op": "memory.retrieve", "id": id}));
    assert_eq!(found["path"], json!("/y.md"));
    let r = block_on(engine.api(&json!({"op": "version.redact", "id": "memver_abcdefghjkmn_4"})));
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.body["error"]["message"],
        json!(
            "Version memver_abcdefghjkmn_4 holds the current content of memory mem_abcdefghjkmn_1; update or delete the memory first, then redact this version."
        )
    );
}
