//! All or nothing: a store that fails the k-th operation, for every k, during every
//! command, leaves the visible tree and the version history exactly as they were,
//! and the engine that saw the failure keeps working and sees the truth afterwards.
//! (`big` holds 200 files: enough for a sharded directory; a rename or delete of it
//! writes a version per file, so every failure point is a few hundred runs.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::common;

use common::{Harness, dir, file};
use memdir::config::Config;
use memdir::{Engine, Entry, MemoryStore, Store, StoreError, ToolError, block_on};

/// A deep copy of a memory store, so every k starts from the same bytes.
fn fork(src: &MemoryStore) -> MemoryStore {
    let dst = MemoryStore::new();
    block_on(async {
        for key in memdir::contract::list_all(src, "").await.unwrap() {
            let v = src.get(&key).await.unwrap().unwrap();
            dst.set(&key, &v).await.unwrap();
        }
    });
    dst
}

/// The store's whole version history as the API lists it (newest 100).
fn history<S: Store>(store: S) -> serde_json::Value {
    let engine = Engine::new(store, Config::default());
    let r =
        block_on(engine.api(&serde_json::json!({"op": "version.list", "query": {"limit": "100"}})));
    assert_eq!(r.status, 200);
    r.body
}

fn seeded() -> (MemoryStore, Vec<Entry>) {
    let mut entries = vec![
        file("/memories/notes.md", "Line 1\nLine 2\nLine 3"),
        file("/memories/dir/a.txt", "alpha"),
        dir("/memories/empty"),
    ];
    for i in 0..200 {
        entries.push(file(
            &format!("/memories/big/f{i:04}.md"),
            &format!("file {i}\n"),
        ));
    }
    let store = MemoryStore::new();
    let engine = Engine::new(store.clone(), Config::default());
    block_on(engine.import(&entries)).unwrap();
    let visible = block_on(engine.entries()).unwrap();
    (store, visible)
}

const COMMANDS: &[&str] = &[
    r#"{"command":"create","path":"/memories/new.md","file_text":"hello"}"#,
    r#"{"command":"create","path":"/memories/x/y/z.md","file_text":"deep"}"#,
    r#"{"command":"str_replace","path":"/memories/notes.md","old_str":"Line 2","new_str":"Two"}"#,
    r#"{"command":"insert","path":"/memories/notes.md","insert_line":3,"insert_text":"Line 4"}"#,
    r#"{"command":"delete","path":"/memories/notes.md"}"#,
    r#"{"command":"delete","path":"/memories/big"}"#,
    r#"{"command":"rename","old_path":"/memories/big","new_path":"/memories/archive/big"}"#,
    r#"{"command":"rename","old_path":"/memories/dir/a.txt","new_path":"/memories/empty/a.txt"}"#,
    r#"{"command":"create","path":"/memories/big/f0200.md","file_text":"one more"}"#,
];

#[test]
fn every_failure_point_of_every_command_leaves_the_tree_unchanged() {
    let (base, before) = seeded();
    let versions = history(&base);
    let mut points = 0;
    for input in COMMANDS {
        // A clean run tells how many store operations the command makes.
        let clean = Harness::new(fork(&base));
        let ok = block_on(Engine::new(&clean, Config::default()).execute_json(input));
        assert!(!ok.is_error, "{input}: {}", ok.content);
        let total = clean.shared.ops.get();
        assert!(total >= 3, "{input} made only {total} store operations");

        for k in 0..total {
            let store = Harness::new(fork(&base));
            store.shared.fail_at.set(Some(k));
            let engine = Engine::new(&store, Config::default());
            let r = block_on(engine.execute_json(input));
            assert_eq!(
                (r.content.as_str(), r.is_error),
                (
                    "Error: The memory directory's storage failed; nothing was changed.",
                    true
                ),
                "{input} failing at operation {k} of {total}"
            );
            let fresh = Engine::new(&store.inner, Config::default());
            assert!(
                block_on(fresh.entries()).unwrap() == before,
                "{input}: operation {k} of {total} left a change"
            );
            assert!(
                history(&store.inner) == versions,
                "{input}: operation {k} of {total} left a version"
            );
            // The same engine recovers and sees the truth.
            store.shared.fail_at.set(None);
            let again = block_on(engine.execute_json(input));
            assert_eq!(
                (again.content.as_str(), again.is_error),
                (ok.content.as_str(), false),
                "{input} after failure at {k}"
            );
            points += 1;
        }
    }
    println!(
        "all-or-nothing: {} commands, {points} failure points, tree unchanged at each",
        COMMANDS.len()
    );
}

#[test]
fn a_failing_import_changes_nothing() {
    let (base, before) = seeded();
    let replacement = vec![file("/memories/only.md", "x"), dir("/memories/d")];
    let clean = Harness::new(fork(&base));
    block_on(Engine::new(&clean, Config::default()).import(&replacement)).unwrap();
    let total = clean.shared.ops.get();
    for k in 0..total {
        let store = Harness::new(fork(&base));
        store.shared.fail_at.set(Some(k));
        let err =
            block_on(Engine::new(&store, Config::default()).import(&replacement)).unwrap_err();
        assert_eq!(err, ToolError::Storage(StoreError::Failed));
        assert_eq!(
            err.to_string(),
            "The memory directory's storage failed; nothing was changed."
        );
        let fresh = Engine::new(&store.inner, Config::default());
        assert!(
            block_on(fresh.entries()).unwrap() == before,
            "import failing at {k} of {total} left a change"
        );
    }
}

#[test]
fn refused_commands_write_nothing() {
    let (base, _) = seeded();
    let refusals = [
        r#"{"command":"create","path":"/memories/notes.md","file_text":"x"}"#,
        r#"{"command":"create","path":"/memories/notes.md/x","file_text":"x"}"#,
        r#"{"command":"str_replace","path":"/memories/notes.md","old_str":"Line","new_str":"x"}"#,
        r#"{"command":"insert","path":"/memories/notes.md","insert_line":9,"insert_text":"x"}"#,
        r#"{"command":"delete","path":"/memories/missing"}"#,
        r#"{"command":"rename","old_path":"/memories/big","new_path":"/memories/notes.md"}"#,
    ];
    for input in refusals {
        let store = Harness::new(fork(&base));
        let r = block_on(Engine::new(&store, Config::default()).execute_json(input));
        assert!(r.is_error, "{input}");
        assert_eq!(store.shared.writes.get(), 0, "{input} wrote to the store");
    }
}

#[test]
fn a_store_that_refuses_secrets_refuses_before_storage_and_redacts_on_request() {
    use memdir::SecretPolicy;
    let key = "AKIAIOSFODNN7EXAMPLE";
    let input =
        format!(r#"{{"command":"create","path":"/memories/creds.md","file_text":"aws {key}"}}"#);
    let store = Harness::new(MemoryStore::new());
    let refusing = Engine::new(
        &store,
        Config {
            secrets: SecretPolicy::Refuse,
            ..Config::default()
        },
    );
    let r = block_on(refusing.execute_json(&input));
    assert_eq!(
        r.content,
        "Error: Cannot write /memories/creds.md: the text looks like it holds a credential (AWS access key). Memories must not store credentials; nothing was written."
    );
    assert_eq!(store.shared.ops.get(), 0, "a refusal touched the store");

    let redacting = Engine::new(
        MemoryStore::new(),
        Config {
            secrets: SecretPolicy::Redact,
            ..Config::default()
        },
    );
    assert!(!block_on(redacting.execute_json(&input)).is_error);
    let edit = r#"{"command":"str_replace","path":"/memories/creds.md","old_str":"aws","new_str":"card 4111 1111 1111 1111"}"#;
    assert_eq!(
        block_on(redacting.execute_json(edit)).content,
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tcard [redacted: card number] [redacted: AWS access key]"
    );
}

/// Every value the store holds that contains `needle`, by key.
fn holding(store: &MemoryStore, needle: &str) -> Vec<String> {
    common::dump(store)
        .into_iter()
        .filter(|(_, v)| v.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(k, _)| k)
        .collect()
}

#[test]
fn a_redaction_failing_at_any_step_leaves_a_whole_store_and_gc_erases_the_rest() {
    use serde_json::json;
    // A renamed memory: the redaction of its first version publishes, then deletes
    // the old record, the old content and the old trees' leaves naming the path.
    let (engine, base) = common::api_engine(Config::default());
    let call = |request: serde_json::Value| {
        let r = block_on(engine.api(&request));
        assert_eq!(r.status, 200, "{request} -> {}", r.body);
        r.body
    };
    call(json!({"op": "memory.create", "body": r#"{"path":"/other.md","content":"other"}"#}));
    let m = call(
        json!({"op": "memory.create", "body": r#"{"path":"/secret-name.md","content":"SECRET-CONTENT"}"#}),
    );
    let id = m["id"].as_str().unwrap();
    call(
        json!({"op": "memory.update", "id": id, "body": r#"{"path":"/public.md","content":"new"}"#}),
    );
    let before = block_on(Engine::new(fork(&base), Config::default()).entries()).unwrap();
    let versions = history(fork(&base));
    let redact = json!({"op": "version.redact", "id": id.replace("mem_", "memver_")});

    let clean = Harness::new(fork(&base));
    let r = block_on(Engine::new(&clean, Config::default()).api(&redact));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(holding(&clean.inner, "secret-name"), Vec::<String>::new());
    let total = clean.shared.ops.get();
    let (mut unchanged, mut unerased, mut unindexed) = (0, 0, 0);
    for k in 0..total {
        let store = Harness::new(fork(&base));
        store.shared.fail_at.set(Some(k));
        let r = block_on(Engine::new(&store, Config::default()).api(&redact));
        let message = r.body["error"]["message"].as_str().unwrap_or_default();
        match message {
            // The last steps bring the search index up to the head: their failure
            // leaves the redaction done and whole, and the next search catches up.
            "" if r.status == 200 => unindexed += 1,
            "The store failed; nothing was changed." => {
                unchanged += 1;
                assert_eq!(history(&store.inner), versions, "failing at {k} of {total}");
            }
            "The version is redacted, but the store failed while erasing its old content; gc erases what remains." =>
            {
                unerased += 1;
            }
            other => panic!("failing at {k} of {total}: {} {other}", r.status),
        }
        assert_eq!(r.status, if message.is_empty() { 200 } else { 500 });
        // Whatever step failed, the store is whole: its tree, every version, and
        // gc keeping any number of commits.
        let fresh = Engine::new(&store.inner, Config::default());
        assert!(
            block_on(fresh.entries()).unwrap() == before,
            "failing at {k} of {total}"
        );
        let listed = block_on(fresh.api(&json!({"op": "version.list", "query": {"limit": "100"}})));
        assert_eq!(listed.status, 200, "failing at {k} of {total}");
        block_on(fresh.gc(1000)).unwrap();
        // Redacted or not, a redaction now erases the path at once; if it was
        // published, gc's two passes erase what the failure left.
        let again = block_on(fresh.api(&redact));
        assert_eq!(
            again.status, 200,
            "failing at {k} of {total}: {}",
            again.body
        );
        for _ in 0..2 {
            block_on(fresh.gc(0)).unwrap();
        }
        assert_eq!(
            holding(&store.inner, "secret-name"),
            Vec::<String>::new(),
            "failing at {k} of {total}"
        );
        assert_eq!(
            holding(&store.inner, "SECRET-CONTENT"),
            Vec::<String>::new()
        );
    }
    assert!(
        unchanged > 0 && unerased > 0 && unindexed > 0,
        "{unchanged} {unerased} {unindexed}"
    );
    println!(
        "redaction: {total} failure points, {unchanged} before its commit, {unerased} after, {unindexed} in the search index's catch-up"
    );
}
