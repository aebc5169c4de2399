//! The Node directory store as the engine's own store: the protocol in this wasm
//! instance is called directly, as the host calls it, instead of through the JS
//! store protocol and back. A read is a few synchronous system calls with no
//! promise; a change runs its steps here and hands only what must not block the
//! event loop (a lock wait, an fsync) to the JS driver, as `DirectoryStore` does
//! for its own calls. Not in the browser's build, which has no directory store.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use js_sys::Promise;
use memdir::config::MAX_VALUE_BYTES;
use memdir::config::{STORE_DIR_PAGE, STORE_DIR_SLICE_MS};
use memdir::store_dir::protocol::{Error, IoKind, Poll};
use memdir::{Page, Store, StoreError};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::protocol::{Core, JsIoError, Op};

#[wasm_bindgen]
extern "C" {
    /// What a change waits on, off the event loop (js/stores/store-dir.js).
    #[derive(Clone)]
    pub type JsDriver;
    #[wasm_bindgen(method)]
    fn wait(this: &JsDriver, ms: f64) -> Promise;
    #[wasm_bindgen(method, js_name = syncFile)]
    fn sync_file(this: &JsDriver, name: &str) -> Promise;
    #[wasm_bindgen(method, js_name = syncDir)]
    fn sync_dir(this: &JsDriver) -> Promise;
    /// How long the event loop has been held since it last turned, in milliseconds.
    #[wasm_bindgen(method, js_name = heldMs)]
    fn held_ms(this: &JsDriver) -> f64;
    /// Resolves once the event loop has turned.
    #[wasm_bindgen(method)]
    fn breathe(this: &JsDriver) -> Promise;
}

#[derive(Clone)]
pub struct DirStore {
    core: Rc<RefCell<Core>>,
    driver: JsDriver,
}

impl DirStore {
    pub(crate) fn new(core: Rc<RefCell<Core>>, driver: JsDriver) -> Self {
        DirStore { core, driver }
    }

    /// Lets the event loop turn once this run of calls has held it for
    /// [`STORE_DIR_SLICE_MS`]: every call is synchronous system calls, so a long
    /// pass would hold up every other request. Only between calls, where this
    /// store holds no key's lock. A command's few calls never get this far.
    async fn breathe(&self) {
        if self.driver.held_ms() > STORE_DIR_SLICE_MS as f64 {
            let _ = JsFuture::from(self.driver.breathe()).await;
        }
    }

    /// Runs a change to its end: its steps here, its waits in the driver.
    async fn drive(&self, mut op: Op) -> Result<bool, StoreError> {
        let mut last = Ok(());
        loop {
            // The borrow ends before any wait: other commands may use the protocol.
            let step = self.core.borrow_mut().step(&mut op, last);
            let waited = match step {
                Poll::Ready(r) => return r.map_err(store_error),
                Poll::Wait(us) => self.driver.wait(us as f64 / 1000.0),
                Poll::SyncFile(name) => self.driver.sync_file(&name),
                Poll::SyncDir => self.driver.sync_dir(),
            };
            last = match JsFuture::from(waited).await {
                Ok(_) => Ok(()),
                Err(raw) => self.core.borrow().failure(raw),
            };
        }
    }
}

/// A protocol failure as the engine's kinds: a full disk, a lock not had in time,
/// anything else (its text stays out of every answer).
fn store_error(e: Error<JsIoError>) -> StoreError {
    match e {
        Error::Io(e) if e.kind() == IoKind::Full => StoreError::QuotaExceeded,
        Error::Locked => StoreError::Unavailable,
        _ => StoreError::Failed,
    }
}

impl Store for DirStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.breathe().await;
        let value = self.core.borrow_mut().get(key).map_err(store_error)?;
        // What a directory hands back is input: no value past the contract's bound.
        match value {
            Some(v) if v.len() > MAX_VALUE_BYTES => Err(StoreError::Failed),
            v => Ok(v),
        }
    }

    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.breathe().await;
        let op = self
            .core
            .borrow()
            .set(key, value)
            .map_err(|_| StoreError::Failed)?;
        self.drive(op).await.map(|_| ())
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.breathe().await;
        let op = self
            .core
            .borrow()
            .delete(key)
            .map_err(|_| StoreError::Failed)?;
        self.drive(op).await.map(|_| ())
    }

    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.breathe().await;
        let keys = self
            .core
            .borrow_mut()
            .list(prefix, cursor, STORE_DIR_PAGE + 1)
            .map_err(store_error)?;
        Ok(Page::of(keys, STORE_DIR_PAGE))
    }

    async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.commit(&[], key, expected, new).await
    }

    async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        self.breathe().await;
        let objects: Vec<(&str, &[u8])> = objects.iter().map(|(k, v)| (k.as_str(), &**v)).collect();
        let op = self
            .core
            .borrow_mut()
            .commit(&objects, key, expected, new)
            .map_err(store_error)?;
        self.drive(op).await
    }
}
