//! The browser's native store: a memory in IndexedDB, run from Rust (`memdir-idb`),
//! so no store operation crosses into JS glue written by hand.

use alloc::string::String;

use memdir_idb::IdbStore;
use wasm_bindgen::prelude::*;

use crate::StoreHandle;
use crate::any_store::Backend;

/// A memory kept in IndexedDB database `memdir:{name}` of this origin. The database
/// opens on the first command; when IndexedDB is unavailable (private mode, storage
/// disabled) or full, commands answer with the memory directory's storage message.
/// Every tab that opens the same name shares the memory without losing writes.
#[wasm_bindgen(js_name = indexedDbStore)]
pub fn indexed_db_store(name: String) -> StoreHandle {
    StoreHandle::new(Backend::Idb(IdbStore::new(&name)).into())
}
