//! The names this crate hands IndexedDB (the object stores, the index, a
//! transaction's scope, a pack record's fields): the schema's names, decided here,
//! and made into JS strings once for every operation.
//!
//! A `&str` crossing into JS is decoded from wasm memory by a `TextDecoder` each
//! time, about a microsecond in Chromium; a warm view crossed six such names (and
//! a write a dozen) before the one it needs, its key. These are made on first use
//! and kept for the page's life: a handful of short strings.

use js_sys::Array;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{IdbIndex, IdbObjectStore, IdbTransaction};

/// The object store of single keys: string keys, `Uint8Array` values. Heads (every
/// compare-and-swap) and `set`s live here, and so does every object written by a
/// build before packs (version 1), which stays readable.
pub(crate) const OBJECTS: &str = "kv";

/// The object store of packs: one record per commit, `{keys, pack}`, holding all of
/// the commit's new objects (see `packs`), under a key IndexedDB numbers.
pub(crate) const PACKS: &str = "packs";

/// The multi-entry index of [`PACKS`] on each record's `keys`: which pack holds a key.
pub(crate) const PACKED_KEYS: &str = "keys";

/// A pack record's field of pack bytes; its field of keys is the index's key path,
/// [`PACKED_KEYS`] (see `packs`).
pub(crate) const PACK: &str = "pack";

pub(crate) struct Names {
    pub(crate) kv: JsValue,
    pub(crate) packs: JsValue,
    /// The index's name, and the pack record's field of keys (its key path).
    pub(crate) keys: JsValue,
    /// The pack record's field of pack bytes.
    pub(crate) pack: JsValue,
    /// Every transaction's scope: both object stores.
    pub(crate) scope: Array,
}

thread_local! {
    static NAMES: Names = {
        let (kv, packs) = (JsValue::from_str(OBJECTS), JsValue::from_str(PACKS));
        Names {
            scope: Array::of2(&kv, &packs),
            kv,
            packs,
            keys: JsValue::from_str(PACKED_KEYS),
            pack: JsValue::from_str(PACK),
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
