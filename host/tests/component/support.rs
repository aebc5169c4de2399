//! Shared by the component tests: the built component, fresh backends, the
//! conformance data and a native reader of what the component wrote.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use memdir::config::Config;
use memdir::{Engine, Entry, StoreError, block_on};
use memdir_host::{Backend, DirBackend, MemoryBackend, Runtime};

/// The workspace's root (the host crate is one level down).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The target directory this test binary was built into (`target/<profile>/deps/x`).
fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return workspace().join(d);
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("target/<profile>/deps/<binary>")
        .to_path_buf()
}

/// Builds the component from the current sources (a no-op when it is up to date),
/// once per test binary, so a test never runs against a stale engine.
pub fn component() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let target = target_dir();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(workspace())
            .args([
                "build",
                "--quiet",
                "-p",
                "memdir-component",
                "--target",
                "wasm32-wasip2",
            ])
            .args(["--profile", "release-wasm", "--target-dir"])
            .arg(&target)
            .status()
            .expect("running cargo to build the component");
        assert!(status.success(), "building the component failed");
        target.join(memdir_host::COMPONENT_IN_TARGET)
    })
}

/// Compiled components for the tests and the CLI processes they start, keyed by the
/// component's hash, so a rebuilt component is never served stale.
pub fn cache_dir() -> PathBuf {
    target_dir().join("memdir-host-cache")
}

/// The component, compiled once per test binary (or loaded from the cache).
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let bytes = std::fs::read(component()).expect("reading the component");
        Runtime::from_bytes_cached(&bytes, &cache_dir())
            .unwrap_or_else(|e| panic!("loading the component: {e}"))
    })
}

/// A directory removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("memdir-host-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("making a temporary directory");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Memory,
    Dir,
}

pub const KINDS: [Kind; 2] = [Kind::Memory, Kind::Dir];

/// A fresh, empty backend of `kind` (and the directory that holds it, if any).
pub fn fresh(kind: Kind) -> (Arc<dyn Backend>, Option<TempDir>) {
    match kind {
        Kind::Memory => (Arc::new(MemoryBackend::new()), None),
        Kind::Dir => {
            let dir = TempDir::new("store");
            (
                Arc::new(DirBackend::open(&dir.0).expect("opening a directory store")),
                Some(dir),
            )
        }
    }
}

/// Counts every operation that reaches the backend; optionally fails some.
pub struct Probe {
    pub inner: Arc<dyn Backend>,
    pub ops: AtomicU64,
    /// Fail the operation with this number (counting from 1) and every later write.
    pub fail_from: Option<(u64, StoreError)>,
}

impl Probe {
    pub fn new(inner: Arc<dyn Backend>) -> Self {
        Probe {
            inner,
            ops: AtomicU64::new(0),
            fail_from: None,
        }
    }

    fn hit(&self, write: bool) -> Result<(), StoreError> {
        let n = self.ops.fetch_add(1, Ordering::SeqCst) + 1;
        match self.fail_from {
            Some((from, e)) if n >= from && (write || n == from) => Err(e),
            _ => Ok(()),
        }
    }
}

impl Backend for Probe {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.hit(false)?;
        self.inner.get(key)
    }
    fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.hit(true)?;
        self.inner.set(key, value)
    }
    fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.hit(true)?;
        self.inner.delete(key)
    }
    fn list(
        &self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.hit(false)?;
        self.inner.list(prefix, after, limit)
    }
    fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.hit(true)?;
        self.inner.compare_and_swap(key, expected, new)
    }
}

// ------------------------------------------------------------------ conformance data

/// The text of a file of `tests/conformance/`.
pub fn load(name: &str) -> String {
    let path = workspace().join("tests/conformance").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub use memdir::conformance::Tree;

/// Puts `entries` into the store with the native engine (the same engine).
pub fn seed(backend: &Arc<dyn Backend>, config: Config, entries: &[Entry]) {
    block_on(Engine::new(&**backend, config).import(entries)).expect("seeding the store");
}

/// The tree the store holds, read natively: what the component left behind.
pub fn tree(backend: &Arc<dyn Backend>) -> Tree {
    let entries =
        block_on(Engine::new(&**backend, Config::default()).entries()).expect("reading the tree");
    entries.into_iter().map(|e| (e.path, e.content)).collect()
}

/// Every key and value the backend holds.
pub fn raw(backend: &Arc<dyn Backend>) -> BTreeMap<String, Vec<u8>> {
    let keys = block_on(memdir::contract::list_all(&&**backend, "")).expect("listing the store");
    keys.into_iter()
        .map(|k| {
            let v = backend
                .get(&k)
                .expect("reading a key")
                .expect("a listed key has a value");
            (k, v)
        })
        .collect()
}
