//! The cost of the sandbox: compile, cache load and instantiation times, and
//! per-command latency through the component in the host against the native engine
//! over the same backend. Run by `bash bench/host/run.sh` (release build).
//!
//! Usage: `bench [COMPONENT] [ROUNDS]` (component default: `memdir_host::locate_component`).
#![allow(
    clippy::expect_used,
    reason = "a benchmark run by hand: a broken setup should stop it, saying where"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use memdir::config::Config;
use memdir::{Engine, block_on};
use memdir_host::{Backend, DirBackend, HostLimits, MemoryBackend, Runtime};

/// One round: a small agent session on one file and its directory.
fn round(i: usize) -> Vec<String> {
    let p = format!("/memories/notes/n{i}.md");
    let body: String = (0..40).map(|l| format!("line {l} of note {i}\n")).collect();
    [
        serde_json::json!({"command": "create", "path": p, "file_text": body}),
        serde_json::json!({"command": "view", "path": p}),
        serde_json::json!({"command": "str_replace", "path": p, "old_str": "line 7 of", "new_str": "line seven of"}),
        serde_json::json!({"command": "insert", "path": p, "insert_line": 3, "insert_text": "inserted"}),
        serde_json::json!({"command": "view", "path": p, "view_range": [1, 10]}),
        serde_json::json!({"command": "view", "path": "/memories"}),
        serde_json::json!({"command": "rename", "old_path": p, "new_path": format!("/memories/done/n{i}.md")}),
    ]
    .iter()
    .map(|v| v.to_string())
    .collect()
}

fn per_command(total: Duration, commands: usize) -> f64 {
    total.as_secs_f64() * 1e6 / commands as f64
}

fn temp(tag: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("memdir-host-bench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

/// Microseconds per command: (native engine, component in the host).
fn compare(
    runtime: &Runtime,
    rounds: usize,
    make: &dyn Fn(&str) -> Arc<dyn Backend>,
) -> (f64, f64) {
    let inputs: Vec<String> = (0..rounds).flat_map(round).collect();

    let native_store = make("native");
    let engine = Engine::new(&*native_store, Config::default());
    let start = Instant::now();
    for input in &inputs {
        let r = block_on(engine.execute_json(input));
        assert!(!r.is_error, "native: {}", r.content);
    }
    let native = per_command(start.elapsed(), inputs.len());

    let mut host = runtime.host(make("hosted"), HostLimits::default());
    host.start().expect("instantiating");
    let start = Instant::now();
    for input in &inputs {
        let r = host.execute_json(input);
        assert!(!r.is_error, "hosted: {}", r.content);
    }
    let hosted = per_command(start.elapsed(), inputs.len());
    (native, hosted)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .map(Into::into)
        .unwrap_or_else(|| memdir_host::locate_component().expect("component"));
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(200);
    let bytes = std::fs::read(&path).expect("reading the component");
    println!("component: {} bytes", bytes.len());

    let start = Instant::now();
    let runtime = Runtime::from_bytes(&bytes).expect("compiling");
    println!(
        "compile (Cranelift): {:.0} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    let cache = temp("cache");
    Runtime::from_bytes_cached(&bytes, &cache).expect("filling the cache");
    let start = Instant::now();
    Runtime::from_bytes_cached(&bytes, &cache).expect("loading from the cache");
    println!(
        "load from the compile cache: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    let _ = std::fs::remove_dir_all(&cache);

    let n = 100;
    let start = Instant::now();
    for _ in 0..n {
        let mut host = runtime.host(Arc::new(MemoryBackend::new()), HostLimits::default());
        host.start().expect("instantiating");
    }
    println!(
        "instantiate (+ configure): {:.0} us",
        per_command(start.elapsed(), n)
    );

    // Refusals decided before any storage: the boundary and the wasm engine alone.
    let refusals: Vec<String> = (0..2000)
        .map(|i| {
            serde_json::json!({"command": "view", "path": format!("/memories/a{i}/../b")})
                .to_string()
        })
        .collect();
    let engine = Engine::new(MemoryBackend::new(), Config::default());
    let start = Instant::now();
    for input in &refusals {
        assert!(block_on(engine.execute_json(input)).is_error);
    }
    let native = per_command(start.elapsed(), refusals.len());
    let mut host = runtime.host(Arc::new(MemoryBackend::new()), HostLimits::default());
    host.start().expect("instantiating");
    let start = Instant::now();
    for input in &refusals {
        assert!(host.execute_json(input).is_error);
    }
    let hosted = per_command(start.elapsed(), refusals.len());
    println!(
        "path refusals (no storage), {} calls: native {native:.1} us/call, component in host {hosted:.1} us/call, ratio {:.2}",
        refusals.len(),
        hosted / native
    );

    let commands = rounds * round(0).len();
    let (native, hosted) = compare(&runtime, rounds, &|_| Arc::new(MemoryBackend::new()));
    println!(
        "memory backend, {commands} commands: native {native:.1} us/command, component in host {hosted:.1} us/command, ratio {:.2}",
        hosted / native
    );
    let dirs = std::cell::RefCell::new(Vec::new());
    let disk_rounds = rounds.min(50);
    let (native, hosted) = compare(&runtime, disk_rounds, &|tag| {
        let d = temp(tag);
        dirs.borrow_mut().push(d.clone());
        Arc::new(DirBackend::open(&d).expect("directory store"))
    });
    println!(
        "directory backend, {} commands: native {native:.1} us/command, component in host {hosted:.1} us/command, ratio {:.2}",
        disk_rounds * round(0).len(),
        hosted / native
    );
    for d in dirs.into_inner() {
        let _ = std::fs::remove_dir_all(d);
    }
}
