//! The CLI as separate processes: one call per run, JSON lines on stdin, and two
//! processes writing one directory store at once without losing an update.

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use memdir_host::{Backend, DirBackend};
use serde_json::{Value, json};

use crate::support::{self, TempDir};

fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_memdir-host"));
    c.env("MEMDIR_COMPONENT", support::component())
        .env("MEMDIR_CACHE", support::cache_dir());
    c
}

fn exec(store: &TempDir, input: &str) -> Output {
    cli()
        .arg("exec")
        .arg("--store")
        .arg(&store.0)
        .arg(input)
        .output()
        .expect("running memdir-host")
}

fn result(line: &str) -> (String, bool) {
    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    (
        v["content"].as_str().expect("content").to_string(),
        v["is_error"].as_bool().expect("is_error"),
    )
}

#[test]
fn one_call_per_run_prints_one_result_line_and_exits_by_is_error() {
    let store = TempDir::new("cli");
    let out = exec(
        &store,
        r#"{"command":"create","path":"/memories/a.txt","file_text":"hi"}"#,
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"content\":\"File created successfully at: /memories/a.txt\",\"is_error\":false}\n"
    );
    assert_eq!(out.status.code(), Some(0));

    let out = exec(
        &store,
        r#"{"command":"create","path":"/memories/a.txt","file_text":"again"}"#,
    );
    assert_eq!(
        result(String::from_utf8_lossy(&out.stdout).trim_end()),
        ("Error: File /memories/a.txt already exists".into(), true)
    );
    assert_eq!(out.status.code(), Some(1));

    // The store persists between processes.
    let out = exec(&store, r#"{"command":"view","path":"/memories/a.txt"}"#);
    assert_eq!(
        result(String::from_utf8_lossy(&out.stdout).trim_end()).0,
        "Here's the content of /memories/a.txt with line numbers:\n     1\thi"
    );
}

#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let store = TempDir::new("cli-utf8");
    let arg = std::ffi::OsStr::from_bytes(
        b"{\"command\":\"create\",\"path\":\"/memories/\xff\",\"file_text\":\"\"}",
    );
    let out = cli()
        .arg("exec")
        .arg("--store")
        .arg(&store.0)
        .arg(arg)
        .output()
        .expect("running memdir-host");
    assert_eq!(
        result(String::from_utf8_lossy(&out.stdout).trim_end()),
        ("Error: Invalid tool input: not valid UTF-8".into(), true)
    );
    assert_eq!(out.status.code(), Some(1));
    let backend: Arc<dyn Backend> = Arc::new(DirBackend::open(&store.0).expect("store"));
    assert!(support::raw(&backend).is_empty(), "nothing was written");
}

#[test]
fn json_lines_on_stdin_get_one_result_line_each_even_a_100_mib_line() {
    let store = TempDir::new("ndjson");
    let mut child = cli()
        .arg("exec")
        .arg("--store")
        .arg(&store.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("starting memdir-host");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let mut w = || -> std::io::Result<()> {
            stdin.write_all(
                b"{\"command\":\"create\",\"path\":\"/memories/n.txt\",\"file_text\":\"one\"}\n",
            )?;
            stdin.write_all(b"\n")?;
            stdin.write_all(b"not json\r\n")?;
            stdin.write_all(b"{\"command\":\"view\",\"path\":\"/memories/\xfe\"}\n")?;
            // 100 MiB on one line: refused while streaming, never held whole.
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..100 {
                stdin.write_all(&chunk)?;
            }
            stdin.write_all(b"\n")?;
            stdin.write_all(b"{\"command\":\"view\",\"path\":\"/memories/n.txt\"}")?;
            Ok(())
        };
        w().expect("writing to memdir-host");
    });
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("reading memdir-host");
    writer.join().expect("writer");
    // Every line ran; some answered with errors, so the status is 1.
    assert_eq!(child.wait().expect("memdir-host exits").code(), Some(1));
    let got: Vec<(String, bool)> = out.lines().map(result).collect();
    assert_eq!(
        got,
        [
            (
                "File created successfully at: /memories/n.txt".to_string(),
                false
            ),
            (
                "Error: Invalid tool input: not valid JSON".to_string(),
                true
            ),
            (
                "Error: Invalid tool input: not valid UTF-8".to_string(),
                true
            ),
            (
                "Error: Invalid tool input: the input is over the limit of 16,777,216 bytes"
                    .to_string(),
                true
            ),
            (
                "Here's the content of /memories/n.txt with line numbers:\n     1\tone".to_string(),
                false
            ),
        ]
    );
}

/// Each process inserts its own lines into one shared file and creates its own
/// files, all at once; every insert and every file must survive.
#[test]
fn two_processes_writing_one_disk_store_lose_no_update() {
    const N: usize = 60;
    let store = TempDir::new("race");
    let out = exec(
        &store,
        r#"{"command":"create","path":"/memories/shared.txt","file_text":"start"}"#,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let children: Vec<_> = (0..2)
        .map(|p| {
            let mut child = cli()
                .arg("exec")
                .arg("--store")
                .arg(&store.0)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("starting memdir-host");
            let mut input = String::new();
            for i in 0..N {
                let ins = json!({"command": "insert", "path": "/memories/shared.txt", "insert_line": 1, "insert_text": format!("p{p}-{i}")});
                let create = json!({"command": "create", "path": format!("/memories/p{p}/f{i}.txt"), "file_text": format!("{p} {i}")});
                input.push_str(&format!("{ins}\n{create}\n"));
            }
            child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("feeding memdir-host");
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("memdir-host exits");
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        let results: Vec<_> = text.lines().map(result).collect();
        assert_eq!(results.len(), 2 * N);
        for (content, is_error) in results {
            assert!(!is_error, "a write failed: {content}");
        }
    }

    let backend: Arc<dyn Backend> = Arc::new(DirBackend::open(&store.0).expect("store"));
    let tree = support::tree(&backend);
    let shared = tree
        .get("/memories/shared.txt")
        .cloned()
        .flatten()
        .expect("the shared file");
    let mut lines: Vec<&str> = shared.split('\n').collect();
    assert_eq!(lines.first(), Some(&"start"));
    lines.remove(0);
    lines.sort_unstable();
    let mut want: Vec<String> = (0..2)
        .flat_map(|p| (0..N).map(move |i| format!("p{p}-{i}")))
        .collect();
    want.sort_unstable();
    assert_eq!(
        lines, want,
        "every insert of both processes is in the file exactly once"
    );
    for p in 0..2 {
        for i in 0..N {
            let path = format!("/memories/p{p}/f{i}.txt");
            assert_eq!(tree.get(&path), Some(&Some(format!("{p} {i}"))), "{path}");
        }
    }
}

/// Two component instances in two threads over one store of each kind, inserting
/// into one file at once: no update is lost and no command gives up.
#[test]
fn two_instances_in_two_threads_lose_no_update() {
    const N: usize = 40;
    for kind in support::KINDS {
        let (backend, _dir) = support::fresh(kind);
        let start = memdir::Entry {
            path: "/memories/shared.txt".into(),
            content: Some("start".into()),
        };
        support::seed(&backend, memdir::config::Config::default(), &[start]);
        let threads: Vec<_> = (0..2)
            .map(|t| {
                let mut host = support::runtime().host(backend.clone(), memdir_host::HostLimits::default());
                std::thread::spawn(move || {
                    for i in 0..N {
                        let ins = json!({"command": "insert", "path": "/memories/shared.txt", "insert_line": 1, "insert_text": format!("t{t}-{i}")});
                        let r = host.execute_json(&ins.to_string());
                        assert!(!r.is_error, "{kind:?}: {}", r.content);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("a writer thread failed");
        }
        let tree = support::tree(&backend);
        let shared = tree
            .get("/memories/shared.txt")
            .cloned()
            .flatten()
            .expect("the shared file");
        let mut lines: Vec<&str> = shared.split('\n').skip(1).collect();
        lines.sort_unstable();
        let mut want: Vec<String> = (0..2)
            .flat_map(|t| (0..N).map(move |i| format!("t{t}-{i}")))
            .collect();
        want.sort_unstable();
        assert_eq!(
            lines, want,
            "{kind:?}: every insert of both instances is there once"
        );
    }
}

#[test]
fn export_and_gc_from_the_command_line() {
    let store = TempDir::new("cli-gc");
    exec(
        &store,
        r#"{"command":"create","path":"/memories/a/b.md","file_text":"x"}"#,
    );
    exec(
        &store,
        r#"{"command":"str_replace","path":"/memories/a/b.md","old_str":"x","new_str":"y"}"#,
    );
    let run = |cmd: &str, extra: &[&str]| {
        let out = cli()
            .arg(cmd)
            .arg("--store")
            .arg(&store.0)
            .args(extra)
            .output()
            .expect("running memdir-host");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(
        run("export", &[]),
        "[{\"path\":\"/memories/a\"},{\"path\":\"/memories/a/b.md\",\"content\":\"y\"}]\n"
    );
    // Keeping no older commit, the create's commit, tree nodes and blob "x" are
    // garbage: the first pass marks them, the second deletes them.
    let first: Value = serde_json::from_str(&run("gc", &["--keep", "0"])).expect("a report");
    assert_eq!(first["deleted"], 0);
    assert!(
        first["pending"].as_u64().is_some_and(|n| n > 0),
        "nothing to collect: {first}"
    );
    let second: Value = serde_json::from_str(&run("gc", &["--keep", "0"])).expect("a report");
    assert_eq!(second["deleted"], first["pending"]);
    assert_eq!(second["pending"], 0);
    assert_eq!(
        run("export", &[]),
        "[{\"path\":\"/memories/a\"},{\"path\":\"/memories/a/b.md\",\"content\":\"y\"}]\n"
    );
}

#[test]
fn reads_run_outside_the_turn_and_a_write_waits_for_it() {
    let store = TempDir::new("turn");
    let out = exec(
        &store,
        r#"{"command":"create","path":"/memories/a.md","file_text":"one\n"}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    // Another process holds the turn (a fresh lock is not stale for 30 s).
    let turn = store.0.join(".lock-turn");
    std::fs::write(&turn, "1 another-host other-process").expect("holding the turn");

    // A read would wait up to 10 s for the turn if it took it.
    let (tx, rx) = std::sync::mpsc::channel();
    let dir = store.0.clone();
    std::thread::spawn(move || {
        let out = cli()
            .arg("exec")
            .arg("--store")
            .arg(&dir)
            .arg(r#"{"command":"view","path":"/memories/a.md"}"#)
            .output();
        let _ = tx.send(out);
    });
    let view = rx
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("the view waited for the turn")
        .expect("running memdir-host");
    assert_eq!(
        result(String::from_utf8_lossy(&view.stdout).trim_end()),
        (
            "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\t".into(),
            false
        )
    );

    let mut write = cli()
        .arg("exec")
        .arg("--store")
        .arg(&store.0)
        .arg(r#"{"command":"create","path":"/memories/b.md","file_text":"two\n"}"#)
        .stdout(Stdio::piped())
        .spawn()
        .expect("running memdir-host");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        write.try_wait().expect("polling the write").is_none(),
        "the write ran inside another process's turn"
    );
    std::fs::remove_file(&turn).expect("giving the turn back");
    let out = write.wait_with_output().expect("the write");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"content\":\"File created successfully at: /memories/b.md\",\"is_error\":false}\n"
    );
}
