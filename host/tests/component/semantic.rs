//! Search by meaning in the host: the embedder the host lends the component
//! (`memdir:memory/embedder`): memdir's test embedder through the library and the
//! CLI's `--embedder test`, answering as the native engine with the same embedder
//! does; a host that lends none keeps lexical search; an embedder that fails is
//! said so and lexical search still answers.

use std::process::Command;
use std::rc::Rc;
use std::sync::Arc;

use memdir::config::Config;
use memdir::search::TestEmbedder;
use memdir::{Engine, ErrorKind, block_on};
use memdir_host::embedder::EmbedFailed;
use memdir_host::{
    Backend, CallErrorKind, HostEmbedder, HostLimits, MemoryBackend, TestHostEmbedder,
};
use serde_json::{Value, json};

use crate::support::{self, TempDir};

const CORPUS: [(&str, &str); 4] = [
    (
        "/memories/prefs/editor.md",
        "The user prefers dark mode in every editor.\n",
    ),
    (
        "/memories/prefs/schedule.md",
        "The user hates meetings before ten.\n",
    ),
    (
        "/memories/notes/trip.md",
        "Flight to Lisbon on Friday, window seat.\n",
    ),
    (
        "/memories/notes/zebra.md",
        "zebra crossing near the office\n",
    ),
];

fn host(backend: &Arc<dyn Backend>, embedder: Option<Arc<dyn HostEmbedder>>) -> memdir_host::Host {
    let mut h = support::runtime().host(backend.clone(), HostLimits::default());
    h.set_embedder(embedder);
    for (path, text) in CORPUS {
        let r = h.execute_json(
            &json!({"command": "create", "path": path, "file_text": text}).to_string(),
        );
        assert_eq!(r.content, format!("File created successfully at: {path}"));
    }
    h
}

fn paths(answer: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(answer).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_host_lending_the_test_embedder_finds_by_meaning_as_the_native_engine_does() {
    let backend: Arc<dyn Backend> = Arc::new(MemoryBackend::new());
    let mut h = host(&backend, Some(Arc::new(TestHostEmbedder::default())));
    let lexical = h
        .search_json(&json!({"query": "夜间模式", "mode": "lexical"}).to_string())
        .unwrap();
    assert_eq!(paths(&lexical), Vec::<String>::new());
    let semantic = h
        .search_json(&json!({"query": "夜间模式", "mode": "semantic", "limit": 1}).to_string())
        .unwrap();
    assert_eq!(paths(&semantic), ["/memories/prefs/editor.md"]);
    // Hybrid is the default with an embedder; the native engine over the same store
    // and embedder answers the same, score for score.
    let request = json!({"query": "morning availability", "limit": 2});
    let hybrid = h.search_json(&request.to_string()).unwrap();
    assert_eq!(paths(&hybrid)[0], "/memories/prefs/schedule.md");
    let mut engine = Engine::new(&*backend, Config::default());
    engine.set_embedder(Some(Rc::new(TestEmbedder::default())));
    assert_eq!(
        hybrid,
        block_on(engine.search_json(&request)).unwrap().to_string()
    );
    // recall takes the mode too.
    let recalled = h
        .recall_json(&json!({"query": "夜间模式", "mode": "semantic", "limit": 1}).to_string())
        .unwrap();
    assert!(
        recalled.contains("The user prefers dark mode in every editor."),
        "{recalled}"
    );
}

#[test]
fn a_host_without_an_embedder_keeps_lexical_search() {
    let backend: Arc<dyn Backend> = Arc::new(MemoryBackend::new());
    let mut h = host(&backend, None);
    let found = h
        .search_json(&json!({"query": "zebra"}).to_string())
        .unwrap();
    assert_eq!(paths(&found), ["/memories/notes/zebra.md"]);
    let e = h
        .search_json(&json!({"query": "夜间模式", "mode": "semantic"}).to_string())
        .unwrap_err();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (
            CallErrorKind::Tool(ErrorKind::Input),
            "Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'."
        )
    );
    // No vector was stored.
    let keys: Vec<String> = backend.list("vec/", None, 1000).unwrap();
    assert_eq!(keys, Vec::<String>::new());
}

/// An embedder whose service is down: every call fails.
struct Down;
impl HostEmbedder for Down {
    fn id(&self) -> String {
        "down".into()
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, _texts: &[String], _kind: &str) -> Result<Vec<Vec<f32>>, EmbedFailed> {
        Err(EmbedFailed)
    }
}

/// An embedder answering one number short.
struct Short;
impl HostEmbedder for Short {
    fn id(&self) -> String {
        "short".into()
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[String], _kind: &str) -> Result<Vec<Vec<f32>>, EmbedFailed> {
        Ok(texts.iter().map(|_| vec![1.0; 7]).collect())
    }
}

#[test]
fn an_embedder_that_fails_is_said_so_and_lexical_search_still_answers() {
    let backend: Arc<dyn Backend> = Arc::new(MemoryBackend::new());
    let mut h = host(&backend, Some(Arc::new(Down)));
    let e = h
        .search_json(&json!({"query": "dark mode", "mode": "semantic"}).to_string())
        .unwrap_err();
    assert_eq!(
        e.message,
        "The embedder failed (it threw or its promise rejected); no vector was kept, and search with mode 'lexical' still answers."
    );
    let found = h
        .search_json(&json!({"query": "zebra", "mode": "lexical"}).to_string())
        .unwrap();
    assert_eq!(paths(&found), ["/memories/notes/zebra.md"]);
    h.set_embedder(Some(Arc::new(Short)));
    let e = h
        .search_json(&json!({"query": "dark mode", "mode": "semantic"}).to_string())
        .unwrap_err();
    assert_eq!(
        e.message,
        "The embedder answered a vector of 7 numbers; it declares dims 8. No vector was kept."
    );
    let keys: Vec<String> = backend.list("vec/", None, 1000).unwrap();
    assert_eq!(keys, Vec::<String>::new());
}

#[test]
fn the_cli_lends_the_test_embedder_with_embedder_test() {
    let store = TempDir::new("semantic-cli");
    let cli = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_memdir-host"));
        c.env("MEMDIR_COMPONENT", support::component())
            .env("MEMDIR_CACHE", support::cache_dir());
        c
    };
    for (path, text) in CORPUS {
        let out = cli()
            .args(["exec", "--store"])
            .arg(&store.0)
            .arg(json!({"command": "create", "path": path, "file_text": text}).to_string())
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    let search = |extra: &[&str]| {
        let out = cli()
            .args(["search", "--store"])
            .arg(&store.0)
            .args(extra)
            .output()
            .unwrap();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
            out.status.code().unwrap(),
        )
    };
    let (out, _, code) = search(&["--embedder", "test", "--limit", "1", "夜间模式"]);
    assert_eq!(
        (paths(&out), code),
        (vec!["/memories/prefs/editor.md".to_string()], 0)
    );
    let (out, _, code) = search(&["--embedder", "test", "--mode", "lexical", "夜间模式"]);
    assert_eq!((out.trim(), code), ("[]", 0));
    let (out, _, code) = search(&["--mode", "semantic", "夜间模式"]);
    assert_eq!(
        (out.trim(), code),
        (
            r#"{"content":"Error: Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'.","is_error":true}"#,
            1
        )
    );
    let (_, err, code) = search(&["--embedder", "model:9", "x"]);
    assert_eq!(
        (err.lines().next().unwrap_or(""), code),
        (
            "memdir-host: --embedder needs test or test:DIMS (DIMS from 1 to 4096)",
            2
        )
    );
}

#[test]
fn search_status_counts_the_vectors_as_the_npm_package_does() {
    const FP: &str = "memdir-test-ngram-v1:384:l2:text-start:2000";
    let backend: Arc<dyn Backend> = Arc::new(MemoryBackend::new());
    let mut h = host(&backend, Some(Arc::new(TestHostEmbedder::default())));
    // Writes never embed: four texts wait, so the status is pending.
    let s = h.search_status().unwrap();
    let v = s.vectors.clone().unwrap();
    assert_eq!(
        (s.pending, v.fingerprint.as_str(), v.indexed, v.pending),
        (true, FP, 0, 4)
    );
    let s = h.reindex(10).unwrap();
    let v = s.vectors.clone().unwrap();
    assert_eq!(
        (
            s.indexed,
            s.pending,
            v.fingerprint.as_str(),
            v.indexed,
            v.pending
        ),
        (4, false, FP, 4, 0)
    );
    // Without an embedder the status is the index's alone.
    let empty: Arc<dyn Backend> = Arc::new(MemoryBackend::new());
    let mut plain = host(&empty, None);
    let s = plain.reindex(10).unwrap();
    assert_eq!((s.indexed, s.pending, s.vectors), (4, false, None));

    // The CLI prints it as `memdir reindex` / `searchStatus()` does.
    let store = TempDir::new("semantic-status");
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_memdir-host"))
            .env("MEMDIR_COMPONENT", support::component())
            .env("MEMDIR_CACHE", support::cache_dir())
            .args(args)
            .arg("--store")
            .arg(&store.0)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let (path, text) = CORPUS[0];
    let input = json!({"command": "create", "path": path, "file_text": text}).to_string();
    cli(&["exec", &input]);
    // The words' index caught up without an embedder: pending now means texts
    // waiting for a vector.
    assert_eq!(cli(&["reindex"]), "{\"indexed\":1,\"pending\":false}\n");
    assert_eq!(
        cli(&["search-status", "--embedder", "test"]),
        format!(
            "{{\"fingerprint\":\"{FP}\",\"indexed\":1,\"pending\":true,\"vectors\":{{\"indexed\":0,\"pending\":1}}}}\n"
        )
    );
    assert_eq!(
        cli(&["reindex", "--embedder", "test"]),
        format!(
            "{{\"fingerprint\":\"{FP}\",\"indexed\":1,\"pending\":false,\"vectors\":{{\"indexed\":1,\"pending\":0}}}}\n"
        )
    );
    assert_eq!(
        cli(&["search-status"]),
        "{\"indexed\":1,\"pending\":false}\n"
    );
}
