//! One record per commit: a command's new objects as ONE pack in object store
//! `packs`, found by key through the multi-entry index `keys`.
//!
//! IndexedDB's cost is per record (each put is a request, a structured clone and a
//! database write), so the 9–11 objects a command makes (blob, tree nodes, version
//! log, commit) cost about 10 times one record. Like the directory store, which
//! writes a command's objects as one pack file hard-linked under every key
//! (`memdir::store_dir`), a commit here writes one record `{keys, pack}`: `pack`
//! is the directory store's pack format (`memdir::store_dir::pack`, an index then
//! the values), `keys` its keys, and the index on `keys` plays the hard links.
//!
//! A read asks `kv` and the index in the same transaction; a value is read out of
//! its pack without copying the other values into wasm memory. A delete rewrites
//! every pack holding the key without it (or deletes a pack left empty) in the
//! transaction that deletes the key from `kv`, so no byte of a deleted value stays
//! in any record. A key packed twice (another tab stored the same object first)
//! is the same content-addressed bytes in both; the index finds both and a delete
//! rewrites both.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Object, Reflect, Uint8Array};
use memdir::StoreError;
use memdir::store_dir::{Locate, locate, pack, pack_value};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, IdbCursor, IdbCursorWithValue, IdbIndex, IdbRequest, IdbTransaction};

/// How much of a pack a read copies first to find its key in the pack's index
/// (then exactly what the index says it needs).
const FIRST_READ: u32 = 4096;

/// The most bytes of values one pack record holds (a single larger value is a pack
/// of its own). A delete rewrites the whole pack holding its key, so this bounds
/// what one delete copies: gc collecting the objects of a 10,000-file import one by
/// one would otherwise rewrite that import's one pack once per object. A command's
/// few objects (tens of KiB) stay one record.
pub const PACK_MAX_BYTES: usize = 256 * 1024;

/// The records for `objects` (each key once, the first value kept): one pack of
/// them, or several of at most `PACK_MAX_BYTES` of values each, in their order;
/// none when there is nothing to pack.
pub(crate) fn records(objects: &[(&str, &[u8])]) -> Result<Vec<JsValue>, StoreError> {
    let first = firsts(objects.iter().map(|&(k, _)| k));
    let mut out = Vec::new();
    let mut chunk: Vec<(&str, &[u8])> = Vec::new();
    let mut held = 0usize;
    for (&(k, v), first) in objects.iter().zip(first) {
        if !first {
            continue;
        }
        if !chunk.is_empty() && held.saturating_add(v.len()) > PACK_MAX_BYTES {
            out.push(record(&chunk)?);
            chunk.clear();
            held = 0;
        }
        chunk.push((k, v));
        held = held.saturating_add(v.len());
    }
    if !chunk.is_empty() {
        out.push(record(&chunk)?);
    }
    Ok(out)
}

/// For each of `keys`, whether it is the first with its name: one sort, where a
/// scan of the keys kept was quadratic (an import packs thousands of objects).
fn firsts<'a>(keys: impl Iterator<Item = &'a str>) -> Vec<bool> {
    let mut order: Vec<(&str, usize)> = keys.enumerate().map(|(i, k)| (k, i)).collect();
    let mut first = vec![false; order.len()];
    order.sort_unstable();
    let mut last: Option<&str> = None;
    for (k, i) in order {
        if last != Some(k) {
            if let Some(f) = first.get_mut(i) {
                *f = true;
            }
            last = Some(k);
        }
    }
    first
}

/// One pack record `{keys, pack}` of `objects` (distinct keys).
fn record(objects: &[(&str, &[u8])]) -> Result<JsValue, StoreError> {
    let bytes = pack(objects).map_err(|_| StoreError::Failed)?;
    let keys: Array = objects.iter().map(|(k, _)| JsValue::from_str(k)).collect();
    let out = Object::new();
    crate::names::with(|n| {
        Reflect::set(&out, &n.keys, &keys)?;
        Reflect::set(&out, &n.pack, &Uint8Array::from(&bytes[..]))
    })
    .map_err(|e| crate::errors::from_js(&e))?;
    Ok(out.into())
}

/// The pack bytes of a record, or `Failed` for anything that is not ours.
fn pack_of(record: &JsValue) -> Result<Uint8Array, StoreError> {
    crate::names::with(|n| Reflect::get(record, &n.pack))
        .ok()
        .and_then(|p| p.dyn_into::<Uint8Array>().ok())
        .ok_or(StoreError::Failed)
}

/// `key`'s value in pack record `record`, copying into wasm memory only the pack's
/// index and that value. A pack that does not hold the key is damaged: `Failed`.
pub(crate) fn value_in(record: &JsValue, key: &str) -> Result<Vec<u8>, StoreError> {
    let bytes = pack_of(record)?;
    let size = bytes.length();
    let mut head = bytes.subarray(0, size.min(FIRST_READ)).to_vec();
    loop {
        match locate(&head, u64::from(size), key).map_err(|_| StoreError::Failed)? {
            Locate::Found { offset, len } => {
                let start = u32::try_from(offset).map_err(|_| StoreError::Failed)?;
                let end = u32::try_from(offset + len).map_err(|_| StoreError::Failed)?;
                return Ok(bytes.subarray(start, end).to_vec());
            }
            // `locate` asks for more than it has each time and never past the pack
            // (nor past MAX_VALUE_BYTES), so this loop ends.
            Locate::Need(n) => {
                let n = u32::try_from(n).map_err(|_| StoreError::Failed)?;
                if n as usize <= head.len() {
                    return Err(StoreError::Failed);
                }
                head = bytes.subarray(0, n.min(size)).to_vec();
            }
        }
    }
}

/// The record `record` without `key`: `None` when nothing else is left in it.
fn without(old: &JsValue, key: &str) -> Result<Option<JsValue>, StoreError> {
    let keys = crate::names::with(|n| Reflect::get(old, &n.keys))
        .ok()
        .and_then(|k| k.dyn_into::<Array>().ok())
        .ok_or(StoreError::Failed)?;
    let bytes = pack_of(old)?.to_vec();
    let names = keys
        .iter()
        .map(|k| k.as_string().ok_or(StoreError::Failed))
        .collect::<Result<Vec<String>, StoreError>>()?;
    let first = firsts(names.iter().map(String::as_str));
    let mut kept: Vec<(&str, &[u8])> = Vec::new();
    for (k, first) in names.iter().zip(first) {
        if k == key || !first {
            continue;
        }
        kept.push((k, pack_value(&bytes, k).map_err(|_| StoreError::Failed)?));
    }
    if kept.is_empty() {
        return Ok(None);
    }
    record(&kept).map(Some)
}

/// The cursor a cursor request's `success` event carries; `None` at the end.
fn cursor_of<C: JsCast>(event: &Event) -> Option<C> {
    event
        .target()
        .and_then(|t| t.dyn_into::<IdbRequest>().ok())
        .and_then(|r| r.result().ok())
        .and_then(|c| c.dyn_into::<C>().ok())
}

/// A cursor walk placed in a transaction: its handler runs in each `success` event
/// (so the transaction is still active for the requests it places) until the walk
/// ends; what went wrong is kept for after the transaction settles.
pub(crate) struct Walk {
    request: IdbRequest,
    failed: Rc<RefCell<Option<StoreError>>>,
    _on_success: Closure<dyn FnMut(Event)>,
}

impl Walk {
    pub(crate) fn failed(&self) -> Option<StoreError> {
        *self.failed.borrow()
    }
}

impl Drop for Walk {
    fn drop(&mut self) {
        self.request.set_onsuccess(None);
    }
}

/// Places, in readwrite `tx`, the rewrite of every pack holding `key`: each is put
/// back without `key`'s value, or deleted when that was its only key. A pack we
/// cannot read aborts the transaction (the delete with it) as `Failed`.
pub(crate) fn place_unpack(
    index: &IdbIndex,
    tx: &IdbTransaction,
    key: &str,
) -> Result<Walk, JsValue> {
    let request = index.open_cursor_with_range(&JsValue::from_str(key))?;
    let failed = Rc::new(RefCell::new(None));
    let (seen, tx, key) = (Rc::clone(&failed), tx.clone(), key.to_string());
    let on_success = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        let Some(cursor) = cursor_of::<IdbCursorWithValue>(&event) else {
            return;
        };
        let rewritten = cursor
            .value()
            .map_err(|e| crate::errors::from_js(&e))
            .and_then(|record| without(&record, &key))
            .and_then(|next| {
                match next {
                    Some(next) => cursor.update(&next).map(drop),
                    None => cursor.delete().map(drop),
                }
                .map_err(|e| crate::errors::from_js(&e))
            })
            .and_then(|()| cursor.continue_().map_err(|e| crate::errors::from_js(&e)));
        if let Err(e) = rewritten {
            *seen.borrow_mut() = Some(e);
            let _ = tx.abort();
        }
    });
    request.set_onsuccess(Some(on_success.as_ref().unchecked_ref()));
    Ok(Walk {
        request,
        failed,
        _on_success: on_success,
    })
}

/// Places, in `tx`, a walk over the index's keys in `range` that keeps the first
/// `limit` distinct ones (ascending) in `into`. A key that is not a string is not
/// ours: the walk stops and reports `Failed`.
pub(crate) fn place_keys(
    index: &IdbIndex,
    range: &JsValue,
    limit: usize,
    into: Rc<RefCell<Vec<String>>>,
) -> Result<Walk, JsValue> {
    let request = index.open_key_cursor_with_range(range)?;
    let failed = Rc::new(RefCell::new(None));
    let seen = Rc::clone(&failed);
    let on_success = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        let Some(cursor) = cursor_of::<IdbCursor>(&event) else {
            return;
        };
        let Some(k) = cursor.key().ok().and_then(|k| k.as_string()) else {
            *seen.borrow_mut() = Some(StoreError::Failed);
            return;
        };
        let full = {
            let mut keys = into.borrow_mut();
            // The index yields a key once per pack holding it, adjacent.
            if keys.last() != Some(&k) {
                keys.push(k);
            }
            keys.len() >= limit
        };
        if !full && cursor.continue_().is_err() {
            *seen.borrow_mut() = Some(StoreError::Failed);
        }
    });
    request.set_onsuccess(Some(on_success.as_ref().unchecked_ref()));
    Ok(Walk {
        request,
        failed,
        _on_success: on_success,
    })
}
