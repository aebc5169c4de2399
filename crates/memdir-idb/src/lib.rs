//! memdir's store over IndexedDB, for agents running in a browser tab.
//!
//! One database per memory namespace (`memdir:{name}`) with two object stores:
//! `kv`, the engine's keys as strings and values as `Uint8Array`s (heads, `set`s,
//! and every object an earlier build wrote), and `packs`, one record per commit
//! holding all of its new objects, found by key through a multi-entry index (see
//! `packs`). Every write
//! resolves only when its transaction has completed, so a command that reported
//! success is on disk, and a command that failed left nothing behind.
//!
//! Transactions per engine command (counted by bench/browser): the engine caches
//! immutable objects and the head it last committed, so once warm a `view` costs
//! ONE readonly transaction (the head, which another tab may have moved) and an
//! uncontended mutating command costs ONE readwrite transaction carrying the new
//! blob, tree nodes, commit (as one pack record) and the head's compare-and-swap
//! together ([`Store::commit`] is overridden for this). An object not seen before
//! costs one readonly transaction to read. Two tabs racing on the head are serialised by
//! IndexedDB: the loser's transaction sees the new head, aborts its writes and
//! reports `false`; the loser backs off a little and the engine retries.
//!
//! Errors carry only a kind: `QuotaExceededError` is [`StoreError::QuotaExceeded`];
//! a database that cannot be opened (private mode, storage disabled, a blocked
//! upgrade, a newer schema) or a closed connection is [`StoreError::Unavailable`];
//! anything else is [`StoreError::Failed`]. Browser error text is never kept.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Array, JsString, Uint8Array};
use memdir::{Page, Store, StoreError};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Event, IdbDatabase, IdbIndex, IdbKeyRange, IdbObjectStore, IdbRequest, IdbTransaction,
    IdbTransactionMode,
};

mod connection;
mod errors;
mod events;
mod faults;
mod head_check;
mod names;
mod packs;
pub mod timer;

use connection::VERSION;
pub use connection::{database_name, delete_database};
use events::{Outcome, Settled};
#[cfg(feature = "testing")]
pub use faults::Fault;
use faults::Faults;
use head_check::{HeadCheck, Verdict};

/// The most bytes of values one pack record holds: what one delete rewrites at most.
pub use packs::PACK_MAX_BYTES;

/// Keys per page of [`Store::list`]: under the contract suite's 1,100 so paging is
/// exercised, large enough that a listing is a handful of transactions.
pub const PAGE: u32 = 500;

/// A memory's IndexedDB database. Cheap to clone; clones share the connection.
///
/// The connection opens on first use and reopens by itself after another tab
/// upgraded or deleted the database (we close ours on `versionchange` so we never
/// block them). After [`IdbStore::close`] every operation is `Unavailable`.
#[derive(Clone)]
pub struct IdbStore {
    shared: Rc<Shared>,
}

struct Shared {
    namespace: String,
    version: u32,
    db: RefCell<Option<IdbDatabase>>,
    /// The browser or another tab took our connection away; reconnect next time.
    stale: Cell<bool>,
    closed: Cell<bool>,
    /// The key of the last commit's head as a JS string, and that key: every
    /// command crosses it (a view reads it, a write reads and puts it), and each
    /// `&str` crossing into JS is decoded again.
    head_key: RefCell<Option<(String, JsValue)>>,
    /// Zero-sized unless the `testing` feature is on (see `faults`).
    faults: Faults,
}

impl IdbStore {
    /// A store for `namespace`; the database opens on first use. Use [`IdbStore::open`]
    /// to learn at once whether IndexedDB is usable here.
    pub fn new(namespace: &str) -> Self {
        Self::with_version(namespace, VERSION)
    }

    fn with_version(namespace: &str, version: u32) -> Self {
        IdbStore {
            shared: Rc::new(Shared {
                namespace: namespace.to_string(),
                version,
                db: RefCell::new(None),
                stale: Cell::new(false),
                closed: Cell::new(false),
                head_key: RefCell::new(None),
                faults: Faults::new(),
            }),
        }
    }

    /// Opens the database now: `Unavailable` in private mode, with storage disabled,
    /// or when another tab blocks the upgrade; `QuotaExceeded` when the origin is full.
    pub async fn open(namespace: &str) -> Result<Self, StoreError> {
        let store = Self::new(namespace);
        store.database().await?;
        Ok(store)
    }

    pub fn namespace(&self) -> &str {
        &self.shared.namespace
    }

    /// Closes the connection once running transactions finish; later operations
    /// fail with `Unavailable`.
    pub fn close(&self) {
        self.shared.closed.set(true);
        if let Some(db) = self.shared.db.borrow_mut().take() {
            db.close();
        }
    }

    /// The live connection, opening or reopening it when needed.
    async fn database(&self) -> Result<IdbDatabase, StoreError> {
        let s = &self.shared;
        if s.closed.get() {
            return Err(StoreError::Unavailable);
        }
        if !s.stale.get()
            && let Some(db) = s.db.borrow().as_ref()
        {
            return Ok(db.clone());
        }
        let db = connection::open(&database_name(&s.namespace), s.version).await?;
        if s.closed.get() {
            db.close();
            return Err(StoreError::Unavailable);
        }
        if !s.stale.get() {
            // Another operation connected while we waited: use one connection.
            if let Some(current) = s.db.borrow().as_ref() {
                db.close();
                return Ok(current.clone());
            }
        }
        watch(&db, Rc::downgrade(s));
        if let Some(old) = s.db.borrow_mut().replace(db.clone()) {
            old.close();
        }
        s.stale.set(false);
        Ok(db)
    }

    /// A transaction on both object stores (`kv` and `packs`). A connection that
    /// closed under us (the browser cleared storage, another tab upgraded) is
    /// reopened once.
    async fn transaction(&self, mode: IdbTransactionMode) -> Result<Stores, StoreError> {
        for attempt in 0..2 {
            let db = self.database().await?;
            match names::with(|n| db.transaction_with_str_sequence_and_mode(&n.scope, mode)) {
                Ok(tx) => {
                    let kv =
                        names::object_store(&tx, |n| &n.kv).map_err(|e| errors::from_js(&e))?;
                    return Ok(Stores { tx, kv });
                }
                Err(e)
                    if attempt == 0
                        && errors::name_of(&e).as_deref() == Some("InvalidStateError") =>
                {
                    self.shared.stale.set(true);
                }
                Err(e) => return Err(errors::from_js(&e)),
            }
        }
        Err(StoreError::Unavailable)
    }

    /// Why a readwrite transaction ended in `abort`.
    fn abort_kind(&self, tx: &IdbTransaction) -> StoreError {
        match tx.error() {
            Some(e) => errors::from_name(&e.name()),
            None if self.shared.closed.get() || self.shared.stale.get() => StoreError::Unavailable,
            // We aborted it ourselves (a fault injected by a test) or the browser gave
            // no reason.
            None => StoreError::Failed,
        }
    }

    /// Waits for `complete` or `abort` of a readwrite transaction.
    async fn settle(&self, tx: &IdbTransaction, done: Settled) -> Result<(), StoreError> {
        match done.await {
            Outcome::Done => Ok(()),
            Outcome::Failed | Outcome::Blocked => Err(self.abort_kind(tx)),
        }
    }

    /// A request failed inside a readwrite transaction: it aborts on its own (or
    /// we abort it); wait for that so the caller never races the rollback, and
    /// report the reason.
    async fn failed_with(
        &self,
        tx: &IdbTransaction,
        done: Settled,
        fallback: StoreError,
    ) -> StoreError {
        let _ = tx.abort(); // harmless if the abort is already under way
        match done.await {
            Outcome::Failed => match tx.error() {
                Some(e) => errors::from_name(&e.name()),
                None => fallback,
            },
            Outcome::Done | Outcome::Blocked => fallback,
        }
    }

    /// `k` as a JS string: the one kept if it is the last commit's head.
    fn key(&self, k: &str) -> JsValue {
        match self.shared.head_key.borrow().as_ref() {
            Some((kept, js)) if kept == k => js.clone(),
            _ => key(k),
        }
    }

    /// A commit's head `k` as a JS string, kept for the commands after it.
    fn head_key(&self, k: &str) -> JsValue {
        let js = self.key(k);
        let mut kept = self.shared.head_key.borrow_mut();
        if kept.as_ref().is_none_or(|(s, _)| s != k) {
            *kept = Some((k.to_string(), js.clone()));
        }
        js
    }

    /// Test hook: `fault` strikes the next `commit` (of any clone of this store).
    #[cfg(feature = "testing")]
    pub fn inject_into_next_commit(&self, fault: Fault) {
        self.shared.faults.plan(fault);
    }

    /// Test hook: how many injected faults have actually struck so far, so a test
    /// can prove its fault was hit rather than planned and silently skipped.
    #[cfg(feature = "testing")]
    pub fn injected_faults(&self) -> usize {
        self.shared.faults.fired()
    }
}

/// Closes our connection when another tab wants to upgrade or delete the database,
/// and notices when the browser closes it; either way the next operation reconnects.
/// The handlers belong to the JS GC and hold only a weak reference to the store.
fn watch(db: &IdbDatabase, shared: Weak<Shared>) {
    let on_versionchange = {
        let shared = shared.clone();
        Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            if let Some(db) = event
                .target()
                .and_then(|t| t.dyn_into::<IdbDatabase>().ok())
            {
                db.close();
                mark_stale(&shared, &db);
            }
        })
        .into_js_value()
    };
    let on_close = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        if let Some(db) = event
            .target()
            .and_then(|t| t.dyn_into::<IdbDatabase>().ok())
        {
            mark_stale(&shared, &db);
        }
    })
    .into_js_value();
    db.set_onversionchange(Some(on_versionchange.unchecked_ref()));
    db.set_onclose(Some(on_close.unchecked_ref()));
}

fn mark_stale(shared: &Weak<Shared>, db: &IdbDatabase) {
    if let Some(s) = shared.upgrade() {
        let ours =
            s.db.borrow()
                .as_ref()
                .is_some_and(|d| connection::same(d, Some(db.clone().into())));
        if ours {
            s.stale.set(true);
        }
    }
}

fn key(k: &str) -> JsValue {
    JsValue::from_str(k)
}

fn bytes(v: &[u8]) -> JsValue {
    Uint8Array::from(v).into()
}

/// A stored value back to bytes; anything but a `Uint8Array` is not ours.
fn value(v: Option<JsValue>) -> Result<Option<Vec<u8>>, StoreError> {
    match v {
        None => Ok(None),
        Some(v) if v.is_undefined() => Ok(None),
        Some(v) => {
            let a = v.dyn_into::<Uint8Array>().map_err(|_| StoreError::Failed)?;
            // Refused before it is copied into wasm memory (see MAX_VALUE_BYTES).
            if a.length() as usize > memdir::config::MAX_VALUE_BYTES {
                return Err(StoreError::Failed);
            }
            Ok(Some(a.to_vec()))
        }
    }
}

/// The smallest string above every string that starts with `prefix`, compared as
/// IndexedDB compares (UTF-16 code units); `None` when there is none (empty prefix
/// or all U+FFFF).
fn prefix_end(prefix: &str) -> Option<JsValue> {
    let mut units: Vec<u16> = prefix.encode_utf16().collect();
    while units.last() == Some(&0xFFFF) {
        units.pop();
    }
    let last = units.last_mut()?;
    *last += 1;
    Some(JsString::from_char_code(&units).into())
}

/// A transaction over both object stores; `packs` and its index are asked for
/// only by the operations that use them (a warm read never does).
struct Stores {
    tx: IdbTransaction,
    kv: IdbObjectStore,
}

impl Stores {
    fn packs(&self) -> Result<IdbObjectStore, JsValue> {
        names::object_store(&self.tx, |n| &n.packs)
    }

    /// The index of packed keys.
    fn packed(&self) -> Result<IdbIndex, JsValue> {
        names::index(&self.packs()?, |n| &n.keys)
    }
}

/// Waits for a request placed in a live transaction; its result on `success`.
async fn answer(request: &IdbRequest, done: Settled) -> Result<JsValue, StoreError> {
    match done.await {
        Outcome::Done => request.result().map_err(|e| errors::from_js(&e)),
        Outcome::Failed | Outcome::Blocked => Err(request
            .error()
            .ok()
            .flatten()
            .map_or(StoreError::Failed, |e| errors::from_name(&e.name()))),
    }
}

impl Store for IdbStore {
    /// `kv` first (heads, `set`s, objects of version-1 builds), else the pack that
    /// holds the key. A warm command reads only its head, which is in `kv`: one
    /// request. The index is asked only on a miss, in the same readonly transaction
    /// while it is still active (its success event's microtasks), else in a new one.
    async fn get(&self, k: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let s = self.transaction(IdbTransactionMode::Readonly).await?;
        let direct = s.kv.get(&self.key(k)).map_err(|e| errors::from_js(&e))?;
        let direct_done = Settled::request(&direct);
        if let Some(v) = value(Some(answer(&direct, direct_done).await?))? {
            return Ok(Some(v));
        }
        let packed = match s.packed().and_then(|i| i.get(&key(k))) {
            Ok(r) => r,
            Err(_) => {
                let again = self.transaction(IdbTransactionMode::Readonly).await?;
                again
                    .packed()
                    .and_then(|i| i.get(&key(k)))
                    .map_err(|e| errors::from_js(&e))?
            }
        };
        let packed_done = Settled::request(&packed);
        match answer(&packed, packed_done).await? {
            r if r.is_undefined() => Ok(None),
            r => packs::value_in(&r, k).map(Some),
        }
    }

    async fn set(&self, k: &str, v: &[u8]) -> Result<(), StoreError> {
        let s = self.transaction(IdbTransactionMode::Readwrite).await?;
        let done = Settled::transaction(&s.tx);
        if let Err(e) = s.kv.put_with_key(&bytes(v), &key(k)) {
            return Err(self.failed_with(&s.tx, done, errors::from_js(&e)).await);
        }
        self.settle(&s.tx, done).await
    }

    /// Deletes the key from `kv` and from every pack holding it, in one readwrite
    /// transaction (see `packs`): no record keeps a byte of its value.
    async fn delete(&self, k: &str) -> Result<(), StoreError> {
        let s = self.transaction(IdbTransactionMode::Readwrite).await?;
        let done = Settled::transaction(&s.tx);
        if let Err(e) = s.kv.delete(&key(k)) {
            return Err(self.failed_with(&s.tx, done, errors::from_js(&e)).await);
        }
        let walk = match s.packed().and_then(|i| packs::place_unpack(&i, &s.tx, k)) {
            Ok(w) => w,
            Err(e) => return Err(self.failed_with(&s.tx, done, errors::from_js(&e)).await),
        };
        let settled = self.settle(&s.tx, done).await;
        match walk.failed() {
            Some(e) => Err(e),
            None => settled,
        }
    }

    /// The keys of `kv` and of the packs' index in the range, merged: each side
    /// fetches one over a page, so the merged first page-and-one is exact.
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        // Resume strictly after the cursor; a cursor outside the prefix's range
        // either starts it from the top or means there is nothing left.
        let (lower, lower_open) = match cursor {
            Some(c) if c.starts_with(prefix) => (c, true),
            Some(c) if c > prefix => return Ok(Page::default()),
            _ => (prefix, false),
        };
        let range: JsValue = match prefix_end(prefix) {
            Some(end) => IdbKeyRange::bound_with_lower_open_and_upper_open(
                &key(lower),
                &end,
                lower_open,
                true,
            ),
            None => IdbKeyRange::lower_bound_with_open(&key(lower), lower_open),
        }
        .map_err(|e| errors::from_js(&e))?
        .into();
        let s = self.transaction(IdbTransactionMode::Readonly).await?;
        let done = Settled::transaction(&s.tx);
        let direct =
            s.kv.get_all_keys_with_key_and_limit(&range, PAGE + 1)
                .map_err(|e| errors::from_js(&e))?;
        let packed = Rc::new(RefCell::new(Vec::new()));
        let walk = s
            .packed()
            .and_then(|i| packs::place_keys(&i, &range, PAGE as usize + 1, Rc::clone(&packed)))
            .map_err(|e| errors::from_js(&e))?;
        if done.await != Outcome::Done {
            return Err(self.abort_kind(&s.tx));
        }
        if let Some(e) = walk.failed() {
            return Err(e);
        }
        let found = direct
            .result()
            .ok()
            .and_then(|r| r.dyn_into::<Array>().ok())
            .ok_or(StoreError::Failed)?;
        let mut keys = Vec::with_capacity(found.length() as usize + packed.borrow().len());
        for k in found.iter() {
            keys.push(k.as_string().ok_or(StoreError::Failed)?);
        }
        keys.append(&mut packed.borrow_mut());
        keys.retain(|k| k.starts_with(prefix));
        keys.sort_unstable();
        keys.dedup();
        keys.truncate(PAGE as usize + 1);
        Ok(Page::of(keys, PAGE as usize))
    }

    async fn compare_and_swap(
        &self,
        k: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.commit(&[], k, expected, new).await
    }

    /// The objects (as ONE pack record, see `packs`) and the head's compare-and-swap
    /// in one readwrite transaction, all placed at once: the head's read decides in
    /// its success event whether the transaction may commit, or aborts it, taking
    /// the pack and the new head with it (see `head_check`).
    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        k: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let entries: Vec<(&str, &[u8])> = objects.iter().map(|(k, v)| (k.as_str(), &**v)).collect();
        let records = packs::records(&entries)?;
        let head = self.head_key(k);
        let s = self.transaction(IdbTransactionMode::Readwrite).await?;
        let (tx, kv) = (&s.tx, &s.kv);
        let done = Settled::transaction(tx);
        let packed = match s.packs() {
            Ok(p) => p,
            Err(e) => return Err(self.failed_with(tx, done, errors::from_js(&e)).await),
        };
        // No-ops unless a test planned a fault (see `faults`).
        let mut faults = self.shared.faults.arm(tx);
        let check = match faults
            .placing()
            .and_then(|()| HeadCheck::place(kv, tx, &head, expected))
        {
            Ok(c) => c,
            Err(e) => return Err(self.failed_with(tx, done, errors::from_js(&e)).await),
        };
        faults.placed(check.request());
        let puts =
            records
                .into_iter()
                .map(|r| (&packed, r, None))
                .chain([(kv, bytes(new), Some(head))]);
        for (store, value, at) in puts {
            let placed = faults.placing().and_then(|()| match &at {
                Some(at) => store.put_with_key(&value, at),
                None => store.put(&value),
            });
            match placed {
                Ok(request) => faults.placed(&request),
                Err(e) => return Err(self.failed_with(tx, done, errors::from_js(&e)).await),
            }
        }
        faults.sealed();
        let outcome = done.await;
        match (outcome, check.verdict()) {
            (Outcome::Done, Verdict::Matches) => Ok(true),
            // Lost to another tab: the engine backs off (see `timer::backoff`) and retries.
            (Outcome::Failed, Verdict::Differs) => Ok(false),
            (Outcome::Failed, Verdict::Unreadable) => Err(StoreError::Failed),
            (Outcome::Failed, _) => Err(self.abort_kind(tx)),
            // Completed without the head matching cannot happen: the check aborts.
            _ => Err(StoreError::Failed),
        }
    }
}

/// Test hook: how many requests, transactions and timers are awaited now (see
/// `events`), so a test can prove each leaves the table once it has ended.
#[cfg(feature = "testing")]
pub fn awaited() -> usize {
    events::awaited()
}

#[cfg(feature = "testing")]
impl IdbStore {
    /// Test hook: a store on an explicit schema version, to provoke a blocked upgrade.
    pub fn new_at_version(namespace: &str, version: u32) -> Self {
        Self::with_version(namespace, version)
    }
}
