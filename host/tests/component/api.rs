//! The Memory Stores API through the component: `Host::api` and `memdir-host api`.

use std::process::Command;
use std::sync::Arc;

use memdir_host::{Backend, DirBackend, Host, HostLimits, MemoryBackend};
use serde_json::{Value, json};

use crate::support::{self, TempDir};

/// SHA-256 of "hello", as `content_sha256` spells it.
const HELLO_SHA256: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

fn host(backend: Arc<dyn Backend>) -> Host {
    support::runtime().host(backend, HostLimits::default())
}

/// One request through the component: its status and body.
fn call(host: &mut Host, request: &Value) -> (u64, Value) {
    let answer: Value = serde_json::from_str(&host.api(&request.to_string())).expect("JSON");
    (
        answer["status"].as_u64().expect("a status"),
        answer["body"].clone(),
    )
}

#[test]
fn a_memory_created_through_the_api_is_retrieved_and_versioned() {
    let mut h = host(Arc::new(MemoryBackend::new()));
    let body = json!({"path": "/notes/a.md", "content": "hello"}).to_string();
    let (status, created) = call(&mut h, &json!({"op": "memory.create", "body": body}));
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().expect("an id").to_string();
    assert!(id.starts_with("mem_"), "{id}");
    assert_eq!(created["type"], "memory");
    assert_eq!(created["path"], "/notes/a.md");
    assert_eq!(created["content_sha256"], HELLO_SHA256);
    assert_eq!(created["content_size_bytes"], 5);

    let (status, got) = call(&mut h, &json!({"op": "memory.retrieve", "id": id}));
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["id"], id.as_str());
    assert_eq!(got["content"], "hello", "view defaults to full");
    assert_eq!(got["content_sha256"], HELLO_SHA256);

    let (status, versions) = call(&mut h, &json!({"op": "version.list"}));
    assert_eq!(status, 200, "{versions}");
    let data = versions["data"].as_array().expect("a page");
    assert_eq!(data.len(), 1, "{versions}");
    let v = &data[0];
    assert!(
        v["id"].as_str().is_some_and(|s| s.starts_with("memver_")),
        "{v}"
    );
    assert_eq!(v["type"], "memory_version");
    assert_eq!(v["memory_id"], id.as_str());
    assert_eq!(v["operation"], "created");
    assert_eq!(v["content_sha256"], HELLO_SHA256);
    assert_eq!(v["path"], "/notes/a.md");
    assert_eq!(versions["next_page"], Value::Null);

    // Errors are answers with a status, in the engine's words.
    let (status, body) = call(&mut h, &json!({"op": "memory.retrieve", "id": "mem_nope"}));
    assert_eq!(
        (status, body["type"].as_str()),
        (404, Some("error")),
        "{body}"
    );
    assert_eq!(
        h.api("not json"),
        r#"{"body":{"error":{"message":"the request is not valid JSON","type":"invalid_request_error"},"type":"error"},"status":400}"#
    );
}

#[test]
fn an_archived_store_refuses_the_memory_tool_in_the_component_too() {
    // The engine's rule, so the wasmtime face refuses as the API and MCP do.
    let mut h = host(Arc::new(MemoryBackend::new()));
    let made = json!({"op": "store.create", "id": "memstore_abcdefghjkmn0123456789ab", "body": r#"{"name":"Team"}"#});
    assert_eq!(call(&mut h, &made).0, 200);
    h.create("/memories/a.md", "one\n").expect("created");
    h.create("/memories/b.md", "two\n").expect("created");
    assert_eq!(call(&mut h, &json!({"op": "store.archive"})).0, 200);
    let why = "the memory store is archived; its memories can be viewed and deleted, not created or changed";
    assert_eq!(
        h.create("/memories/c.md", "x").unwrap_err().to_string(),
        format!("Cannot create /memories/c.md: {why}")
    );
    let r = h.execute_json(
        r#"{"command":"str_replace","path":"/memories/a.md","old_str":"one","new_str":"uno"}"#,
    );
    assert_eq!(
        (r.content.as_str(), r.is_error),
        (
            format!("Error: Cannot str_replace /memories/a.md: {why}").as_str(),
            true
        )
    );
    assert_eq!(
        h.rename("/memories/a.md", "/memories/z.md")
            .unwrap_err()
            .to_string(),
        format!("Cannot rename /memories/a.md: {why}")
    );
    assert_eq!(
        h.delete("/memories/b.md").expect("deleted"),
        "Successfully deleted /memories/b.md"
    );
    assert_eq!(
        h.view("/memories/a.md", None).expect("viewed"),
        "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\t"
    );
}

#[test]
fn a_request_over_the_input_limit_is_refused_before_the_guest() {
    let mut h = support::runtime().host(
        Arc::new(MemoryBackend::new()),
        HostLimits {
            max_input_bytes: 64,
            ..HostLimits::default()
        },
    );
    let request = json!({"op": "memory.create", "body": "x".repeat(100)}).to_string();
    assert_eq!(
        h.api(&request),
        r#"{"body":{"error":{"message":"The request is over the limit of 64 bytes.","type":"request_too_large"},"type":"error"},"status":413}"#
    );
}

/// Redaction through the component on a directory store written by the native
/// engine (as the memdir CLI and Node write it: each commit one pack, linked
/// under every key it holds): afterwards no file of the store, read raw, holds a
/// byte of the redacted text. (Through the component, wasi:keyvalue sets each
/// object on its own, so packs are shared only in stores written natively.)
#[test]
fn a_redacted_text_is_gone_from_every_file_of_a_directory_store() {
    const SECRET: &str = "MEMDIR-REDACT-ME 4b1d the account number";
    let dir = TempDir::new("api-redact");
    let backend: Arc<dyn Backend> = Arc::new(DirBackend::open(&dir.0).expect("open"));
    let native = memdir::Engine::new(&*backend, memdir::config::Config::default());
    let native_call = |request: &Value| -> (u64, Value) {
        let answer = memdir::block_on(native.api_json(&request.to_string()));
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        (
            answer["status"].as_u64().expect("a status"),
            answer["body"].clone(),
        )
    };
    let create = json!({"path": "/a.md", "content": SECRET}).to_string();
    let (status, created) = native_call(&json!({"op": "memory.create", "body": create}));
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().expect("an id").to_string();
    let first = created["memory_version_id"]
        .as_str()
        .expect("a version")
        .to_string();
    let update = json!({"content": "nothing to hide"}).to_string();
    let (status, updated) = native_call(&json!({"op": "memory.update", "id": id, "body": update}));
    assert_eq!(status, 200, "{updated}");
    let mut h = host(backend.clone());
    let holding = |dir: &std::path::Path| -> Vec<String> {
        let mut found: Vec<String> = std::fs::read_dir(dir)
            .expect("read")
            .filter_map(|e| {
                let e = e.ok()?;
                let bytes = std::fs::read(e.path()).ok()?;
                bytes
                    .windows(SECRET.len())
                    .any(|w| w == SECRET.as_bytes())
                    .then(|| e.file_name().to_string_lossy().into_owned())
            })
            .collect();
        found.sort();
        found
    };
    assert!(
        holding(&dir.0).len() > 2,
        "the text is in the blob and the record, and in every other file of their pack: {:?}",
        holding(&dir.0)
    );
    let (status, redacted) = call(
        &mut h,
        &json!({"op": "version.redact", "id": first, "body": "{}"}),
    );
    assert_eq!(status, 200, "{redacted}");
    assert_eq!(redacted["content_sha256"], Value::Null, "{redacted}");
    assert_eq!(holding(&dir.0), Vec::<String>::new());
    let (status, got) = call(&mut h, &json!({"op": "memory.retrieve", "id": id}));
    assert_eq!(
        (status, got["content"].as_str()),
        (200, Some("nothing to hide")),
        "{got}"
    );
}

/// A redacted path through the component, on a directory store written by the
/// native engine (so the old trees' leaves share packs with other objects): the
/// older trees name it before, and no file of the store holds a byte of it as
/// soon as the redaction answers; gc then passes and the memory reads on.
#[test]
fn a_redacted_path_is_gone_from_every_file_when_the_redaction_answers() {
    const NAME: &str = "ssn-IBEX-3071";
    let dir = TempDir::new("api-redact-path");
    let backend: Arc<dyn Backend> = Arc::new(DirBackend::open(&dir.0).expect("open"));
    let native = memdir::Engine::new(&*backend, memdir::config::Config::default());
    let native_call = |request: &Value| -> Value {
        let answer = memdir::block_on(native.api_json(&request.to_string()));
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        assert_eq!(answer["status"], 200, "{answer}");
        answer["body"].clone()
    };
    let naming = |dir: &std::path::Path| -> usize {
        std::fs::read_dir(dir)
            .expect("read")
            .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
            .filter(|bytes| bytes.windows(NAME.len()).any(|w| w == NAME.as_bytes()))
            .count()
    };
    let create = json!({"path": format!("/{NAME}.md"), "content": "ibex one"}).to_string();
    let created = native_call(&json!({"op": "memory.create", "body": create}));
    let id = created["id"].as_str().expect("an id").to_string();
    let first = created["memory_version_id"]
        .as_str()
        .expect("a version")
        .to_string();
    let beside = json!({"path": "/beside.md", "content": "beside"}).to_string();
    native_call(&json!({"op": "memory.create", "body": beside}));
    let moved = json!({"path": "/public.md", "content": "ibex two"}).to_string();
    native_call(&json!({"op": "memory.update", "id": id, "body": moved}));
    assert!(naming(&dir.0) > 0, "older trees name the path before");
    let mut h = host(backend.clone());
    let (status, redacted) = call(
        &mut h,
        &json!({"op": "version.redact", "id": first, "body": "{}"}),
    );
    assert_eq!(
        (status, &redacted["path"]),
        (200, &Value::Null),
        "{redacted}"
    );
    assert_eq!(naming(&dir.0), 0);
    for keep in [1000, 0, 0] {
        h.gc(keep).expect("gc");
    }
    let (status, got) = call(&mut h, &json!({"op": "memory.retrieve", "id": id}));
    assert_eq!(
        (status, got["path"].as_str()),
        (200, Some("/public.md")),
        "{got}"
    );
}

#[test]
fn the_cli_prints_the_answer_and_exits_by_its_status() {
    let dir = TempDir::new("api-cli");
    let run = |request: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_memdir-host"))
            .arg("api")
            .arg("--store")
            .arg(&dir.0)
            .arg("--component")
            .arg(support::component())
            .arg("--cache")
            .arg(support::cache_dir())
            .arg(request)
            .output()
            .expect("running memdir-host");
        let line = String::from_utf8(out.stdout).expect("UTF-8");
        let answer: Value = serde_json::from_str(line.trim_end()).expect("one JSON line");
        (out.status.code(), answer)
    };
    let body = json!({"path": "/b.md", "content": "hello"}).to_string();
    let (code, created) = run(&json!({"op": "memory.create", "body": body}).to_string());
    assert_eq!(code, Some(0), "{created}");
    assert_eq!(created["status"], 200);
    assert_eq!(created["body"]["content_sha256"], HELLO_SHA256);
    let id = created["body"]["id"].as_str().expect("an id");
    assert!(id.starts_with("mem_"), "{id}");
    let (code, got) = run(&json!({"op": "memory.retrieve", "id": id}).to_string());
    assert_eq!(
        (code, got["body"]["content"].as_str()),
        (Some(0), Some("hello")),
        "{got}"
    );
    let (code, missing) = run(r#"{"op":"memory.retrieve","id":"mem_nope"}"#);
    assert_eq!(
        (code, missing["status"].as_u64()),
        (Some(1), Some(404)),
        "{missing}"
    );
}
