//! A store written in JavaScript, called through the JS store protocol:
//! `get/set/delete/list/compareAndSwap` and an optional `commit`, all async; and,
//! for a store that searches vectors itself (the PostgreSQL store with pgvector),
//! an optional `nearest` with a `searchesVectors` flag.
//!
//! Whatever the JS side does wrong (throws, rejects, returns the wrong type, pages
//! backwards) becomes a `StoreError` here, never a panic and never the JS error's
//! text: the engine turns the kind into one fixed sentence for the model.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use js_sys::{Array, Float32Array, Function, Promise, Reflect, Uint8Array};
use memdir::{Page, StoreError};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

#[derive(Clone)]
pub struct JsStore {
    this: JsValue,
    get: Function,
    set: Function,
    delete: Function,
    list: Function,
    compare_and_swap: Function,
    commit: Option<Function>,
    nearest: Option<Function>,
}

/// The methods a JS store must have, by their JS names, for error messages.
const REQUIRED: [&str; 5] = ["get", "set", "delete", "list", "compareAndSwap"];

impl JsStore {
    /// Takes the store's methods once (so a store cannot swap them mid-command) or
    /// says which one is missing.
    pub fn new(obj: JsValue) -> Result<JsStore, String> {
        if !obj.is_object() && !obj.is_function() {
            return Err(String::from(
                "a store must be an object with async get, set, delete, list and compareAndSwap methods",
            ));
        }
        let method = |name: &str| -> Result<Option<Function>, String> {
            let value = Reflect::get(&obj, &JsValue::from_str(name))
                .map_err(|_| alloc::format!("reading the store's {name} method threw"))?;
            if value.is_undefined() || value.is_null() {
                return Ok(None);
            }
            value
                .dyn_into::<Function>()
                .map(Some)
                .map_err(|_| alloc::format!("the store's {name} must be a function"))
        };
        let mut found: Vec<Function> = Vec::with_capacity(REQUIRED.len());
        for name in REQUIRED {
            match method(name)? {
                Some(f) => found.push(f),
                None => return Err(alloc::format!("the store has no {name} method")),
            }
        }
        let commit = method("commit")?;
        let nearest = method("nearest")?;
        let mut it = found.into_iter();
        match (it.next(), it.next(), it.next(), it.next(), it.next()) {
            (Some(get), Some(set), Some(delete), Some(list), Some(compare_and_swap)) => {
                Ok(JsStore {
                    this: obj,
                    get,
                    set,
                    delete,
                    list,
                    compare_and_swap,
                    commit,
                    nearest,
                })
            }
            _ => Err(String::from("the store is missing a method")),
        }
    }

    pub async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let v = settle(self.get.call1(&self.this, &JsValue::from_str(key))).await?;
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        bytes(&v).map(Some)
    }

    pub async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        settle(self.set.call2(
            &self.this,
            &JsValue::from_str(key),
            &Uint8Array::from(value),
        ))
        .await?;
        Ok(())
    }

    pub async fn delete(&self, key: &str) -> Result<(), StoreError> {
        settle(self.delete.call1(&self.this, &JsValue::from_str(key))).await?;
        Ok(())
    }

    pub async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        let c = cursor.map_or(JsValue::UNDEFINED, JsValue::from_str);
        let v = settle(self.list.call2(&self.this, &JsValue::from_str(prefix), &c)).await?;
        let page = checked_page(&v, prefix, cursor)?;
        Ok(page)
    }

    pub async fn compare_and_swap(
        &self,
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let v = settle(self.compare_and_swap.call3(
            &self.this,
            &JsValue::from_str(key),
            &expected.map_or(JsValue::UNDEFINED, |e| Uint8Array::from(e).into()),
            &Uint8Array::from(new),
        ))
        .await?;
        v.as_bool().ok_or(StoreError::Failed)
    }

    pub async fn commit(
        &self,
        objects: &[(String, Rc<[u8]>)],
        key: &str,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<bool, StoreError> {
        let Some(commit) = &self.commit else {
            // The protocol's default: objects first (invisible until the swap), then the swap.
            for (k, v) in objects {
                self.set(k, v).await?;
            }
            return self.compare_and_swap(key, expected, new).await;
        };
        let list = Array::new_with_length(objects.len() as u32);
        for (i, (k, v)) in objects.iter().enumerate() {
            let pair = Array::of2(&JsValue::from_str(k), &Uint8Array::from(&**v));
            list.set(i as u32, pair.into());
        }
        let args = Array::of4(
            &list,
            &JsValue::from_str(key),
            &expected.map_or(JsValue::UNDEFINED, |e| Uint8Array::from(e).into()),
            &Uint8Array::from(new),
        );
        let v = settle(commit.apply(&self.this, &args)).await?;
        v.as_bool().ok_or(StoreError::Failed)
    }
}

impl JsStore {
    /// Whether the store searches vectors itself: it has `nearest` and its
    /// `searchesVectors` reads `true` now (read each time: the PostgreSQL store
    /// knows only once it has connected whether its database has pgvector). A
    /// getter that throws reads as no.
    pub fn searches_vectors(&self) -> bool {
        self.nearest.is_some()
            && Reflect::get(&self.this, &JsValue::from_str("searchesVectors"))
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(false)
    }

    /// The store's `nearest(fingerprint, query, k)`: `null` (it does not), or at
    /// most `k` pairs `[text sha256 in hex, cosine]`, best first. Anything else it
    /// answers (another shape, a hash twice or not of 64 hex digits, a cosine that is
    /// not a number in [-1, 1], more than `k`, out of order) is a failure, not a hit.
    pub async fn nearest(
        &self,
        fingerprint: &str,
        query: &[f32],
        k: usize,
    ) -> Result<Option<Vec<([u8; 32], f32)>>, StoreError> {
        let Some(nearest) = &self.nearest else {
            return Ok(None);
        };
        let args = Array::of3(
            &JsValue::from_str(fingerprint),
            &Float32Array::from(query),
            &JsValue::from_f64(k as f64),
        );
        let v = settle(nearest.apply(&self.this, &args)).await?;
        if v.is_null() || v.is_undefined() {
            return Ok(None);
        }
        checked_nearest(&v, k).map(Some)
    }
}

/// `nearest`'s answer as the engine takes it (see [`JsStore::nearest`]).
fn checked_nearest(v: &JsValue, k: usize) -> Result<Vec<([u8; 32], f32)>, StoreError> {
    let list = v.dyn_ref::<Array>().ok_or(StoreError::Failed)?;
    if list.length() as usize > k {
        return Err(StoreError::Failed);
    }
    let mut out: Vec<([u8; 32], f32)> = Vec::with_capacity(list.length() as usize);
    let mut seen = alloc::collections::BTreeSet::new();
    // The previous cosine as answered, before its rounding to f32.
    let mut last = f64::INFINITY;
    for pair in list.iter() {
        let pair = pair.dyn_into::<Array>().map_err(|_| StoreError::Failed)?;
        if pair.length() != 2 {
            return Err(StoreError::Failed);
        }
        let hex = pair.get(0).as_string().ok_or(StoreError::Failed)?;
        let cosine = pair.get(1).as_f64().ok_or(StoreError::Failed)?;
        if !(-1.0..=1.0).contains(&cosine) || cosine > last {
            return Err(StoreError::Failed);
        }
        last = cosine;
        let hash = hash_of(&hex).ok_or(StoreError::Failed)?;
        if !seen.insert(hash) {
            return Err(StoreError::Failed);
        }
        out.push((hash, cosine as f32));
    }
    Ok(out)
}

/// The 32 bytes of a SHA-256 written as 64 lower-case hex digits.
fn hash_of(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64
        || !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    let mut h = [0u8; 32];
    for (i, out) in h.iter_mut().enumerate() {
        *out = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(h)
}

/// Awaits whatever a store method returned (a promise, a thenable or a plain value)
/// and maps a throw or a rejection to its error kind. A plain value is the answer as
/// it is, with no microtask waited: a store that answers at once (a Durable Object's
/// synchronous table) then lets a whole command finish within its call.
async fn settle(called: Result<JsValue, JsValue>) -> Result<JsValue, StoreError> {
    let value = called.map_err(|e| error_kind(&e))?;
    if !thenable(&value)? {
        return Ok(value);
    }
    // Promise.resolve also absorbs thenables whose `then` throws (it rejects instead).
    JsFuture::from(Promise::resolve(&value))
        .await
        .map_err(|e| error_kind(&e))
}

/// Whether `value` is a promise or has a callable `then` (what Promise.resolve
/// waits for); a `then` getter that throws fails as a rejection would.
fn thenable(value: &JsValue) -> Result<bool, StoreError> {
    if !value.is_object() && !value.is_function() {
        return Ok(false);
    }
    if value.is_instance_of::<Promise>() {
        return Ok(true);
    }
    let then = Reflect::get(value, &JsValue::from_str("then")).map_err(|e| error_kind(&e))?;
    Ok(then.is_function())
}

/// `QuotaExceededError` (the DOM name, also used by the directory store for a full
/// disk) and `UnavailableError` keep their meaning; anything else is a failure.
fn error_kind(e: &JsValue) -> StoreError {
    if !e.is_object() {
        return StoreError::Failed;
    }
    match Reflect::get(e, &JsValue::from_str("name"))
        .ok()
        .and_then(|n| n.as_string())
        .as_deref()
    {
        Some("QuotaExceededError") => StoreError::QuotaExceeded,
        Some("UnavailableError") => StoreError::Unavailable,
        _ => StoreError::Failed,
    }
}

/// A value as bytes, refused before it is copied in when it is not a `Uint8Array`
/// or is larger than any value memdir writes.
fn bytes(v: &JsValue) -> Result<Vec<u8>, StoreError> {
    let a = v.dyn_ref::<Uint8Array>().ok_or(StoreError::Failed)?;
    if a.length() as usize > memdir::config::MAX_VALUE_BYTES {
        return Err(StoreError::Failed);
    }
    Ok(a.to_vec())
}

/// A page the engine can trust: string keys under the prefix, strictly ascending,
/// after the cursor, and a next cursor that moves forward, so a misbehaving store
/// cannot make a listing loop or skip backwards.
fn checked_page(v: &JsValue, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
    if !v.is_object() {
        return Err(StoreError::Failed);
    }
    let keys_v = Reflect::get(v, &JsValue::from_str("keys")).map_err(|_| StoreError::Failed)?;
    let keys_a = keys_v.dyn_into::<Array>().map_err(|_| StoreError::Failed)?;
    let mut keys: Vec<String> = Vec::with_capacity(keys_a.length() as usize);
    for k in keys_a.iter() {
        let k = k.as_string().ok_or(StoreError::Failed)?;
        let ordered = match keys.last() {
            Some(prev) => prev.as_str() < k.as_str(),
            None => cursor.is_none_or(|c| c < k.as_str()),
        };
        if !k.starts_with(prefix) || !ordered {
            return Err(StoreError::Failed);
        }
        keys.push(k);
    }
    let next = Reflect::get(v, &JsValue::from_str("cursor")).map_err(|_| StoreError::Failed)?;
    let next = if next.is_undefined() || next.is_null() {
        None
    } else {
        let n = next.as_string().ok_or(StoreError::Failed)?;
        if keys.is_empty() || cursor.is_some_and(|c| n.as_str() <= c) {
            return Err(StoreError::Failed);
        }
        Some(n)
    };
    Ok(Page { keys, cursor: next })
}
