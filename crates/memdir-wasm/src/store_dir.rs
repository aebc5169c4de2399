//! The store-directory format's rules ([`memdir::store_dir`]) for the Node
//! directory store (`js/stores/directory.js`), which does the system calls and asks
//! these what a name, a file or a listing means. Values never cross: a pack's index
//! is made and read here, its value bytes stay in JS.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use memdir::store_dir::{self as format, DirError, EntryKind, Locate, Mates};
use wasm_bindgen::prelude::*;

/// A format error as a JS `Error` whose message is the text and whose `name` is
/// `StoreDirectoryError` (a damaged file or a key too long for a name: `Error`).
fn js_error(e: DirError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    if !matches!(
        e,
        DirError::DamagedFile | DirError::KeyTooLong | DirError::ValueTooLarge
    ) {
        err.set_name("StoreDirectoryError");
    }
    err.into()
}

/// The format's names and times: `{format, markerText, tmpPrefix, lockPrefix,
/// turnLock, turnWant, wantFreshMs, turnPollMs, turnWaitMs, lockWaitMs, lockStaleMs,
/// tmpStaleMs}`.
#[wasm_bindgen(js_name = storeDirRules)]
pub fn store_dir_rules() -> JsValue {
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
    };
    set("format", format::FORMAT.into());
    set("markerText", format::MARKER_TEXT.into());
    set("tmpPrefix", format::TMP_PREFIX.into());
    set("lockPrefix", format::LOCK_PREFIX.into());
    set("turnLock", format::TURN_LOCK.into());
    set("turnWant", format::TURN_WANT.into());
    set(
        "wantFreshMs",
        JsValue::from_f64(format::WANT_FRESH_MS as f64),
    );
    set("turnPollMs", JsValue::from_f64(format::TURN_POLL_MS as f64));
    set("turnWaitMs", JsValue::from_f64(format::TURN_WAIT_MS as f64));
    set("lockWaitMs", JsValue::from_f64(format::LOCK_WAIT_MS as f64));
    set(
        "lockStaleMs",
        JsValue::from_f64(format::LOCK_STALE_MS as f64),
    );
    set("tmpStaleMs", JsValue::from_f64(format::TMP_STALE_MS as f64));
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

/// The index of a pack holding `keys` with values of `lengths` bytes; the values
/// follow it in the same order.
#[wasm_bindgen(js_name = storeDirPackIndex)]
pub fn store_dir_pack_index(keys: Vec<String>, lengths: Vec<f64>) -> Result<Vec<u8>, JsValue> {
    format::pack_index(
        keys.iter()
            .map(String::as_str)
            .zip(lengths.iter().map(|l| *l as u64)),
    )
    .map_err(js_error)
}

/// Where `key`'s value lies in a pack of `size` bytes whose first bytes are `head`:
/// `[offset, length]`, or `[n]` to read the first `n` bytes and ask again; throws
/// when the pack is damaged.
#[wasm_bindgen(js_name = storeDirLocate)]
pub fn store_dir_locate(head: &[u8], size: f64, key: &str) -> Result<Vec<f64>, JsValue> {
    match format::locate(head, size as u64, key).map_err(js_error)? {
        Locate::Need(n) => Ok(alloc::vec![n as f64]),
        Locate::Found { offset, len } => Ok(alloc::vec![offset as f64, len as f64]),
    }
}

/// The other keys of a pack of `size` bytes whose first bytes are `head`, when it
/// holds `key` (what a delete of `key` rewrites first, see [`format::mates`]): an
/// array of keys, or a number `n` to read the first `n` bytes and ask again;
/// throws when the pack is damaged.
#[wasm_bindgen(js_name = storeDirMates)]
pub fn store_dir_mates(head: &[u8], size: f64, key: &str) -> Result<JsValue, JsValue> {
    match format::mates(head, size as u64, key).map_err(js_error)? {
        Mates::Need(n) => Ok(JsValue::from_f64(n as f64)),
        Mates::Keys(keys) => Ok(keys
            .iter()
            .map(|k| JsValue::from_str(k))
            .collect::<js_sys::Array>()
            .into()),
    }
}

/// A lock's token for this process.
#[wasm_bindgen(js_name = storeDirLockToken)]
pub fn store_dir_lock_token(pid: u32, host: &str, unique: &str) -> String {
    format::lock_token(pid, host, unique)
}

/// Whether a lock may be broken (see [`format::lock_is_stale`]): `token` is
/// undefined when the lock could not be read; `alive(pid)` says whether a process
/// of this host still runs.
#[wasm_bindgen(js_name = storeDirLockIsStale)]
pub fn store_dir_lock_is_stale(
    token: Option<String>,
    age_ms: f64,
    host: &str,
    pid: u32,
    alive: &js_sys::Function,
) -> bool {
    let alive = |owner: u32| {
        alive
            .call1(&JsValue::UNDEFINED, &JsValue::from_f64(f64::from(owner)))
            .map_or(true, |v| v.is_truthy())
    };
    format::lock_is_stale(token.as_deref(), age_ms.max(0.0) as u64, host, pid, alive)
}
