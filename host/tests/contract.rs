//! The engine's store-contract suite against both backends the host lends, as
//! themselves and behind `dyn Backend` (the form the keyvalue imports use).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use memdir::block_on;
use memdir::contract::check;
use memdir_host::{Backend, DirBackend, MemoryBackend};

fn temp(tag: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("memdir-host-contract-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    p
}

#[test]
fn memory_backend_keeps_the_store_contract() {
    block_on(check(&MemoryBackend::new())).unwrap_or_else(|e| panic!("{e}"));
    let dynamic: Arc<dyn Backend> = Arc::new(MemoryBackend::new());
    block_on(check(&&*dynamic)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn directory_backend_keeps_the_store_contract() {
    let dir = temp("dir");
    let r = block_on(check(&DirBackend::open(&dir).expect("open"))).map_err(|e| e.to_string());
    let dynamic: Arc<dyn Backend> = Arc::new(DirBackend::open(temp("dyn")).expect("open"));
    let r2 = block_on(check(&&*dynamic)).map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(temp("dyn"));
    r.unwrap_or_else(|e| panic!("{e}"));
    r2.unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_directory_store_is_persistent_and_shared_by_every_handle_to_it() {
    let dir = temp("persist");
    let a = DirBackend::open(&dir).expect("open");
    let b = DirBackend::open(&dir).expect("open again");
    assert!(a.compare_and_swap("head", None, b"1").expect("cas"));
    assert!(
        !b.compare_and_swap("head", None, b"2").expect("cas"),
        "the second handle sees the first's write"
    );
    assert!(b.compare_and_swap("head", Some(b"1"), b"2").expect("cas"));
    drop((a, b));
    let c = DirBackend::open(&dir).expect("reopen");
    assert_eq!(c.get("head").expect("get"), Some(b"2".to_vec()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Threads of one process, each with its own handle (so each takes the lock
/// through its own open file), incrementing one counter by compare-and-swap.
#[test]
fn compare_and_swap_on_a_directory_store_loses_no_update_under_contention() {
    let dir = temp("threads");
    DirBackend::open(&dir).expect("open");
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let s = DirBackend::open(&dir).expect("open");
                for _ in 0..50 {
                    loop {
                        let cur = s.get("n").expect("get");
                        let n: u64 = cur
                            .as_deref()
                            .map_or(0, |v| String::from_utf8_lossy(v).parse().expect("a number"));
                        if s.compare_and_swap("n", cur.as_deref(), (n + 1).to_string().as_bytes())
                            .expect("cas")
                        {
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    let s = DirBackend::open(&dir).expect("open");
    assert_eq!(s.get("n").expect("get"), Some(b"200".to_vec()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two processes (this test binary, started again as a child) incrementing one
/// counter by compare-and-swap on one directory store: the lock file makes the
/// read-compare-rename atomic across processes, so no increment is lost.
#[test]
fn compare_and_swap_on_a_directory_store_holds_across_processes() {
    const EACH: u64 = 100;
    if let Some(dir) = std::env::var_os("MEMDIR_CAS_CHILD") {
        let s = DirBackend::open(&dir).expect("open");
        for _ in 0..EACH {
            loop {
                let cur = s.get("n").expect("get");
                let n: u64 = cur
                    .as_deref()
                    .map_or(0, |v| String::from_utf8_lossy(v).parse().expect("a number"));
                if s.compare_and_swap("n", cur.as_deref(), (n + 1).to_string().as_bytes())
                    .expect("cas")
                {
                    break;
                }
            }
        }
        return;
    }
    let dir = temp("processes");
    DirBackend::open(&dir).expect("open");
    let exe = std::env::current_exe().expect("this test binary");
    let children: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "compare_and_swap_on_a_directory_store_holds_across_processes",
                    "--test-threads=1",
                ])
                .env("MEMDIR_CAS_CHILD", &dir)
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("starting a child")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().expect("child exits").success(), "a child failed");
    }
    let s = DirBackend::open(&dir).expect("open");
    assert_eq!(
        s.get("n").expect("get"),
        Some((2 * EACH).to_string().into_bytes())
    );
    let _ = std::fs::remove_dir_all(&dir);
}
