//! The names this crate hands IndexedDB on every operation (the object stores, the
//! index, a transaction's scope, a pack record's fields), made into JS strings once,
//! and the event handlers every operation shares (see `events`).
//!
//! A `&str` crossing into JS is decoded from wasm memory by a `TextDecoder` each
//! time, about a microsecond in Chromium; a warm view crossed six such names (and
//! a write a dozen) before the one it needs, its key. These are made on first use
//! and kept for the page's life: a handful of short strings.

use js_sys::Array;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbIndex, IdbObjectStore, IdbTransaction};

use crate::connection::{OBJECTS, PACKED_KEYS, PACKS};
use crate::events::Handlers;

pub(crate) struct Names {
    pub(crate) kv: JsValue,
    pub(crate) packs: JsValue,
    /// The index's name, and the pack record's field of keys (its key path).
    pub(crate) keys: JsValue,
    /// The pack record's field of pack bytes.
    pub(crate) pack: JsValue,
    /// Every transaction's scope: both object stores.
    pub(crate) scope: Array,
    /// The handlers every awaited request and transaction shares (see `events`).
    pub(crate) handlers: Handlers,
}

thread_local! {
    static NAMES: Names = {
        let (kv, packs) = (JsValue::from_str(OBJECTS), JsValue::from_str(PACKS));
        Names {
            scope: [kv.clone(), packs.clone()].into_iter().collect(),
            kv,
            packs,
            keys: JsValue::from_str(PACKED_KEYS),
            pack: JsValue::from_str(crate::packs::PACK),
            handlers: Handlers::new(),
        }
    };
}

pub(crate) fn with<T>(f: impl FnOnce(&Names) -> T) -> T {
    NAMES.with(f)
}

#[wasm_bindgen]
extern "C" {
    // web-sys's `objectStore` and `index` take a `&str`, decoded on every call;
    // these are the same two methods taking a string already in JS.
    type Transaction;
    #[wasm_bindgen(method, catch, js_name = objectStore)]
    fn object_store(this: &Transaction, name: &JsValue) -> Result<IdbObjectStore, JsValue>;
    type ObjectStore;
    #[wasm_bindgen(method, catch)]
    fn index(this: &ObjectStore, name: &JsValue) -> Result<IdbIndex, JsValue>;
}

/// `tx.objectStore(name)`, the name one of [`Names`].
pub(crate) fn object_store(
    tx: &IdbTransaction,
    name: impl FnOnce(&Names) -> &JsValue,
) -> Result<IdbObjectStore, JsValue> {
    with(|n| tx.unchecked_ref::<Transaction>().object_store(name(n)))
}

/// `store.index(name)`, the name one of [`Names`].
pub(crate) fn index(
    store: &IdbObjectStore,
    name: impl FnOnce(&Names) -> &JsValue,
) -> Result<IdbIndex, JsValue> {
    with(|n| store.unchecked_ref::<ObjectStore>().index(name(n)))
}
