//! A store wrapper for the engine's own tests: counts operations by kind, can fail
//! the k-th operation, and can make every operation wait one poll so several
//! engines' commands interleave at each store call.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use memdir::{Entry, Page, Store, StoreError};

#[derive(Clone, Default)]
pub struct Shared {
    pub ops: Rc<Cell<u64>>,
    pub writes: Rc<Cell<u64>>,
    /// Fail the operation with this index (0-based, counted from the last reset).
    pub fail_at: Rc<Cell<Option<u64>>>,
    pub by_kind: Rc<RefCell<BTreeMap<&'static str, u64>>>,
    /// Operations by kind and the key's prefix: `"get blob"`, `"set rec"`, `"cas head"`.
    pub by_key: Rc<RefCell<BTreeMap<String, u64>>>,
}

impl Shared {
    /// How many operations of `kind` went to keys under `prefix` (e.g. "set", "rec").
    pub fn count(&self, kind: &str, prefix: &str) -> u64 {
        self.by_key
            .borrow()
            .get(&format!("{kind} {prefix}"))
            .copied()
            .unwrap_or(0)
    }
}

impl Shared {
    pub fn reset(&self) {
        self.ops.set(0);
        self.writes.set(0);
        self.by_kind.borrow_mut().clear();
        self.by_key.borrow_mut().clear();
    }
}

pub struct Harness<S> {
    pub inner: S,
    pub shared: Shared,
    pub yielding: bool,
}

impl<S: Store> Harness<S> {
    pub fn new(inner: S) -> Self {
        Harness {
            inner,
            shared: Shared::default(),
            yielding: false,
        }
    }

    async fn op(&self, kind: &'static str, key: &str, write: bool) -> Result<(), StoreError> {
        let prefix = key.split('/').next().unwrap_or(key);
        *self
            .shared
            .by_key
            .borrow_mut()
            .entry(format!("{kind} {prefix}"))
            .or_default() += 1;
        if self.yielding {
            YieldOnce(false).await;
        }
        let n = self.shared.ops.get();
        self.shared.ops.set(n + 1);
        if write {
            self.shared.writes.set(self.shared.writes.get() + 1);
        }
        *self.shared.by_kind.borrow_mut().entry(kind).or_default() += 1;
        if self.shared.fail_at.get() == Some(n) {
            return Err(StoreError::Failed);
        }
        Ok(())
    }
}

impl<S: Store> Store for Harness<S> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.op("get", key, false).await?;
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.op("set", key, true).await?;
        self.inner.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.op("delete", key, true).await?;
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.op("list", prefix, false).await?;
        self.inner.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.op("cas", key, true).await?;
        self.inner.compare_and_swap(key, expected, new).await
    }
    // `commit` keeps the default: its sets and CAS each count, and each can fail.
}

/// A future that is pending on its first poll, and asks to be polled again.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Polls all futures until each is done, one poll at a time in a seeded
/// pseudo-random order: a repeatable interleaving of several clients at every store
/// operation. (A fixed order would let the first client win every race.)
pub fn run_interleaved<F: Future>(futs: Vec<F>) -> Vec<F::Output> {
    let mut futs: Vec<Pin<Box<F>>> = futs.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futs.iter().map(|_| None).collect();
    let mut cx = Context::from_waker(Waker::noop());
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    while out.iter().any(Option::is_none) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let i = (seed % futs.len() as u64) as usize;
        if out[i].is_none()
            && let Poll::Ready(v) = futs[i].as_mut().poll(&mut cx)
        {
            out[i] = Some(v);
        }
    }
    out.into_iter().map(Option::unwrap).collect()
}

pub fn file(path: &str, content: &str) -> Entry {
    Entry {
        path: path.into(),
        content: Some(content.into()),
    }
}

pub fn dir(path: &str) -> Entry {
    Entry {
        path: path.into(),
        content: None,
    }
}

/// The id the API tests give their store (its tag, `abcdefghjkmn`, is in their ids).
pub const STORE_ID: &str = "memstore_abcdefghjkmn0123456789ab";

/// An engine over a fresh memory store whose clock starts at 2026-11-18T11:06:40Z
/// and ticks a second a reading, with a store record named "Prefs" (store id
/// [`STORE_ID`]): what the Memory Stores API and toolset tests start from.
pub fn api_engine(
    config: memdir::config::Config,
) -> (memdir::Engine<memdir::MemoryStore>, memdir::MemoryStore) {
    let store = memdir::MemoryStore::new();
    let mut engine = memdir::Engine::new(store.clone(), config);
    let now = Rc::new(Cell::new(1_795_000_000_000u64));
    engine.set_clock(Box::new(move || {
        now.set(now.get() + 1000);
        now.get()
    }));
    let made = memdir::block_on(engine.api(&serde_json::json!({
        "op": "store.create", "id": STORE_ID, "body": r#"{"name":"Prefs"}"#
    })));
    assert_eq!(made.status, 200, "{:?}", made.body);
    (engine, store)
}

/// Every key the store holds with its value, in key order: what a test compares
/// to show that nothing was written, or scans for a text.
pub fn dump(store: &memdir::MemoryStore) -> Vec<(String, Vec<u8>)> {
    let keys = memdir::block_on(memdir::list_all(store, "")).unwrap();
    keys.into_iter()
        .map(|k| {
            let v = memdir::block_on(store.get(&k)).unwrap().unwrap();
            (k, v)
        })
        .collect()
}

/// Runs `f` on a thread of its own and fails unless it finishes within `secs`: a
/// walk over a count a hostile store claims (hours) then fails the test instead of
/// hanging it. The engine's `Rc` types stay on that thread.
pub fn finishes_within(secs: u64, what: &str, f: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        f();
        done.send(()).unwrap();
    });
    finished
        .recv_timeout(std::time::Duration::from_secs(secs))
        .expect(what);
}

/// Makes a store of exactly two versions (one log leaf) claim 64^6: its second slot
/// copied across a leaf, under five inner nodes that each name one child 64 times,
/// and a new head commit (the old one its parent) saying 64^6 versions. 6 small nodes.
/// The claimed log is of the first fanout, 64 (its commit names none), as a store
/// written before the fanout of 16 holds: so the old form is read hostile too.
pub fn claim_64_to_the_6th_versions(store: &memdir::MemoryStore) {
    claim_versions(store, 5, 64u64.pow(6));
}

/// As [`claim_64_to_the_6th_versions`], with `levels` inner nodes over the filled
/// leaf and a head saying `versions` (at most 64^(levels + 1)).
pub fn claim_versions(store: &memdir::MemoryStore, levels: usize, versions: u64) {
    use memdir::__hooks::{LogNode, Slot};
    use memdir::block_on;
    use sha2::{Digest, Sha256};
    let hex = |bytes: &[u8]| -> String { bytes.iter().map(|b| format!("{b:02x}")).collect() };
    let put = |prefix: &str, bytes: &[u8]| {
        let h = hex(&Sha256::digest(bytes));
        block_on(store.set(&format!("{prefix}{h}"), bytes)).unwrap();
        h
    };
    let head = String::from_utf8(block_on(store.get("head")).unwrap().unwrap()).unwrap();
    let mut commit: serde_json::Value = serde_json::from_slice(
        &block_on(store.get(&format!("commit/{head}")))
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let leaf_key = format!("log/{}", commit["log"].as_str().unwrap());
    let Some(LogNode::Leaf(slots)) =
        LogNode::decode(&block_on(store.get(&leaf_key)).unwrap().unwrap())
    else {
        panic!("a log of two versions is one leaf")
    };
    assert_eq!(slots.len(), 2, "a store of exactly two versions");
    let mut filled: Vec<Slot> = slots.clone();
    filled.resize(64, slots[1]);
    let mut node = put("log/", &LogNode::Leaf(filled).encode());
    for _ in 0..levels {
        // An inner node's binary form: its tag, its count, each child's hash.
        let mut inner = b"N1\x40".to_vec();
        let child = block_on(store.get(&format!("log/{node}")))
            .unwrap()
            .unwrap();
        for _ in 0..64 {
            inner.extend_from_slice(&Sha256::digest(&child));
        }
        assert!(matches!(LogNode::decode(&inner), Some(LogNode::Inner(_))));
        node = put("log/", &inner);
    }
    commit["log"] = serde_json::json!(node);
    commit["versions"] = serde_json::json!(versions);
    commit["parent"] = serde_json::json!(head);
    commit.as_object_mut().unwrap().remove("log_fanout");
    let c = put("commit/", commit.to_string().as_bytes());
    block_on(store.set("head", c.as_bytes())).unwrap();
}
