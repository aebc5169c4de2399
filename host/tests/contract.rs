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

/// The opening rule both tools share (memdir::store_dir::protocol::Open): a store
/// path under a file is not a directory, and nothing is created.
#[test]
fn a_store_path_under_a_file_is_not_a_directory() {
    let base = temp("under-file");
    std::fs::create_dir_all(&base).expect("mkdir");
    let file = base.join("file");
    std::fs::write(&file, "x").expect("write");
    let e = DirBackend::open(file.join("store")).expect_err("refused");
    assert_eq!(e.to_string(), "the store path is not a directory");
    assert_eq!(std::fs::read(&file).expect("read"), b"x");
    let _ = std::fs::remove_dir_all(&base);
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

/// Every file of a store directory, read raw, that holds `marker`'s bytes.
fn files_holding(dir: &std::path::Path, marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read the store") {
        let entry = entry.expect("an entry");
        if !entry.file_type().expect("a type").is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path()).expect("read a file");
        if bytes.windows(marker.len()).any(|w| w == marker.as_bytes()) {
            found.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    found.sort();
    found
}

fn ino(dir: &std::path::Path, key: &str) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let name = memdir::store_dir::file_name(key).expect("a name");
    std::fs::symlink_metadata(dir.join(name))
        .expect("the key's file")
        .ino()
}

fn commit(s: &DirBackend, objects: &[(&str, &str)], expected: Option<&str>, head: &str) {
    let objects: Vec<(String, std::rc::Rc<[u8]>)> = objects
        .iter()
        .map(|(k, v)| (k.to_string(), v.as_bytes().into()))
        .collect();
    assert!(
        s.commit(
            &objects,
            "head",
            expected.map(str::as_bytes),
            head.as_bytes()
        )
        .expect("commit"),
        "the commit swapped"
    );
}

#[test]
fn a_deleted_value_leaves_no_byte_in_any_file_of_its_pack() {
    const SECRET: &str = "MEMDIR-REDACTED-7f3a91 the text to forget";
    let dir = temp("redact");
    let s = DirBackend::open(&dir).expect("open");
    commit(
        &s,
        &[
            ("blob/secret", SECRET),
            ("tree/a", "tree A"),
            ("blob/b", "bee"),
        ],
        None,
        "H1",
    );
    // One pack under four names: the secret is in each of them.
    assert_eq!(ino(&dir, "blob/secret"), ino(&dir, "head"));
    assert_eq!(ino(&dir, "tree/a"), ino(&dir, "head"));
    assert_eq!(files_holding(&dir, SECRET).len(), 4);
    s.delete("blob/secret").expect("delete");
    assert_eq!(files_holding(&dir, SECRET), Vec::<String>::new());
    assert_eq!(s.get("blob/secret").expect("get"), None);
    for (k, v) in [("tree/a", "tree A"), ("blob/b", "bee"), ("head", "H1")] {
        assert_eq!(s.get(k).expect("get").as_deref(), Some(v.as_bytes()), "{k}");
    }
    // Each mate is a pack of its own now: a later delete touches nothing else.
    assert_ne!(ino(&dir, "tree/a"), ino(&dir, "head"));
    s.delete("tree/a").expect("delete");
    assert_eq!(s.get("blob/b").expect("get").as_deref(), Some(&b"bee"[..]));
    assert_eq!(s.get("head").expect("get").as_deref(), Some(&b"H1"[..]));
    // Deleting what is gone already is no error; nothing is left being written.
    s.delete("blob/secret").expect("delete again");
    let stray: Vec<_> = std::fs::read_dir(&dir)
        .expect("read")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert_eq!(stray, Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A second commit of an object already stored (content-addressed: the same text
/// written again) leaves it out of its pack; packed twice, the first pack would
/// keep the text under the first commit's other names after the delete.
#[test]
fn an_object_committed_again_is_packed_once_so_its_delete_leaves_nothing() {
    const SECRET: &str = "MEMDIR-REDACTED-c0ffee written twice";
    let dir = temp("twice");
    let s = DirBackend::open(&dir).expect("open");
    commit(&s, &[("blob/x", SECRET), ("tree/1", "one")], None, "H1");
    commit(
        &s,
        &[("blob/x", SECRET), ("tree/2", "two")],
        Some("H1"),
        "H2",
    );
    assert_eq!(ino(&dir, "tree/2"), ino(&dir, "head"));
    assert_ne!(ino(&dir, "blob/x"), ino(&dir, "head"), "not linked again");
    assert_eq!(
        files_holding(&dir, SECRET).len(),
        2,
        "blob/x and tree/1: one pack"
    );
    s.delete("blob/x").expect("delete");
    assert_eq!(files_holding(&dir, SECRET), Vec::<String>::new());
    for (k, v) in [("tree/1", "one"), ("tree/2", "two"), ("head", "H2")] {
        assert_eq!(s.get(k).expect("get").as_deref(), Some(v.as_bytes()), "{k}");
    }
    // Swept meanwhile, an object left out is written again, on its own.
    commit(
        &s,
        &[("tree/1", "one"), ("blob/y", "why")],
        Some("H2"),
        "H3",
    );
    assert_eq!(s.get("tree/1").expect("get").as_deref(), Some(&b"one"[..]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Threads deleting keys of one pack at once (a sweep run twice), while another
/// reads the keys that stay: no delete waits on another's lock, every kept value
/// reads back whole at every moment, and no deleted value is left on the disk.
#[test]
fn deletes_of_one_pack_at_once_lose_no_other_value() {
    let dir = temp("sweep");
    let s = DirBackend::open(&dir).expect("open");
    let objects: Vec<(String, String)> = (0..24)
        .map(|i| {
            (
                format!("blob/{i:02}"),
                format!("MARK-{i:02}-{}", "v".repeat(i * 10)),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = objects
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    commit(&s, &refs, None, "H");
    let (gone, kept): (Vec<_>, Vec<_>) = objects
        .iter()
        .cloned()
        .partition(|(k, _)| k.trim_start_matches("blob/").parse::<u32>().expect("n") % 2 == 0);
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (dir, kept, done) = (dir.clone(), kept.clone(), done.clone());
        std::thread::spawn(move || {
            let s = DirBackend::open(&dir).expect("open");
            let mut reads = 0u32;
            while !done.load(std::sync::atomic::Ordering::Relaxed) || reads == 0 {
                for (k, v) in &kept {
                    assert_eq!(s.get(k).expect("get").as_deref(), Some(v.as_bytes()), "{k}");
                    reads += 1;
                }
            }
        })
    };
    let deleters: Vec<_> = [0, 1]
        .into_iter()
        .map(|t| {
            let (dir, gone) = (dir.clone(), gone.clone());
            std::thread::spawn(move || {
                let s = DirBackend::open(&dir)
                    .expect("open")
                    .with_lock_wait(std::time::Duration::from_secs(2));
                // The two threads go through the keys in opposite orders.
                let mut keys: Vec<_> = gone.iter().map(|(k, _)| k.clone()).collect();
                if t == 1 {
                    keys.reverse();
                }
                for k in keys {
                    s.delete(&k).expect("delete");
                }
            })
        })
        .collect();
    for d in deleters {
        d.join().expect("a deleter");
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    reader.join().expect("the reader");
    for (k, v) in &gone {
        assert_eq!(s.get(k).expect("get"), None, "{k}");
        assert_eq!(files_holding(&dir, v), Vec::<String>::new(), "{k}");
    }
    for (k, v) in &kept {
        assert_eq!(s.get(k).expect("get").as_deref(), Some(v.as_bytes()), "{k}");
    }
    assert_eq!(s.get("head").expect("get").as_deref(), Some(&b"H"[..]));
    let _ = std::fs::remove_dir_all(&dir);
}
