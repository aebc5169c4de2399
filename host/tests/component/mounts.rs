//! Several stores as one memory in the host: an instance per mount, the routing and
//! refusals of `memdir::mounts` (the same texts as the engine's tests/all/mounts.rs), a
//! read-only store's directory left byte for byte as it was, and the CLI's flags.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use memdir::MountError;
use memdir::config::Config;
use memdir::mounts::{Access, Mount};
use memdir::{Entry, ErrorKind};
use memdir_host::{Backend, CallErrorKind, DirBackend, Fault, HostLimits, MountedHost, ToolConfig};
use serde_json::json;

use crate::support::{self, TempDir};

fn mount(name: &str, access: Access) -> Mount {
    Mount {
        name: name.into(),
        access,
        description: String::new(),
        instructions: String::new(),
    }
}

/// Every file under `dir` (paths relative to it) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A team store with `files` (path: content), written alone (at /memories) before
/// it is mounted.
fn team_store(dir: &Path, files: &serde_json::Value) -> Arc<dyn Backend> {
    let team: Arc<dyn Backend> = Arc::new(DirBackend::open(dir).unwrap());
    let entries: Vec<Entry> = files
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, text)| Entry {
            path: path.clone(),
            content: Some(text.as_str().unwrap().into()),
        })
        .collect();
    support::seed(&team, Config::default(), &entries);
    team
}

fn run(m: &MountedHost, input: serde_json::Value) -> (String, bool) {
    let r = m.execute_json(&input.to_string());
    (r.content, r.is_error)
}

/// The shared scenario (tests/conformance/mounts.json), which the engine's and the
/// Node tests run too.
#[test]
fn a_read_only_store_beside_a_writable_one() {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/conformance/mounts.json")).unwrap();
    let (team_dir, me_dir) = (TempDir::new("team"), TempDir::new("me"));
    let team = team_store(&team_dir.0, &data["mounts"][0]["files"]);
    let me: Arc<dyn Backend> = Arc::new(DirBackend::open(&me_dir.0).unwrap());
    let team_before = snapshot(&team_dir.0);
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
    assert_eq!(
        memory.instructions(),
        data["instructions"].as_str().unwrap()
    );
    for step in data["steps"].as_array().unwrap() {
        let want = (
            step[1].as_str().unwrap().to_string(),
            step[2].as_bool().unwrap(),
        );
        assert_eq!(run(&memory, step[0].clone()), want, "{}", step[0]);
    }
    // The typed face keeps the kind.
    let e = memory
        .run(memdir::Command::Delete {
            path: "/memories/team/conventions.md".into(),
        })
        .unwrap_err();
    assert_eq!(e.kind, CallErrorKind::Tool(ErrorKind::Refused));

    // The writable store holds the file under its own path; the read-only one is
    // byte for byte what it was (no lock or temporary file left either).
    let tree = support::tree(&me);
    assert_eq!(tree.get("/memories/b.md"), Some(&Some("mine".to_string())));
    assert_eq!(snapshot(&team_dir.0), team_before);
}

#[test]
fn one_store_alone_at_memories() {
    let (backend, _dir) = support::fresh(support::Kind::Memory);
    let memory = MountedHost::new(
        support::runtime(),
        vec![(mount("", Access::ReadWrite), backend.clone())],
        &ToolConfig::default(),
        HostLimits::default(),
    )
    .unwrap();
    assert_eq!(
        run(
            &memory,
            json!({"command": "create", "path": "/memories/a.md", "file_text": "x"})
        ),
        ("File created successfully at: /memories/a.md".into(), false)
    );
    assert_eq!(
        support::tree(&backend).get("/memories/a.md"),
        Some(&Some("x".to_string()))
    );
    assert_eq!(
        memory.instructions(),
        "Your memory directory is /memories:\n- /memories (read-write)\n"
    );
}

#[test]
fn bad_mount_sets_are_refused_before_any_instance() {
    let stores = |names: &[&str]| -> Vec<(Mount, Arc<dyn Backend>)> {
        names
            .iter()
            .map(|n| {
                let b: Arc<dyn Backend> = Arc::new(memdir_host::MemoryBackend::new());
                (mount(n, Access::ReadWrite), b)
            })
            .collect()
    };
    let open = |names: &[&str]| {
        MountedHost::new(
            support::runtime(),
            stores(names),
            &ToolConfig::default(),
            HostLimits::default(),
        )
        .err()
    };
    let nine: Vec<String> = (0..9).map(|i| format!("s{i}")).collect();
    let nine: Vec<&str> = nine.iter().map(String::as_str).collect();
    assert_eq!(open(&nine), Some(MountError::Count(9)));
    assert_eq!(open(&["a", "a"]), Some(MountError::Twice("a".into())));
    assert_eq!(open(&[".."]), Some(MountError::BadName("..".into())));
    assert_eq!(open(&["", "a"]), Some(MountError::RootBeside));

    // A host configured with a bad name directly: the component refuses it, so no
    // instance starts and nothing is written.
    let (backend, _dir) = support::fresh(support::Kind::Memory);
    let mut host = support::runtime().host(backend.clone(), HostLimits::default());
    host.configure(ToolConfig {
        engine: Config {
            mount: "a/b".into(),
            ..Config::default()
        },
        ..ToolConfig::default()
    });
    let e = host.create("/memories/a/b/x.md", "x").unwrap_err();
    assert_eq!(e.kind, CallErrorKind::Fault(Fault::Start));
    assert!(support::raw(&backend).is_empty());
}

// ------------------------------------------------------------------------ the CLI

fn cli() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_memdir-host"));
    c.env("MEMDIR_COMPONENT", support::component())
        .env("MEMDIR_CACHE", support::cache_dir());
    c
}

fn text(out: &[u8]) -> String {
    String::from_utf8(out.to_vec()).unwrap()
}

fn line(out: &Output) -> (String, bool) {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        v["content"].as_str().unwrap().to_string(),
        v["is_error"].as_bool().unwrap(),
    )
}

#[test]
fn the_cli_mounts_store_directories() {
    let (team_dir, me_dir) = (TempDir::new("cli-team"), TempDir::new("cli-me"));
    team_store(
        &team_dir.0,
        &json!({"/memories/conventions.md": "Use ISO dates.\n"}),
    );
    let team_before = snapshot(&team_dir.0);
    let exec = |input: serde_json::Value| {
        let mut team = std::ffi::OsString::from("team=");
        team.push(&team_dir.0);
        team.push(":ro");
        let mut me = std::ffi::OsString::from("me=");
        me.push(&me_dir.0);
        cli()
            .args(["exec", "--mount"])
            .arg(team)
            .arg("--mount")
            .arg(me)
            .arg(input.to_string())
            .output()
            .unwrap()
    };
    let out = exec(json!({"command": "create", "path": "/memories/me/a.md", "file_text": "hi"}));
    assert_eq!(
        line(&out),
        (
            "File created successfully at: /memories/me/a.md".into(),
            false
        )
    );
    assert_eq!(out.status.code(), Some(0));
    let out = exec(json!({"command": "view", "path": "/memories"}));
    assert_eq!(
        line(&out),
        (
            "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n17B\t/memories\n2B\t/memories/me/\n2B\t/memories/me/a.md\n15B\t/memories/team/\n15B\t/memories/team/conventions.md".into(),
            false
        )
    );
    let out = exec(json!({"command": "create", "path": "/memories/team/a.md", "file_text": "hi"}));
    assert_eq!(
        line(&out),
        ("Error: Cannot create /memories/team/a.md: the memory store mounted at /memories/team is read-only".into(), true)
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(snapshot(&team_dir.0), team_before);

    // One store alone at /memories: the directory as `--store` uses it.
    let one = TempDir::new("cli-one");
    let mut flag = std::ffi::OsString::from("=");
    flag.push(&one.0);
    let out = cli()
        .args(["exec", "--mount"])
        .arg(flag)
        .arg(r#"{"command":"create","path":"/memories/x.md","file_text":"x"}"#)
        .output()
        .unwrap();
    assert_eq!(
        line(&out),
        ("File created successfully at: /memories/x.md".into(), false)
    );
    let out = cli()
        .args(["exec", "--store"])
        .arg(&one.0)
        .arg(r#"{"command":"view","path":"/memories/x.md"}"#)
        .output()
        .unwrap();
    assert_eq!(
        line(&out).0,
        "Here's the content of /memories/x.md with line numbers:\n     1\tx"
    );
}

#[test]
fn the_cli_prints_the_system_prompt_text() {
    let out = cli()
        .args([
            "instructions",
            "--mount",
            "team=/nonexistent/team:ro",
            "--mount",
            "me=/nonexistent/me",
            "--mount-description",
            "team=Team conventions.",
            "--mount-instructions",
            "team=Read before any task.",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "Your memory directory is /memories. It holds 2 memory stores:\n- /memories/team (read-only): Team conventions.\n  Read before any task.\n- /memories/me (read-write)\nA read-only store can be viewed but not changed.\n"
    );
    // Nothing was opened to say so.
    assert!(!Path::new("/nonexistent").exists());
}

#[test]
fn the_cli_refuses_bad_mount_sets_with_the_engines_text() {
    let base = TempDir::new("cli-bad");
    let at = |name: &str| {
        let mut f = std::ffi::OsString::from(format!("{name}="));
        f.push(base.0.join(if name.is_empty() { "root" } else { name }));
        f
    };
    let refuse = |names: &[&str], want: &str| {
        let mut c = cli();
        c.arg("exec");
        for n in names {
            c.arg("--mount").arg(at(n));
        }
        let out = c
            .arg(r#"{"command":"view","path":"/memories"}"#)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{names:?}");
        assert_eq!(
            text(&out.stderr),
            format!("memdir-host: {want}\n"),
            "{names:?}"
        );
        assert!(out.stdout.is_empty());
    };
    let nine: Vec<String> = (0..9).map(|i| format!("s{i}")).collect();
    let nine: Vec<&str> = nine.iter().map(String::as_str).collect();
    refuse(&nine, "a memory mounts 1 to 8 stores, got 9");
    refuse(&["a", "a"], "two stores are mounted at /memories/a");
    refuse(
        &[".."],
        "mount name \"..\" is not a valid directory name under /memories",
    );
    refuse(
        &["", "a"],
        "a store mounted at /memories itself (name \"\") must be the only one",
    );
    // No store directory was made for any of them.
    assert!(snapshot(&base.0).is_empty());
    assert_eq!(std::fs::read_dir(&base.0).unwrap().count(), 0);

    // Flags that do not go together are usage errors (the usage follows).
    let out = cli()
        .args(["exec", "--store", "x", "--mount"])
        .arg(at("a"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with(
        "memdir-host: --mount cannot be combined with --store or --in-memory\n\nusage:"
    ));
    let out = cli()
        .args([
            "instructions",
            "--mount",
            "a=d",
            "--mount-description",
            "b=x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("memdir-host: no --mount b=DIR for the description given\n")
    );
}
