//! The store-directory format's rules ([`memdir::store_dir`]) for the Node
//! directory store (`js/stores/directory.js`), which does the system calls and asks
//! these what a name or a listing means; its reads and changes run the protocol
//! shared with the host (see store_dir_protocol.rs).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use memdir::store_dir::{self as format, DirError, EntryKind};
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

/// The format's names and times the Node store uses itself: `{format, markerText,
/// tmpPrefix, turnLock, turnWaitMs, lockWaitMs}` (the rest is the protocol's).
#[wasm_bindgen(js_name = storeDirRules)]
pub fn store_dir_rules() -> JsValue {
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
    };
    set("format", format::FORMAT.into());
    set("markerText", format::MARKER_TEXT.into());
    set("tmpPrefix", format::TMP_PREFIX.into());
    set("turnLock", format::TURN_LOCK.into());
    set("turnWaitMs", JsValue::from_f64(format::TURN_WAIT_MS as f64));
    set("lockWaitMs", JsValue::from_f64(format::LOCK_WAIT_MS as f64));
    o.into()
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

/// What a directory is (`"empty"`, `"current"`, `"old-flat"`, `"old-host"`) from
/// its entries' names and kinds (`f` file, `d` directory, `l` symlink, `o` other,
/// one character each); throws a `StoreDirectoryError` for one to refuse.
#[wasm_bindgen(js_name = storeDirClassify)]
pub fn store_dir_classify(names: Vec<String>, kinds: &str) -> Result<String, JsValue> {
    let kinds = kinds.bytes().map(|k| match k {
        b'f' => EntryKind::File,
        b'd' => EntryKind::Dir,
        b'l' => EntryKind::Symlink,
        _ => EntryKind::Other,
    });
    format::classify(names.iter().map(String::as_str).zip(kinds))
        .map(|l| l.as_str().into())
        .map_err(js_error)
}

/// Throws a `StoreDirectoryError` unless the marker's bytes name this format in a
/// version this build reads.
#[wasm_bindgen(js_name = storeDirCheckMarker)]
pub fn store_dir_check_marker(bytes: &[u8]) -> Result<(), JsValue> {
    format::marker_verdict(bytes).map_err(js_error)
}

/// Throws the error for a problem the JS side found itself (`"not-a-directory"`,
/// `"symlink"`, `"unreadable"`, `"old-host"`, `"io"`, `"damaged-marker"`, `"damaged-file"`), so its
/// text is the same as the host's.
#[wasm_bindgen(js_name = storeDirError)]
pub fn store_dir_error(problem: &str) -> JsValue {
    js_error(match problem {
        "not-a-directory" => DirError::NotADirectory,
        "symlink" => DirError::Symlink,
        "unreadable" => DirError::Unreadable,
        "old-host" => DirError::OldHostLayout,
        "damaged-marker" => DirError::DamagedMarker,
        "damaged-file" => DirError::DamagedFile,
        _ => DirError::Io,
    })
}
