//! The store-directory protocol for the Node directory store: its reads and changes
//! run the protocol shared with the host ([`memdir::store_dir::protocol`]); the
//! system calls are Node's synchronous `node:fs` calls of a JS object (`NodeDirIo`
//! in js/stores/store-dir.js), called from here. What must not block the event loop
//! (lock waits, the fsyncs of the hot path) comes back to the JS driver as a step of
//! a [`DirOp`]. Not in the browser's build, which has no directory store.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use memdir::DirError;
use memdir::store_dir::EntryKind;
use wasm_bindgen::prelude::*;

use super::js_error;

use memdir::store_dir::protocol::{
    self, Commit, Delete, DirIo, Durability, Error, Held, IoKind, Listing, Open, Opened, Poll, Set,
    Turn, TurnPoll,
};

#[wasm_bindgen]
extern "C" {
    /// The Node store's system calls on names in its directory, none following a
    /// symlink (js/stores/store-dir.js, `NodeDirIo`).
    pub type JsDirIo;
    /// `[fd, size, 1 when a regular file]`.
    #[wasm_bindgen(method, catch)]
    fn open(this: &JsDirIo, name: &str) -> Result<Vec<f64>, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readAt)]
    fn read_at(this: &JsDirIo, fd: f64, offset: f64, len: f64) -> Result<Vec<u8>, JsValue>;
    /// `"dev:ino"`.
    #[wasm_bindgen(method, catch, js_name = fileId)]
    fn file_id(this: &JsDirIo, fd: f64) -> Result<String, JsValue>;
    #[wasm_bindgen(method)]
    fn close(this: &JsDirIo, fd: f64);
    #[wasm_bindgen(method, catch)]
    fn stage(this: &JsDirIo, bytes: &[u8]) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch, js_name = syncFile)]
    fn sync_file(this: &JsDirIo, name: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = createExcl)]
    fn create_excl(this: &JsDirIo, name: &str, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn replace(this: &JsDirIo, name: &str, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, js_name = readSmall)]
    fn read_small(this: &JsDirIo, name: &str) -> Option<Vec<u8>>;
    #[wasm_bindgen(method, js_name = stillHolds)]
    fn still_holds(this: &JsDirIo, name: &str, token: &[u8]) -> bool;
    #[wasm_bindgen(method, catch)]
    fn exists(this: &JsDirIo, name: &str) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch, js_name = ageMs)]
    fn age_ms(this: &JsDirIo, name: &str) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn link(this: &JsDirIo, from: &str, to: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn rename(this: &JsDirIo, from: &str, to: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn unlink(this: &JsDirIo, name: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeDir)]
    fn remove_dir(this: &JsDirIo, name: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = syncDir)]
    fn sync_dir(this: &JsDirIo) -> Result<(), JsValue>;
    /// The directory's names, each followed by a NUL (no name holds one): one string
    /// crosses into the wasm at once, where an array of them crossed one by one,
    /// about 1.6 µs a name, and a store directory holds thousands.
    #[wasm_bindgen(method, catch)]
    fn list(this: &JsDirIo) -> Result<String, JsValue>;
    /// The store directory's own kind, one character as in `entries`.
    #[wasm_bindgen(method, catch, js_name = rootKind)]
    fn root_kind(this: &JsDirIo) -> Result<String, JsValue>;
    #[wasm_bindgen(method, catch, js_name = createRoot)]
    fn create_root(this: &JsDirIo) -> Result<(), JsValue>;
    /// Each entry of the directory (or of its subdirectory `sub`) as its kind, one
    /// character (`f` file, `d` directory, `l` symlink, `o` other), then its name,
    /// then a NUL, as `list`.
    #[wasm_bindgen(method, catch)]
    fn entries(this: &JsDirIo, sub: Option<String>) -> Result<String, JsValue>;
    #[wasm_bindgen(method)]
    fn unique(this: &JsDirIo) -> String;
    #[wasm_bindgen(method, js_name = nowMs)]
    fn now_ms(this: &JsDirIo) -> f64;
    #[wasm_bindgen(method)]
    fn alive(this: &JsDirIo, pid: u32) -> bool;
    /// What a thrown error means, by its `code`: `0` not found, `1` exists, `2` no
    /// more links, `3` a symlink refused, `4` the disk full, `5` denied, `7` not a
    /// directory, else other.
    #[wasm_bindgen(method, js_name = kindOf)]
    fn kind_of(this: &JsDirIo, e: &JsValue) -> u8;
}

/// The names of a `list` or `entries` answer: each ends with a NUL.
fn names(answer: &str) -> impl Iterator<Item = &str> {
    answer.split_terminator('\0')
}

/// The kind a `NodeDirIo` answer starts with.
fn entry_kind(answer: &str) -> EntryKind {
    match answer.as_bytes().first() {
        Some(b'f') => EntryKind::File,
        Some(b'd') => EntryKind::Dir,
        Some(b'l') => EntryKind::Symlink,
        _ => EntryKind::Other,
    }
}

/// A call's outcome, its error (as thrown) with what it means to the protocol.
fn wrap<T>(js: &JsDirIo, r: Result<T, JsValue>) -> Result<T, JsIoError> {
    r.map_err(|raw| error(js, raw))
}

/// A thrown error with what it means to the protocol (asked of `NodeDirIo.kindOf`).
#[inline(never)]
fn error(js: &JsDirIo, raw: JsValue) -> JsIoError {
    JsIoError {
        kind: match js.kind_of(&raw) {
            0 => IoKind::NotFound,
            1 => IoKind::Exists,
            2 => IoKind::NoLinks,
            3 => IoKind::Loop,
            4 => IoKind::Full,
            5 => IoKind::Denied,
            7 => IoKind::NotADirectory,
            _ => IoKind::Other,
        },
        raw,
    }
}

/// A system call's error as thrown, with what it means to the protocol.
pub(crate) struct JsIoError {
    kind: IoKind,
    raw: JsValue,
}

impl JsIoError {
    pub(crate) fn kind(&self) -> IoKind {
        self.kind
    }
}

struct JsIo {
    js: JsDirIo,
    pid: u32,
    host: String,
}

impl DirIo for JsIo {
    type File = f64;
    /// `"dev:ino"`, exact (from a bigint `fstat`).
    type Id = String;
    type Error = JsIoError;

    fn kind(e: &JsIoError) -> IoKind {
        e.kind
    }

    fn open(&mut self, name: &str) -> Result<Opened<f64>, JsIoError> {
        let o = wrap(&self.js, self.js.open(name))?;
        match o.as_slice() {
            [fd, size, regular] => Ok(Opened {
                file: *fd,
                size: *size as u64,
                regular: *regular != 0.0,
            }),
            _ => Err(JsIoError {
                kind: IoKind::Other,
                raw: js_sys::Error::new("open: a malformed answer").into(),
            }),
        }
    }

    fn read_at(&mut self, f: &f64, offset: u64, len: u64) -> Result<Vec<u8>, JsIoError> {
        wrap(&self.js, self.js.read_at(*f, offset as f64, len as f64))
    }

    fn file_id(&mut self, f: &f64) -> Result<String, JsIoError> {
        wrap(&self.js, self.js.file_id(*f))
    }

    fn close(&mut self, f: f64) {
        self.js.close(f);
    }

    fn stage(&mut self, bytes: &[u8]) -> Result<String, JsIoError> {
        wrap(&self.js, self.js.stage(bytes))
    }

    fn sync_file(&mut self, name: &str) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.sync_file(name))
    }

    fn create_excl(&mut self, name: &str, bytes: &[u8]) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.create_excl(name, bytes))
    }

    fn replace(&mut self, name: &str, bytes: &[u8]) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.replace(name, bytes))
    }

    fn read_small(&mut self, name: &str) -> Option<Vec<u8>> {
        self.js.read_small(name)
    }

    fn still_holds(&mut self, name: &str, token: &[u8]) -> bool {
        self.js.still_holds(name, token)
    }

    fn exists(&mut self, name: &str) -> Result<bool, JsIoError> {
        wrap(&self.js, self.js.exists(name))
    }

    fn age_ms(&mut self, name: &str) -> Result<u64, JsIoError> {
        Ok(wrap(&self.js, self.js.age_ms(name))?.max(0.0) as u64)
    }

    fn link(&mut self, from: &str, to: &str) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.link(from, to))
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.rename(from, to))
    }

    fn unlink(&mut self, name: &str) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.unlink(name))
    }

    fn remove_dir(&mut self, name: &str) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.remove_dir(name))
    }

    fn sync_dir(&mut self) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.sync_dir())
    }

    fn list(&mut self) -> Result<Vec<String>, JsIoError> {
        Ok(names(&wrap(&self.js, self.js.list())?)
            .map(String::from)
            .collect())
    }

    fn root_kind(&mut self) -> Result<EntryKind, JsIoError> {
        Ok(entry_kind(&wrap(&self.js, self.js.root_kind())?))
    }

    fn create_root(&mut self) -> Result<(), JsIoError> {
        wrap(&self.js, self.js.create_root())
    }

    fn entries(&mut self, sub: Option<&str>) -> Result<Vec<(String, EntryKind)>, JsIoError> {
        let entries = wrap(&self.js, self.js.entries(sub.map(String::from)))?;
        Ok(names(&entries)
            .map(|e| {
                let name = e.get(1..).unwrap_or_default();
                (String::from(name), entry_kind(e))
            })
            .collect())
    }

    /// Never called: Node leaves the old host layout, the one user of `flock`, to
    /// the host ([`Open::new`]).
    fn lock_file(&mut self, _: &f64) -> Result<(), JsIoError> {
        Err(JsIoError {
            kind: IoKind::Other,
            raw: js_sys::Error::new("Node has no flock").into(),
        })
    }

    fn unique(&mut self) -> String {
        self.js.unique()
    }

    fn now_ms(&mut self) -> u64 {
        self.js.now_ms().max(0.0) as u64
    }

    fn pid(&self) -> u32 {
        self.pid
    }

    fn host(&self) -> &str {
        &self.host
    }

    fn alive(&mut self, pid: u32) -> bool {
        self.js.alive(pid)
    }

    /// Never called: the JS driver waits with a timer ([`DirOp`]'s steps).
    fn sleep(&mut self, _: u64) {}
}

/// A protocol error as JS sees it: a system call's own error as it was thrown, a
/// lock not had in time as `UnavailableError`, a format problem as its text.
fn protocol_error(e: Error<JsIoError>) -> JsValue {
    match e {
        Error::Io(e) => e.raw,
        Error::Locked => {
            let err = js_sys::Error::new("the store stayed locked");
            err.set_name("UnavailableError");
            err.into()
        }
        Error::NotAFile => js_sys::Error::new("not a regular file").into(),
        Error::Damaged => js_error(DirError::DamagedFile),
        Error::Format(e) => js_error(e),
    }
}

/// What the JS driver and the native store both ask of the protocol.
impl Core {
    pub(crate) fn get(&mut self, key: &str) -> Result<Option<Vec<u8>>, Error<JsIoError>> {
        protocol::read_value(&mut self.io, key)
    }

    pub(crate) fn list(
        &mut self,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, Error<JsIoError>> {
        self.listing.page(&mut self.io, prefix, after, limit)
    }

    pub(crate) fn set(&self, key: &str, value: &[u8]) -> Result<Op, DirError> {
        Set::new(key, value, self.wait_ms, self.durability).map(Op::Set)
    }

    pub(crate) fn delete(&self, key: &str) -> Result<Op, DirError> {
        Delete::new(key, self.wait_ms, self.durability).map(Op::Delete)
    }

    pub(crate) fn commit(
        &mut self,
        objects: &[(&str, &[u8])],
        key: &str,
        expected: Option<&[u8]>,
        value: &[u8],
    ) -> Result<Op, Error<JsIoError>> {
        let (wait_ms, durability) = (self.wait_ms, self.durability);
        Commit::new(
            &mut self.io,
            objects,
            key,
            expected,
            value,
            wait_ms,
            durability,
        )
        .map(Op::Commit)
    }

    /// Runs `op` as far as it goes without waiting; `last`: how the step asked last
    /// went.
    pub(crate) fn step(
        &mut self,
        op: &mut Op,
        last: Result<(), JsIoError>,
    ) -> Poll<Result<bool, Error<JsIoError>>> {
        let io = &mut self.io;
        if matches!(op, Op::Set(_) | Op::Commit(_) | Op::Delete(_)) {
            // Each step of a change, its last included, lets the kept listing go:
            // a listing after the change shows it.
            self.listing.forget();
        }
        match op {
            Op::Open(o) => o
                .poll(io, last)
                .map(|r| r.map(|()| false).map_err(Error::from)),
            Op::Set(s) => set_step(s, io, last),
            Op::Commit(c) => commit_step(c, io, last),
            Op::Delete(d) => delete_step(d, io, last),
            Op::Turn(turn, held) => match turn.poll(io) {
                TurnPoll::Held(h) => {
                    *held = Some(h);
                    Poll::Ready(Ok(true))
                }
                TurnPoll::Wait(us) => Poll::Wait(us),
                TurnPoll::GaveUp => Poll::Ready(Ok(false)),
            },
        }
    }

    /// A failed step's error (as the driver caught it) for the next `step`.
    pub(crate) fn failure(&self, raw: JsValue) -> Result<(), JsIoError> {
        wrap(&self.io.js, Err(raw))
    }
}

// A change's steps, each its own function (`#[inline(never)]`): V8 compiles a wasm
// function on its first call, so a process that opens a store and reads compiles
// none of the writes' code, which inlined into `Core::step` it did (bench/cold).

#[inline(never)]
fn set_step(s: &mut Set, io: &mut JsIo, last: Result<(), JsIoError>) -> StepPoll {
    s.poll(io, last).map(|r| r.map(|()| false))
}

#[inline(never)]
fn commit_step(c: &mut Commit, io: &mut JsIo, last: Result<(), JsIoError>) -> StepPoll {
    c.poll(io, last)
}

#[inline(never)]
fn delete_step(
    d: &mut Delete<f64, String>,
    io: &mut JsIo,
    last: Result<(), JsIoError>,
) -> StepPoll {
    d.poll(io, last).map(|r| r.map(|()| false))
}

/// What a step of a change answers (see [`Core::step`]).
type StepPoll = Poll<Result<bool, Error<JsIoError>>>;

pub(crate) enum Op {
    Open(Open),
    Set(Set),
    Commit(Commit),
    Delete(Delete<f64, String>),
    Turn(Turn, Option<Held>),
}

/// A change in progress. [`DirProtocol::poll`] answers what it needs next: `0` it is
/// done (`swapped` says whether a compare-and-swap swapped), `1` wait `waitMs`, `2`
/// sync the file `syncName`, `3` sync the directory; then poll again, with the
/// error when that failed.
#[wasm_bindgen]
pub struct DirOp {
    op: Op,
    swapped: bool,
    wait_ms: f64,
    sync_name: String,
}

#[wasm_bindgen]
impl DirOp {
    #[wasm_bindgen(getter)]
    pub fn swapped(&self) -> bool {
        self.swapped
    }

    #[wasm_bindgen(getter, js_name = waitMs)]
    pub fn wait_ms(&self) -> f64 {
        self.wait_ms
    }

    #[wasm_bindgen(getter, js_name = syncName)]
    pub fn sync_name(&self) -> String {
        self.sync_name.clone()
    }
}

impl DirOp {
    fn new(op: Op) -> Self {
        DirOp {
            op,
            swapped: false,
            wait_ms: 0.0,
            sync_name: String::new(),
        }
    }
}

/// The protocol over one store directory's `NodeDirIo`, shared by the JS driver
/// (`DirProtocol`) and the engine's native store (`DirStore` (store.rs)).
pub(crate) struct Core {
    io: JsIo,
    wait_ms: u64,
    durability: Durability,
    listing: Listing,
}

/// The protocol over one store directory's `NodeDirIo`.
#[wasm_bindgen]
pub struct DirProtocol {
    pub(crate) core: Rc<RefCell<Core>>,
}

#[wasm_bindgen]
impl DirProtocol {
    /// `waitMs`: how long a change waits for a key's lock; `syncDirectory`: sync the
    /// directory after each change. Open the directory ([`DirProtocol::open`])
    /// before anything else.
    #[wasm_bindgen(constructor)]
    pub fn new(io: JsDirIo, pid: u32, host: String, wait_ms: f64, sync_directory: bool) -> Self {
        let core = Core {
            io: JsIo { js: io, pid, host },
            wait_ms: wait_ms.max(0.0) as u64,
            durability: Durability {
                around_swap: false,
                each_change: sync_directory,
            },
            listing: Listing::default(),
        };
        DirProtocol {
            core: Rc::new(RefCell::new(core)),
        }
    }

    /// Starts opening the directory ([`Open`]): created when missing, marked when
    /// new, refused with a `StoreDirectoryError` naming its problem when it is not
    /// a store this version opens (the old host layout included, which the host
    /// converts), with nothing written; the temporaries a crashed writer left long
    /// ago are swept. Polled like a change.
    pub fn open(&mut self) -> DirOp {
        DirOp::new(Op::Open(Open::new(false)))
    }

    /// Removes the temporary files older than `older_than_ms` (see
    /// `sweep_temporaries_older_than`): only in the directory's turn, after a
    /// re-encryption, for what the runs killed before it left.
    #[wasm_bindgen(js_name = sweepTemporaries)]
    pub fn sweep_temporaries(&mut self, older_than_ms: f64) -> Result<(), JsValue> {
        let mut core = self.core.borrow_mut();
        let names = core.io.list().map_err(|e| protocol_error(Error::Io(e)))?;
        memdir::store_dir::protocol::sweep_temporaries_older_than(
            &mut core.io,
            &names,
            older_than_ms.max(0.0) as u64,
        );
        Ok(())
    }

    /// The value of `key`, or undefined.
    pub fn get(&mut self, key: &str) -> Result<Option<Vec<u8>>, JsValue> {
        self.core.borrow_mut().get(key).map_err(protocol_error)
    }

    /// A page of keys (see [`format::list_keys`]).
    pub fn list(
        &mut self,
        prefix: &str,
        after: Option<String>,
        limit: u32,
    ) -> Result<Vec<String>, JsValue> {
        self.core
            .borrow_mut()
            .list(prefix, after.as_deref(), limit as usize)
            .map_err(protocol_error)
    }

    /// Starts taking the turn for a whole command, waiting at most `waitMs`: polled
    /// like a change, done with `swapped` true once had (give it back with
    /// `releaseTurn`), false when given up (the command runs without it).
    pub fn turn(&mut self, wait_ms: f64) -> DirOp {
        let turn = Turn::new(&mut self.core.borrow_mut().io, wait_ms.max(0.0) as u64);
        DirOp::new(Op::Turn(turn, None))
    }

    /// Gives the turn back (its lock removed only if it is still ours).
    #[wasm_bindgen(js_name = releaseTurn)]
    pub fn release_turn(&mut self, op: &mut DirOp) {
        if let Op::Turn(_, held) = &mut op.op
            && let Some(h) = held.take()
        {
            h.release(&mut self.core.borrow_mut().io);
        }
    }

    pub fn set(&mut self, key: &str, value: &[u8]) -> Result<DirOp, JsValue> {
        let op = self.core.borrow().set(key, value).map_err(js_error)?;
        Ok(DirOp::new(op))
    }

    pub fn delete(&mut self, key: &str) -> Result<DirOp, JsValue> {
        let op = self.core.borrow().delete(key).map_err(js_error)?;
        Ok(DirOp::new(op))
    }

    /// `objects`' keys, and their values one after the other in `values`, of
    /// `lengths` bytes each.
    pub fn commit(
        &mut self,
        keys: Vec<String>,
        lengths: Vec<u32>,
        values: &[u8],
        key: &str,
        expected: Option<Vec<u8>>,
        value: &[u8],
    ) -> Result<DirOp, JsValue> {
        let mut objects: Vec<(&str, &[u8])> = Vec::with_capacity(keys.len());
        let mut at = 0usize;
        for (k, len) in keys.iter().zip(lengths) {
            let end = at.saturating_add(len as usize);
            let v = values
                .get(at..end)
                .ok_or_else(|| js_error(DirError::ValueTooLarge))?;
            objects.push((k.as_str(), v));
            at = end;
        }
        let op = self
            .core
            .borrow_mut()
            .commit(&objects, key, expected.as_deref(), value)
            .map_err(protocol_error)?;
        Ok(DirOp::new(op))
    }

    /// Runs `op` as far as it goes: `0` done, `1` wait, `2` sync a file, `3` sync
    /// the directory (see [`DirOp`]); throws what made it fail. `failed` is the error
    /// of the step asked last, if it failed.
    pub fn poll(&mut self, op: &mut DirOp, failed: JsValue) -> Result<u8, JsValue> {
        let mut core = self.core.borrow_mut();
        let last = if failed.is_undefined() {
            Ok(())
        } else {
            core.failure(failed)
        };
        let step = core.step(&mut op.op, last);
        match step {
            Poll::Ready(r) => {
                op.swapped = r.map_err(protocol_error)?;
                Ok(0)
            }
            Poll::Wait(us) => {
                op.wait_ms = us as f64 / 1000.0;
                Ok(1)
            }
            Poll::SyncFile(name) => {
                op.sync_name = name;
                Ok(2)
            }
            Poll::SyncDir => Ok(3),
        }
    }
}
