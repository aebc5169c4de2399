//! The sandbox: what the component can reach, and what happens when an input
//! pushes it past the host's limits or the store fails under it.

use std::sync::Arc;

use memdir::ErrorKind;
use memdir::StoreError;
use memdir_host::{Backend, CallErrorKind, HostLimits, MemoryBackend};
use serde_json::json;

use crate::support::{self, KINDS, Probe};

#[test]
fn the_component_imports_exactly_keyvalue_draft2_the_wall_clock_and_the_embedder() {
    let mut imports = support::runtime().imports();
    imports.sort();
    assert_eq!(
        imports,
        [
            "memdir:memory/embedder@0.1.0",
            "wasi:clocks/wall-clock@0.2.0",
            "wasi:keyvalue/atomics@0.2.0-draft2",
            "wasi:keyvalue/store@0.2.0-draft2"
        ],
        "the component must reach nothing but its bucket, the clock and the embedder"
    );
}

#[test]
fn the_component_exports_the_tool_interface() {
    let mut exports = support::runtime().exports();
    exports.sort();
    let tool = "memdir:memory/tool@0.1.0";
    // The interface's functions and its record types.
    let want: Vec<String> = [
        "api",
        "config",
        "configure",
        "create",
        "defaults",
        "delete",
        "encrypt",
        "encryption",
        "engine-defaults",
        "entries",
        "entry",
        "error-kind",
        "execute-json",
        "expire",
        "expire-report",
        "gc",
        "gc-report",
        "import",
        "index-status",
        "insert",
        "limits",
        "recall",
        "recall-found",
        "recall-item",
        "recall-line",
        "reindex",
        "rekey",
        "rename",
        "run",
        "seal-status",
        "search",
        "search-status",
        "secret-policy",
        "str-replace",
        "tool-error",
        "tool-result",
        "toolset",
        "toolset-error",
        "toolset-search-page",
        "toolset-tools",
        "top",
        "top-entries",
        "top-entry",
        "vector-status",
        "view",
    ]
    .iter()
    .map(|f| format!("{tool}#{f}"))
    .collect();
    assert_eq!(exports, want);
}

fn seeded_memory() -> (Arc<MemoryBackend>, Arc<dyn Backend>) {
    let mem = Arc::new(MemoryBackend::new());
    let backend: Arc<dyn Backend> = mem.clone();
    let files = [
        ("/memories/a.txt", "one\ntwo"),
        ("/memories/d/b.txt", "bee"),
    ];
    let entries: Vec<_> = files
        .iter()
        .map(|(p, t)| memdir::Entry {
            path: (*p).into(),
            content: Some((*t).into()),
        })
        .collect();
    support::seed(&backend, memdir::config::Config::default(), &entries);
    (mem, backend)
}

const VIEW_A: &str = r#"{"command":"view","path":"/memories/a.txt"}"#;
const VIEWED_A: &str =
    "Here's the content of /memories/a.txt with line numbers:\n     1\tone\n     2\ttwo";

#[test]
fn running_out_of_fuel_traps_cleanly_and_the_host_keeps_serving() {
    let (mem, backend) = seeded_memory();
    let before = mem.snapshot();
    let mut host = support::runtime().host(backend, HostLimits::default());
    assert_eq!(host.execute_json(VIEW_A).content, VIEWED_A);

    host.set_limits(HostLimits {
        fuel: 20_000,
        ..HostLimits::default()
    });
    let input =
        json!({"command": "create", "path": "/memories/new.txt", "file_text": "x".repeat(50_000)});
    let r = host.execute_json(&input.to_string());
    assert!(r.is_error);
    assert_eq!(
        r.content,
        "Error: The memory tool ran out of its compute budget and was stopped; nothing was changed."
    );
    assert!(!host.is_live(), "a trapped instance is discarded");
    assert_eq!(mem.snapshot(), before, "the store is unchanged");

    host.set_limits(HostLimits::default());
    assert_eq!(
        host.execute_json(VIEW_A).content,
        VIEWED_A,
        "a fresh instance serves the next call"
    );
    let r = host.execute_json(&input.to_string());
    assert_eq!(r.content, "File created successfully at: /memories/new.txt");
}

#[test]
fn running_out_of_memory_traps_cleanly_and_the_host_keeps_serving() {
    let (mem, backend) = seeded_memory();
    let before = mem.snapshot();
    let small = HostLimits {
        memory_bytes: 8 << 20,
        ..HostLimits::default()
    };
    let mut host = support::runtime().host(backend, small);
    assert_eq!(
        host.execute_json(VIEW_A).content,
        VIEWED_A,
        "8 MiB is enough for a view"
    );

    // Within the input limit, but the string, its parse and its copies need more.
    let input =
        json!({"command": "create", "path": "/memories/big.txt", "file_text": "y".repeat(6 << 20)});
    let r = host.execute_json(&input.to_string());
    assert_eq!(
        r.content,
        "Error: The memory tool ran out of memory and was stopped; nothing was changed."
    );
    assert!(r.is_error);
    assert_eq!(mem.snapshot(), before, "the store is unchanged");
    assert_eq!(
        host.execute_json(VIEW_A).content,
        VIEWED_A,
        "a fresh instance serves the next call"
    );
}

#[test]
fn an_input_of_100_mib_is_refused_before_the_guest_and_changes_nothing() {
    let (mem, backend) = seeded_memory();
    let before = mem.snapshot();
    let mut host = support::runtime().host(backend, HostLimits::default());
    let huge = json!({"command": "create", "path": "/memories/huge.txt", "file_text": "z".repeat(100 << 20)}).to_string();
    let r = host.execute_json(&huge);
    assert_eq!(
        r.content,
        "Error: Invalid tool input: the input is over the limit of 16,777,216 bytes"
    );
    assert!(r.is_error);
    assert_eq!(mem.snapshot(), before);
    assert_eq!(host.execute_json(VIEW_A).content, VIEWED_A);
}

#[test]
fn an_input_of_100_mib_that_reaches_the_guest_gets_a_clear_answer() {
    let (mem, backend) = seeded_memory();
    let before = mem.snapshot();
    let roomy = HostLimits {
        max_input_bytes: 128 << 20,
        memory_bytes: 512 << 20,
        ..HostLimits::default()
    };
    let mut host = support::runtime().host(backend, roomy);
    // The engine holds its own cap, in the same words, whatever the host lets in.
    let text = "{".repeat(100 << 20);
    assert_eq!(
        host.execute_json(&text).content,
        "Error: Invalid tool input: the input is over the limit of 16,777,216 bytes"
    );
    let huge = json!({"command": "create", "path": "/memories/huge.txt", "file_text": "z".repeat(100 << 20)}).to_string();
    let r = host.execute_json(&huge);
    assert_eq!(
        r.content,
        "Error: Invalid tool input: the input is over the limit of 16,777,216 bytes"
    );
    // Under the engine's cap, a deeply nested input still gets an answer.
    let nested = "[".repeat(16 << 20);
    assert_eq!(
        host.execute_json(&nested).content,
        "Error: Invalid tool input: not valid JSON"
    );
    assert_eq!(mem.snapshot(), before);
    assert_eq!(host.execute_json(VIEW_A).content, VIEWED_A);
}

#[test]
fn input_that_is_not_utf8_or_not_json_is_refused_and_changes_nothing() {
    let (mem, backend) = seeded_memory();
    let before = mem.snapshot();
    let mut host = support::runtime().host(backend, HostLimits::default());
    let r = host.execute_bytes(
        b"{\"command\":\"create\",\"path\":\"/memories/\xff.txt\",\"file_text\":\"x\"}",
    );
    assert_eq!(r.content, "Error: Invalid tool input: not valid UTF-8");
    assert!(r.is_error);
    let r = host.execute_bytes(b"create /memories/x.txt");
    assert_eq!(r.content, "Error: Invalid tool input: not valid JSON");
    assert_eq!(mem.snapshot(), before);
}

const FULL: &str = "Error: The memory directory's storage is full; nothing was changed.";
const UNAVAILABLE: &str =
    "Error: The memory directory's storage is unavailable right now; nothing was changed.";
const FAILED: &str = "Error: The memory directory's storage failed; nothing was changed.";

/// Storage failing at each step of a command: the kind crosses the keyvalue
/// boundary intact, the answer is the engine's fixed sentence, nothing changes.
#[test]
fn a_store_failing_mid_command_gets_a_clear_error_and_changes_nothing() {
    let writes = [
        json!({"command": "create", "path": "/memories/new.txt", "file_text": "n"}),
        json!({"command": "str_replace", "path": "/memories/a.txt", "old_str": "one", "new_str": "1"}),
        json!({"command": "insert", "path": "/memories/a.txt", "insert_line": 0, "insert_text": "z"}),
        json!({"command": "delete", "path": "/memories/d"}),
        json!({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"}),
    ];
    let mut checked = 0;
    for kind in KINDS {
        for input in &writes {
            // How many operations the command makes when nothing fails.
            let (backend, _dir) = support::fresh(kind);
            let (_, seed) = seeded_memory();
            let entries = memdir::block_on(
                memdir::Engine::new(&*seed, memdir::config::Config::default()).entries(),
            )
            .expect("entries");
            support::seed(&backend, memdir::config::Config::default(), &entries);
            let probe = Arc::new(Probe::new(backend.clone()));
            let mut host = support::runtime().host(probe.clone(), HostLimits::default());
            let ok = host.execute_json(&input.to_string());
            assert!(!ok.is_error, "{input}: {}", ok.content);
            let total = probe.ops.load(std::sync::atomic::Ordering::SeqCst);

            for (err, want) in [
                (StoreError::QuotaExceeded, FULL),
                (StoreError::Unavailable, UNAVAILABLE),
                (StoreError::Failed, FAILED),
            ] {
                for from in 1..=total {
                    let (backend, _dir) = support::fresh(kind);
                    support::seed(&backend, memdir::config::Config::default(), &entries);
                    let before = support::raw(&backend);
                    let tree = support::tree(&backend);
                    let mut probe = Probe::new(backend.clone());
                    probe.fail_from = Some((from, err));
                    let mut host = support::runtime().host(Arc::new(probe), HostLimits::default());
                    let r = host.execute_json(&input.to_string());
                    assert_eq!(
                        (r.content.as_str(), r.is_error),
                        (want, true),
                        "{kind:?} {input} failing from op {from}"
                    );
                    assert_eq!(
                        support::tree(&backend),
                        tree,
                        "{kind:?} {input} failing from op {from} changed the tree"
                    );
                    // Only unpublished objects may have been added; nothing was removed or moved.
                    let after = support::raw(&backend);
                    for (k, v) in &before {
                        assert_eq!(
                            after.get(k),
                            Some(v),
                            "{kind:?} {input} from op {from}: key {k} changed"
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    println!("storage failures through the component: {checked} runs");
}

#[test]
fn the_typed_exports_answer_like_the_handler_face() {
    let (_, backend) = seeded_memory();
    let mut host = support::runtime().host(backend, HostLimits::default());
    assert_eq!(
        host.create("/memories/t.md", "hello\nworld"),
        Ok("File created successfully at: /memories/t.md".into())
    );
    let exists = host.create("/memories/t.md", "again").unwrap_err();
    assert_eq!(exists.to_string(), "File /memories/t.md already exists");
    assert_eq!(exists.kind, CallErrorKind::Tool(ErrorKind::Refused));
    assert_eq!(
        host.insert("/memories/t.md", 1, "mid"),
        Ok("The file /memories/t.md has been edited.".into())
    );
    assert_eq!(
        host.view("/memories/t.md", Some((2, -1))),
        Ok(
            "Here's the content of /memories/t.md with line numbers:\n     2\tmid\n     3\tworld"
                .into()
        )
    );
    assert_eq!(
        host.rename("/memories/t.md", "/memories/u.md"),
        Ok("Successfully renamed /memories/t.md to /memories/u.md".into())
    );
    assert_eq!(
        host.delete("/memories/u.md"),
        Ok("Successfully deleted /memories/u.md".into())
    );
    let escape = host.delete("/memories/../etc").unwrap_err();
    assert_eq!(
        escape.to_string(),
        "Path /memories/../etc would escape /memories directory"
    );
    assert_eq!(escape.kind, CallErrorKind::Tool(ErrorKind::Path));
    let big = "b".repeat(9 << 20);
    let small = HostLimits {
        max_input_bytes: 8 << 20,
        ..HostLimits::default()
    };
    host.set_limits(small);
    let refused = host.create("/memories/big.md", &big).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "Invalid tool input: the input is over the limit of 8,388,608 bytes"
    );
    assert_eq!(refused.kind, CallErrorKind::Tool(ErrorKind::Input));
}

/// A trap after the command's swap succeeded (fuel running out while the answer
/// is rendered) must not claim that nothing changed: the change is saved.
#[test]
fn a_trap_after_the_change_was_saved_says_so() {
    let input =
        json!({"command": "create", "path": "/memories/late.txt", "file_text": "late"}).to_string();
    let run = |fuel: u64| {
        let mem = Arc::new(MemoryBackend::new());
        let mut host = support::runtime().host(
            mem.clone(),
            HostLimits {
                fuel,
                ..HostLimits::default()
            },
        );
        (host.execute_json(&input), mem)
    };
    // About the least fuel that completes the command, by bisection. Fuel use varies
    // by a little from run to run (the commit's time and hashes order the caches),
    // so the trap after the swap is looked for a little below it.
    let (mut lo, mut hi) = (1u64, 50_000_000u64);
    assert!(!run(hi).0.is_error, "the command completes with ample fuel");
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if run(mid).0.is_error {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    const SAVED: &str = "Error: The memory tool ran out of its compute budget and was stopped after it had saved its change.";
    const NOTHING: &str = "Error: The memory tool ran out of its compute budget and was stopped; nothing was changed.";
    let mut found = false;
    for below in [1, 20, 100, 300, 1000, 3000, 10_000] {
        let (r, mem) = run(hi.saturating_sub(below));
        let backend: Arc<dyn Backend> = mem;
        let saved =
            support::tree(&backend).get("/memories/late.txt") == Some(&Some("late".to_string()));
        match r.content.as_str() {
            SAVED => {
                assert!(saved, "the answer says saved, so the file must be there");
                found = true;
                break;
            }
            NOTHING => assert!(
                !saved,
                "the answer says nothing changed, so the file must be absent"
            ),
            other => assert_eq!(other, "File created successfully at: /memories/late.txt"),
        }
    }
    assert!(
        found,
        "no fuel budget just short of completion stopped the command after its swap"
    );
}

/// The tree-level exports: entries read what commands wrote, import swaps
/// the whole tree, and gc (which lists keys through draft2's unordered, prefix-less
/// list-keys) removes only unreachable objects.
#[test]
fn entries_import_and_gc_through_the_component() {
    for kind in KINDS {
        let (backend, _dir) = support::fresh(kind);
        let mut host = support::runtime().host(backend.clone(), HostLimits::default());
        for i in 0..5 {
            host.create(&format!("/memories/d/f{i}.md"), "one")
                .expect("create");
            host.str_replace(&format!("/memories/d/f{i}.md"), "one", "two")
                .expect("edit");
        }
        host.delete("/memories/d/f0.md").expect("delete");
        let tree = support::tree(&backend);
        let entries = host.entries().expect("entries");
        assert_eq!(
            entries
                .iter()
                .map(|e| (e.path.clone(), e.content.clone()))
                .collect::<support::Tree>(),
            tree
        );
        assert_eq!(
            entries.first().map(|e| e.path.as_str()),
            Some("/memories/d")
        );

        let keys = support::raw(&backend).len();
        let first = host.gc(0).expect("gc");
        assert_eq!(first.deleted, 0, "{kind:?}: the first pass only marks");
        assert!(first.pending > 0, "{kind:?}: old versions are unreferenced");
        let second = host.gc(0).expect("gc");
        assert_eq!(second.deleted, first.pending, "{kind:?}");
        assert!(
            second.deleted > 0 && support::raw(&backend).len() < keys,
            "{kind:?}: objects were removed"
        );
        assert_eq!(support::tree(&backend), tree, "{kind:?}: gc keeps the tree");

        let new = [
            memdir::Entry {
                path: "/memories/x.md".into(),
                content: Some("x".into()),
            },
            memdir::Entry {
                path: "/memories/empty".into(),
                content: None,
            },
        ];
        host.import(&new).expect("import");
        let want: support::Tree = [
            ("/memories/empty".to_string(), None),
            ("/memories/x.md".to_string(), Some("x".to_string())),
        ]
        .into();
        assert_eq!(support::tree(&backend), want, "{kind:?}");
        let refused = host
            .import(&[memdir::Entry {
                path: "/etc/passwd".into(),
                content: Some(String::new()),
            }])
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "Path must start with /memories, got: /etc/passwd"
        );
        assert_eq!(refused.kind, CallErrorKind::Tool(ErrorKind::Path));
        assert_eq!(
            support::tree(&backend),
            want,
            "{kind:?}: a refused import changes nothing"
        );
    }
}

/// The world sets everything `openMemory` sets, and its defaults are the engine's.
#[test]
fn the_world_takes_every_setting_and_its_defaults_are_the_engines() {
    let (_mem, backend) = seeded_memory();
    let mut host = support::runtime().host(backend, HostLimits::default());
    let d = host.component_defaults().expect("defaults");
    let engine = memdir::config::Defaults::get();
    assert_eq!(d.config.engine, memdir::config::Config::default());
    assert_eq!(d.config.bucket, "default");
    assert_eq!(d.keep_commits, engine.keep_commits);
    assert_eq!(d.max_input_bytes, engine.max_input_bytes as u64);
    assert_eq!(d.max_retries_cap, engine.max_retries_cap);

    host.configure(memdir_host::ToolConfig {
        engine: memdir::config::Config {
            secrets: memdir::SecretPolicy::Refuse,
            max_retries: 0,
            actor: "agent-7".into(),
            ..memdir::config::Config::default()
        },
        ..memdir_host::ToolConfig::default()
    });
    let refused = host
        .create(
            "/memories/k.md",
            "key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuv-AAAAAA",
        )
        .unwrap_err();
    assert_eq!(refused.kind, CallErrorKind::Tool(ErrorKind::Secret));
    assert_eq!(
        refused.to_string(),
        "Cannot write /memories/k.md: the text looks like it holds a credential (Anthropic API key). Memories must not store credentials; nothing was written."
    );
    // Everything seeded was written at time 0, long ago by the wall clock.
    let report = host.expire(60_000).expect("expire");
    assert_eq!(
        report,
        memdir::ExpireReport {
            removed: 2,
            bytes: 10
        }
    );
    assert_eq!(host.entries().expect("entries"), []);
}

/// `run_json` (the face Python raises from) hands the raw text to the engine and
/// answers as `execute_json` does, with the kind kept: the same text on success,
/// `Error: ` + its message on failure, for malformed and valid inputs alike.
#[test]
fn run_json_answers_as_execute_json_with_the_kind() {
    let inputs = [
        (VIEW_A, None),
        (
            r#"{"command":"view","path":"/memories/a.txt",}"#,
            Some(ErrorKind::Input),
        ),
        (r#"{"command":"view"}"#, Some(ErrorKind::Input)),
        (
            r#"{"command":"view","path":"/etc/passwd"}"#,
            Some(ErrorKind::Path),
        ),
        (
            r#"{"command":"create","path":"/memories/a.txt","file_text":"x"}"#,
            Some(ErrorKind::Refused),
        ),
        (
            r#"{"command":"create","path":"/memories/b.txt","file_text":"x"}"#,
            None,
        ),
    ];
    let (_, raw_backend) = seeded_memory();
    let (_, typed_backend) = seeded_memory();
    let mut raw = support::runtime().host(raw_backend, HostLimits::default());
    let mut typed = support::runtime().host(typed_backend, HostLimits::default());
    for (input, kind) in inputs {
        let want = raw.execute_json(input);
        let got = typed.run_json(input);
        match (&got, kind) {
            (Ok(text), None) => assert_eq!(
                (text.as_str(), false),
                (want.content.as_str(), want.is_error),
                "{input}"
            ),
            (Err(e), Some(k)) => {
                assert_eq!(e.kind, CallErrorKind::Tool(k), "{input}");
                assert_eq!(
                    (format!("Error: {e}"), true),
                    (want.content, want.is_error),
                    "{input}"
                );
            }
            _ => panic!("{input}: {got:?}, want kind {kind:?}"),
        }
    }
}
