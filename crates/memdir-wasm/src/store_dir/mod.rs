//! The Node directory store (`js/stores/store-dir.js`) over the store-directory
//! format ([`memdir::store_dir`]): here its names and times, a key's file name,
//! the keys of a listing, and the format's errors as JS sees them; in
//! `protocol.rs` its reads and changes, run by the protocol shared with the host;
//! in `store.rs` the directory as the engine's own store.

pub(crate) mod protocol;
pub(crate) mod store;

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use memdir::DirError;
use memdir::config;
use memdir::store_dir as format;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A format error as a JS `Error` whose message is the text and whose `name` is
/// `StoreDirectoryError` (a damaged file or a key too long for a name: `Error`).
pub(crate) fn js_error(e: DirError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    if !matches!(
        e,
        DirError::DamagedFile | DirError::KeyTooLong | DirError::ValueTooLarge
    ) {
        err.set_name("StoreDirectoryError");
    }
    err.into()
}

/// The format's names, times, page and lock spares the Node store uses itself:
/// `{tmpPrefix, turnLock, turnWaitMs, lockWaitMs, listPage, lockSpares,
/// lockSpareDirs, stageSpares, stageSpareMaxAgeMs}` (the rest is the protocol's).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rules {
    tmp_prefix: &'static str,
    turn_lock: &'static str,
    turn_wait_ms: u64,
    lock_wait_ms: u64,
    list_page: usize,
    lock_spares: usize,
    lock_spare_dirs: usize,
    stage_spares: usize,
    stage_spare_max_age_ms: u64,
}

#[wasm_bindgen(js_name = storeDirRules)]
pub fn store_dir_rules() -> Result<JsValue, JsValue> {
    crate::to_js::to_js(&Rules {
        tmp_prefix: format::TMP_PREFIX,
        turn_lock: format::TURN_LOCK,
        turn_wait_ms: config::TURN_WAIT_MS,
        lock_wait_ms: config::LOCK_WAIT_MS,
        list_page: config::STORE_DIR_PAGE,
        lock_spares: config::LOCK_SPARES,
        lock_spare_dirs: config::LOCK_SPARE_DIRS,
        stage_spares: config::STAGE_SPARES,
        stage_spare_max_age_ms: config::STAGE_SPARE_MAX_AGE_MS,
    })
}

/// The file name of `key`; throws when the key is too long for one.
#[wasm_bindgen(js_name = storeDirFileName)]
pub fn store_dir_file_name(key: &str) -> Result<String, JsValue> {
    format::file_name(key).map_err(js_error)
}

/// The keys among a directory's names that start with `prefix`, strictly after
/// `after`, ascending by bytes, at most `limit`.
#[wasm_bindgen(js_name = storeDirListKeys)]
pub fn store_dir_list_keys(
    names: Vec<String>,
    prefix: &str,
    after: Option<String>,
    limit: u32,
) -> Vec<String> {
    format::list_keys(
        names.iter().map(String::as_str),
        prefix,
        after.as_deref(),
        limit as usize,
    )
}
