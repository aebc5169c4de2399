//! One store directory, two tools: the Node CLI (`node bin/memdir.js`, built by
//! `node scripts/build.mjs`, which scripts/test.d/30-host.sh runs first) and
//! memdir-host read and write the same `memdir-store` directory, at the same time
//! too; the old host layout is converted once; a directory the host cannot open is
//! refused with its problem, exit status 2 and nothing written; and a lock wait
//! ends at its deadline whatever sits at the lock's path.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memdir::StoreError;
use memdir_host::{Backend, DirBackend};
use serde_json::{Value, json};

use crate::support::{self, TempDir};

fn host() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_memdir-host"));
    c.env("MEMDIR_COMPONENT", support::component())
        .env("MEMDIR_CACHE", support::cache_dir());
    c
}

/// The Node CLI on the package built from this tree.
fn node_cli() -> Command {
    let root = support::workspace();
    assert!(
        root.join("dist/memdir_wasm_bg.wasm").is_file(),
        "the npm package is not built: run `npm ci` and `node scripts/build.mjs` (scripts/test.d/30-host.sh does)"
    );
    let mut c = Command::new("node");
    c.arg(root.join("bin/memdir.js"));
    c
}

fn text(out: &Output) -> (String, String, Option<i32>) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

fn host_exec(store: &Path, input: &str) -> Output {
    host()
        .arg("exec")
        .arg("--store")
        .arg(store)
        .arg(input)
        .output()
        .expect("running memdir-host")
}

fn content(out: &Output) -> String {
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{:?}: {e}", text(out)));
    v["content"].as_str().expect("content").to_owned()
}

#[test]
fn the_cli_writes_and_the_host_reads_and_the_reverse() {
    let store = TempDir::new("cross");
    let out = node_cli()
        .arg("--store")
        .arg(&store.0)
        .args(["create", "/memories/from-node.md", "written by node"])
        .output()
        .expect("node");
    assert_eq!(
        text(&out),
        (
            "File created successfully at: /memories/from-node.md\n".into(),
            String::new(),
            Some(0)
        )
    );
    assert_eq!(
        std::fs::read_to_string(store.0.join("memdir-store")).expect("the marker"),
        "memdir-store 1\n"
    );

    let out = host_exec(
        &store.0,
        r#"{"command":"view","path":"/memories/from-node.md"}"#,
    );
    assert_eq!(
        content(&out),
        "Here's the content of /memories/from-node.md with line numbers:\n     1\twritten by node"
    );
    let out = host_exec(
        &store.0,
        r#"{"command":"create","path":"/memories/from-host.md","file_text":"written by the host"}"#,
    );
    assert_eq!(
        content(&out),
        "File created successfully at: /memories/from-host.md"
    );

    let out = node_cli()
        .arg("--store")
        .arg(&store.0)
        .args(["view", "/memories/from-host.md"])
        .output()
        .expect("node");
    assert_eq!(
        text(&out).0,
        "Here's the content of /memories/from-host.md with line numbers:\n     1\twritten by the host\n"
    );
    let out = node_cli()
        .arg("--store")
        .arg(&store.0)
        .args(["view", "/memories"])
        .output()
        .expect("node");
    assert!(
        text(&out).0.contains("/memories/from-node.md\n")
            && text(&out).0.contains("/memories/from-host.md\n"),
        "{:?}",
        text(&out)
    );
}

/// An encrypted store directory is one format for both tools: the Node CLI writes
/// it with a key file and the host reads it with the same file, and the reverse;
/// without the key each refuses it in the engine's words.
#[test]
fn one_encrypted_store_directory_opens_in_both_tools_with_one_key_file() {
    let store = TempDir::new("cross-sealed");
    let keys = TempDir::new("cross-sealed-keys");
    let key = keys.0.join("k.hex");
    std::fs::write(&key, format!("{}\n", "5a".repeat(32))).expect("a key file");
    let out = node_cli()
        .arg("--store")
        .arg(&store.0)
        .arg("--encryption-key-file")
        .arg(&key)
        .args([
            "create",
            "/memories/sealed-node.md",
            "petrel written by node",
        ])
        .output()
        .expect("node");
    assert_eq!(text(&out).2, Some(0), "{:?}", text(&out));
    let host_with_key = |input: &str| {
        host()
            .arg("exec")
            .arg("--store")
            .arg(&store.0)
            .arg("--encryption-key-file")
            .arg(&key)
            .arg(input)
            .output()
            .expect("running memdir-host")
    };
    let out = host_with_key(r#"{"command":"view","path":"/memories/sealed-node.md"}"#);
    assert_eq!(
        content(&out),
        "Here's the content of /memories/sealed-node.md with line numbers:\n     1\tpetrel written by node"
    );
    let out = host_with_key(
        r#"{"command":"create","path":"/memories/sealed-host.md","file_text":"petrel written by the host"}"#,
    );
    assert_eq!(
        content(&out),
        "File created successfully at: /memories/sealed-host.md"
    );
    let out = node_cli()
        .arg("--store")
        .arg(&store.0)
        .arg("--encryption-key-file")
        .arg(&key)
        .args(["view", "/memories/sealed-host.md"])
        .output()
        .expect("node");
    assert_eq!(
        text(&out).0,
        "Here's the content of /memories/sealed-host.md with line numbers:\n     1\tpetrel written by the host\n"
    );
    let mut bytes = Vec::new();
    for e in std::fs::read_dir(&store.0).expect("read_dir") {
        let p = e.expect("entry").path();
        if p.is_file() {
            bytes.extend(std::fs::read(&p).expect("read"));
        }
    }
    assert!(!bytes.windows(6).any(|w| w == b"petrel"));
    let out = host_exec(&store.0, r#"{"command":"view","path":"/memories"}"#);
    let refusal = content(&out);
    assert!(
        refusal.starts_with("Error: this store is encrypted with key id k-")
            && refusal.ends_with(": open it with that key"),
        "{refusal}"
    );
}

/// A Node CLI process and a host process each insert N lines into one file at the
/// same time: every line is there exactly once, no command gives up, and the two
/// take turns through the shared turn lock (their lines interleave in the file).
#[test]
fn a_cli_process_and_a_host_process_writing_one_directory_lose_no_update() {
    const N: usize = 60;
    let store = TempDir::new("cross-race");
    let out = host_exec(
        &store.0,
        r#"{"command":"create","path":"/memories/shared.txt","file_text":"start"}"#,
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let lines = |who: &str| -> String {
        (0..N)
            .map(|i| json!({"command": "insert", "path": "/memories/shared.txt", "insert_line": 1, "insert_text": format!("{who}-{i}")}).to_string() + "\n")
            .collect()
    };
    let node = node_cli()
        .arg("--store")
        .arg(&store.0)
        .arg("exec")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node");
    let hosted = host()
        .arg("exec")
        .arg("--store")
        .arg(&store.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("memdir-host");
    // Each process answers a first command before either gets its inserts, which
    // then arrive a few at a time, so the two streams overlap whatever each one's
    // start-up costs.
    let ready = Arc::new(std::sync::Barrier::new(2));
    let writers: Vec<_> = [(node, "node"), (hosted, "host")]
        .into_iter()
        .map(|(mut child, who)| {
            let ready = ready.clone();
            let inserts = lines(who);
            std::thread::spawn(move || {
                use std::io::BufRead;
                let mut stdin = child.stdin.take().expect("stdin");
                let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
                stdin
                    .write_all(b"{\"command\":\"view\",\"path\":\"/memories\"}\n")
                    .expect("writing");
                let mut first = String::new();
                stdout.read_line(&mut first).expect("the first answer");
                ready.wait();
                for line in inserts.lines() {
                    stdin
                        .write_all(format!("{line}\n").as_bytes())
                        .expect("writing");
                    std::thread::sleep(Duration::from_millis(3));
                }
                drop(stdin);
                let mut rest = String::new();
                std::io::Read::read_to_string(&mut stdout, &mut rest).expect("reading");
                assert!(child.wait().expect("exits").success(), "{who}");
                rest
            })
        })
        .collect();
    for w in writers {
        let out = w.join().expect("a writer");
        let results: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("a result line"))
            .collect();
        assert_eq!(results.len(), N);
        for r in results {
            assert_eq!(r["is_error"], false, "a write failed: {r}");
        }
    }
    let backend: Arc<dyn Backend> = Arc::new(DirBackend::open(&store.0).expect("store"));
    let shared = support::tree(&backend)
        .get("/memories/shared.txt")
        .cloned()
        .flatten()
        .expect("the shared file");
    let got: Vec<&str> = shared.split('\n').collect();
    assert_eq!(got.first(), Some(&"start"));
    let got = &got[1..];
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for l in got {
        *counts.entry(l).or_default() += 1;
    }
    let want: BTreeMap<String, usize> = ["node", "host"]
        .iter()
        .flat_map(|w| (0..N).map(move |i| (format!("{w}-{i}"), 1)))
        .collect();
    assert_eq!(
        counts
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect::<BTreeMap<_, _>>(),
        want,
        "every insert exactly once"
    );
    let switches = got
        .windows(2)
        .filter(|w| w[0].split('-').next() != w[1].split('-').next())
        .count();
    // Taking turns, they alternate (119 switches of 119 when measured); without the
    // turn, the faster one wrote nearly all its lines in a row (1 or 2 switches).
    assert!(
        switches >= N,
        "the two processes did not take turns ({switches} switches)"
    );
}

/// The old host layout (raw values in `keys/`, `tmp/`, `lock`, `turn`), made from
/// a store's packs: the host converts it once, and the Node CLI then reads it.
#[test]
fn an_old_host_store_is_converted_once_and_both_tools_read_it() {
    let store = TempDir::new("old-host");
    let out = host_exec(
        &store.0,
        r#"{"command":"create","path":"/memories/old.md","file_text":"from before"}"#,
    );
    assert!(out.status.success());
    let old = TempDir::new("old-host-layout");
    std::fs::create_dir_all(old.0.join("keys")).expect("keys/");
    std::fs::create_dir_all(old.0.join("tmp")).expect("tmp/");
    std::fs::write(old.0.join("lock"), "").expect("lock");
    std::fs::write(old.0.join("turn"), "").expect("turn");
    for entry in std::fs::read_dir(&store.0).expect("the store") {
        let name = entry
            .expect("an entry")
            .file_name()
            .into_string()
            .expect("UTF-8");
        let Some(key) = memdir::store_dir::key_of(&name) else {
            continue;
        };
        let pack = std::fs::read(store.0.join(&name)).expect("a pack");
        let value = memdir::store_dir::pack_value(&pack, &key).expect("a value");
        std::fs::write(old.0.join("keys").join(&name), value).expect("an old value");
    }
    // Node does not convert it (it has no flock to keep an old host out): it says how.
    let before = listing(&old.0);
    let out = node_cli()
        .arg("--store")
        .arg(&old.0)
        .args(["view", "/memories"])
        .output()
        .expect("node");
    assert_eq!(
        text(&out),
        (
            String::new(),
            format!(
                "memdir: {}: the directory is a memdir-host store of the old layout (keys/); open it once with \
                 memdir-host (for example `memdir-host export --store DIR`) to convert it\n",
                old.0.display()
            ),
            Some(2)
        )
    );
    assert_eq!(listing(&old.0), before, "nothing written");

    let out = host()
        .arg("export")
        .arg("--store")
        .arg(&old.0)
        .output()
        .expect("memdir-host");
    assert_eq!(
        text(&out).0,
        "[{\"path\":\"/memories/old.md\",\"content\":\"from before\"}]\n"
    );
    let mut names: Vec<String> = std::fs::read_dir(&old.0)
        .expect("read")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf8"))
        .collect();
    names.sort();
    let mut want: Vec<String> = std::fs::read_dir(&store.0)
        .expect("read")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf8"))
        .collect();
    want.sort();
    assert_eq!(
        names, want,
        "the old layout is gone, the new one in its place"
    );
    let out = node_cli()
        .arg("--store")
        .arg(&old.0)
        .args(["view", "/memories/old.md"])
        .output()
        .expect("node");
    assert_eq!(
        text(&out).0,
        "Here's the content of /memories/old.md with line numbers:\n     1\tfrom before\n"
    );
}

/// Every entry under `p` (never following a link): kind, mode, size, bytes.
fn listing(p: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut todo = vec![p.to_path_buf()];
    while let Some(at) = todo.pop() {
        let Ok(m) = std::fs::symlink_metadata(&at) else {
            out.insert(at, "absent".into());
            continue;
        };
        let me = format!("{:o} {} {}", m.mode(), m.len(), m.mtime_nsec());
        let entry = if m.is_symlink() {
            format!("link {me} {:?}", std::fs::read_link(&at).ok())
        } else if m.is_file() {
            format!("file {me} {:?}", std::fs::read(&at).ok())
        } else if m.is_dir() {
            if let Ok(rd) = std::fs::read_dir(&at) {
                todo.extend(rd.flatten().map(|e| e.path()));
            }
            format!("dir {me}")
        } else {
            format!("other {me}")
        };
        out.insert(at, entry);
    }
    out
}

fn as_root() -> bool {
    rustix::process::getuid().is_root()
}

/// True if user 65534 can run `bin` (its help answers with success).
fn unprivileged_can_run(bin: &str) -> bool {
    Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            bin,
            "--help",
        ])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_directory_the_host_cannot_open_is_refused_with_nothing_written() {
    let base = TempDir::new("refused");
    std::fs::set_permissions(&base.0, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let good = base.0.join("good");
    assert!(
        host_exec(
            &good,
            r#"{"command":"create","path":"/memories/a","file_text":"a"}"#
        )
        .status
        .success()
    );
    let copy = |to: &Path, marker: &str| {
        std::fs::create_dir(to).expect("mkdir");
        for e in std::fs::read_dir(&good).expect("read") {
            let e = e.expect("entry");
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
        std::fs::write(to.join("memdir-store"), marker).expect("marker");
    };
    type Make<'a> = Box<dyn Fn(&Path) + 'a>;
    let cases: Vec<(&str, Make, &str)> = vec![
        (
            "file",
            Box::new(|d| std::fs::write(d, "x").expect("file")),
            "the store path is not a directory",
        ),
        (
            "symlink",
            Box::new(|d| std::os::unix::fs::symlink(&good, d).expect("symlink")),
            "the store path is a symbolic link, which memdir does not follow; name the directory itself",
        ),
        (
            "foreign",
            Box::new(|d| {
                std::fs::create_dir(d).expect("mkdir");
                std::fs::write(d.join("notes.txt"), "mine").expect("write");
            }),
            "the directory is not a memdir store: it holds files memdir did not write; name an empty or new directory",
        ),
        (
            "damaged",
            Box::new(|d| copy(d, "memdir-store\n")),
            "the store's format marker (memdir-store) is damaged",
        ),
        (
            "other",
            Box::new(|d| copy(d, "some-other-tool 1\n")),
            "the store's format marker (memdir-store) names a format memdir does not know",
        ),
        (
            "newer",
            Box::new(|d| copy(d, "memdir-store 2\n")),
            "the store is memdir-store version 2, newer than this memdir reads (version 1); upgrade memdir",
        ),
    ];
    for (name, make, problem) in cases {
        let d = base.0.join(name);
        make(&d);
        let before = listing(&base.0);
        for cmd in [
            &["exec", "--store"][..],
            &["export", "--store"],
            &["gc", "--store"],
        ] {
            let mut c = host();
            c.args(cmd).arg(&d);
            if cmd[0] == "exec" {
                c.arg(r#"{"command":"create","path":"/memories/x","file_text":"x"}"#);
            }
            let out = c.output().expect("memdir-host");
            assert_eq!(
                text(&out),
                (
                    String::new(),
                    format!("memdir-host: {}: {problem}\n", d.display()),
                    Some(2)
                ),
                "{name}"
            );
        }
        assert_eq!(listing(&base.0), before, "{name}: nothing written");
    }

    // Unreadable: as an unprivileged user when the suite runs as root, who must be
    // able to run the binary at all (not so in a checkout under a 0700 directory,
    // such as mktemp -d makes: then this part cannot be run).
    if as_root() && !unprivileged_can_run(env!("CARGO_BIN_EXE_memdir-host")) {
        eprintln!("skipped: the unprivileged user (65534) cannot run this checkout's memdir-host");
        return;
    }
    let d = base.0.join("unreadable");
    std::fs::create_dir(&d).expect("mkdir");
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let before = listing(&base.0);
    let mut c = if as_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_memdir-host"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_memdir-host"))
    };
    let out = c
        .args(["exec", "--no-cache", "--store"])
        .arg(&d)
        .arg("{}")
        .output()
        .expect("memdir-host");
    assert_eq!(
        text(&out),
        (
            String::new(),
            format!(
                "memdir-host: {}: the store directory cannot be read\n",
                d.display()
            ),
            Some(2)
        )
    );
    assert_eq!(listing(&base.0), before, "unreadable: nothing written");
}

/// Sets a path's own times (a symlink's, not its target's) to long ago.
fn make_old(p: &Path) {
    use rustix::fs::{AtFlags, CWD, Timespec, Timestamps, utimensat};
    let old = Timespec {
        tv_sec: 1_000_000_000,
        tv_nsec: 0,
    };
    utimensat(
        CWD,
        p,
        &Timestamps {
            last_access: old,
            last_modification: old,
        },
        AtFlags::SYMLINK_NOFOLLOW,
    )
    .expect("utimensat");
}

#[test]
fn a_lock_wait_on_the_host_always_ends() {
    type Plant = Box<dyn Fn(&Path) -> Option<std::os::unix::net::UnixListener>>;
    let cases: Vec<(&str, Plant)> = vec![
        (
            "a dangling symlink",
            Box::new(|p| {
                std::os::unix::fs::symlink(p.with_file_name("nowhere"), p).expect("symlink");
                None
            }),
        ),
        (
            "a directory",
            Box::new(|p| {
                std::fs::create_dir(p).expect("mkdir");
                None
            }),
        ),
        (
            "an unreadable file",
            Box::new(|p| {
                std::fs::write(p, "").expect("write");
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o000)).expect("chmod");
                None
            }),
        ),
        (
            "a socket (unopenable even by root)",
            Box::new(|p| Some(std::os::unix::net::UnixListener::bind(p).expect("bind"))),
        ),
    ];
    for (what, plant) in cases {
        let dir = TempDir::new("locks");
        let store = DirBackend::open(&dir.0)
            .expect("open")
            .with_lock_wait(Duration::from_millis(400));
        assert_eq!(store.compare_and_swap("head", None, b"1"), Ok(true));
        let lock = dir.0.join(".lock-khead");
        let _listener = plant(&lock);
        let started = Instant::now();
        assert_eq!(
            store.compare_and_swap("head", Some(b"1"), b"2"),
            Err(StoreError::Unavailable),
            "{what}"
        );
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(400) && took < Duration::from_secs(3),
            "{what}: ended in {took:?}"
        );
        // Old enough, it is broken, and the write goes through.
        make_old(&lock);
        assert_eq!(
            store.compare_and_swap("head", Some(b"1"), b"2"),
            Ok(true),
            "{what}"
        );
        assert_eq!(store.get("head"), Ok(Some(b"2".to_vec())));
    }
}
