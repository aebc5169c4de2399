//! Redaction against a hostile version log, and what a redaction leaves in the
//! store's bytes: the content at once, the path once gc has passed the commits that
//! still named it, and no commit message that ever held either.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::Harness;
use memdir::{Config, Engine, Store, block_on};
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

#[test]
fn a_redacted_path_is_in_no_commit_message_and_in_no_byte_once_gc_has_passed() {
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
    let holding = |needle: &str| -> Vec<String> {
        common::dump(&store)
            .into_iter()
            .filter(|(_, v)| v.windows(needle.len()).any(|w| w == needle.as_bytes()))
            .map(|(k, _)| k.split('/').next().unwrap().to_string())
            .collect()
    };
    // (Its version records hold it, as records do until redacted; commits do not.)
    assert!(
        !holding("tool-ssn-987").contains(&"commit".to_string()),
        "{:?}",
        holding("tool-ssn-987")
    );
    assert!(!holding("ssn-123-45-6789").contains(&"commit".to_string()));
    ok(
        &engine,
        json!({"op": "version.redact", "id": "memver_abcdefghjkmn_1"}),
    );
    assert_eq!(
        holding("SECRET-CONTENT"),
        Vec::<String>::new(),
        "the content is erased at once"
    );
    // Only the trees of the commits before the rename still name the path.
    let named = holding("ssn-123-45-6789");
    assert!(
        !named.is_empty() && named.iter().all(|k| k == "tree"),
        "{named:?}"
    );
    for _ in 0..2 {
        block_on(engine.gc(0)).unwrap();
    }
    assert_eq!(
        holding("ssn-123-45-6789"),
        Vec::<String>::new(),
        "gc passed the old commits"
    );
    let v = ok(
        &engine,
        json!({"op": "version.retrieve", "id": "memver_abcdefghjkmn_1"}),
    );
    assert_eq!(
        (v["path"].clone(), v["content"].clone()),
        (Value::Null, Value::Null)
    );
}
