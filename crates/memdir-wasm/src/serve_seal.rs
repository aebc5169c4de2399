//! What `memdir serve --encryption-key-file` asks of `memdir::seal` (js/api/seal-stores.js,
//! bin/key-file.js): a key file's text judged, a catalog's store opened sealed under
//! the server's master key (or checked plaintext), its data key shredded or
//! re-wrapped, and the few reads and swaps the catalog's own sealed store of
//! workspace labels needs. Node only, as the catalogs are: the browser build leaves
//! it out.
//!
//! A refusal of the seal layer (a wrong key, a plaintext store opened with a key or
//! the reverse, a damaged encryption record) rejects with the `EncryptionError`
//! every face gives (`seal.rs`): the engine's text, no key material, no path.

use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use js_sys::Uint8Array;
use memdir::Store;
use memdir::seal::{Key, SealError, Sealed};
use wasm_bindgen::prelude::*;

use crate::any_store::{AnyStore, Backend};
use crate::seal::{fresh_of as fresh_bytes, key_of, seal_error};
use crate::{StoreHandle, promise};

fn plain_error(text: &str) -> JsValue {
    js_sys::Error::new(text).into()
}

/// The backend under a handle a catalog made (never one already sealed).
fn backend(handle: &StoreHandle) -> Result<Backend, JsValue> {
    match handle.store() {
        AnyStore::Plain(b) => Ok(b.clone()),
        AnyStore::Sealed(_) => Err(plain_error("this store handle is sealed already")),
    }
}

/// The sealed store under a handle `ServeKey.open` made.
fn sealed(handle: &StoreHandle) -> Result<Rc<Sealed<Backend>>, JsValue> {
    match handle.store() {
        AnyStore::Sealed(s) => Ok(s.clone()),
        AnyStore::Plain(_) => Err(plain_error("this store handle is not sealed")),
    }
}

/// A master key (`new ServeKey(bytes, keyId?)`); `id` is all JS reads of it.
#[wasm_bindgen]
pub struct ServeKey {
    key: Key,
}

#[wasm_bindgen]
impl ServeKey {
    /// `bytes` (32) or `hex` (their 64 hex characters), and an id (`None`: derived).
    #[wasm_bindgen(constructor)]
    pub fn new(
        bytes: Option<Vec<u8>>,
        hex: Option<String>,
        id: Option<String>,
    ) -> Result<ServeKey, JsValue> {
        let key = key_of(bytes, hex, id).map_err(|e| seal_error(&e))?;
        Ok(ServeKey { key })
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.key.id().to_string()
    }

    /// The store under `handle` sealed under this key (an empty one made an
    /// encrypted store, its data key from `fresh`): a handle the engine runs on.
    pub fn open(&self, handle: &StoreHandle, fresh: &[u8]) -> Result<js_sys::Promise, JsValue> {
        let inner = backend(handle)?;
        let fresh = fresh_bytes(fresh)?;
        let key = self.key.clone();
        Ok(promise(async move {
            let s = Sealed::open(inner, Some(key), fresh)
                .await
                .map_err(|e| seal_error(&e))?;
            Ok(StoreHandle::new(AnyStore::Sealed(Rc::new(s))).into())
        }))
    }

    /// The data key of the store under `handle` re-wrapped from this key to
    /// `next`: `"rewrapped"`, or `"already"` when the store opens under `next`
    /// already (a run before this one did it). No data is rewritten.
    pub fn rewrap(
        &self,
        handle: &StoreHandle,
        next: &ServeKey,
        fresh: &[u8],
    ) -> Result<js_sys::Promise, JsValue> {
        let inner = backend(handle)?;
        let fresh = fresh_bytes(fresh)?;
        let (old, new) = (self.key.clone(), next.key.clone());
        Ok(promise(async move {
            match Sealed::open(inner.clone(), Some(old), fresh).await {
                Ok(s) => {
                    s.rewrap(new).await.map_err(|e| seal_error(&e))?;
                    Ok("rewrapped".into())
                }
                Err(SealError::WrongKeyId { stored, .. }) if stored == new.id() => {
                    // Opened under the new key to be sure it is this one, not one
                    // that only shares its id.
                    Sealed::open(inner, Some(new), fresh)
                        .await
                        .map_err(|e| seal_error(&e))?;
                    Ok("already".into())
                }
                Err(e) => Err(seal_error(&e)),
            }
        }))
    }
}

/// The store under `handle` checked to be plaintext (an encrypted one refused in
/// the engine's words), as a handle the engine runs on.
#[wasm_bindgen(js_name = openPlain)]
pub fn open_plain(handle: &StoreHandle) -> Result<js_sys::Promise, JsValue> {
    let inner = backend(handle)?;
    Ok(promise(async move {
        Sealed::open(inner.clone(), None, [0; 32])
            .await
            .map_err(|e| seal_error(&e))?;
        Ok(StoreHandle::new(AnyStore::Plain(inner)).into())
    }))
}

/// Crypto-shredding: the wrapped data key of the sealed store under `handle`
/// deleted; nothing left of the store can be read after it.
#[wasm_bindgen(js_name = sealShred)]
pub fn seal_shred(handle: &StoreHandle) -> Result<js_sys::Promise, JsValue> {
    let s = sealed(handle)?;
    Ok(promise(async move {
        s.shred().await.map_err(|e| seal_error(&e))?;
        Ok(JsValue::UNDEFINED)
    }))
}

/// The value of `key` in the sealed store under `handle` (undefined: none).
#[wasm_bindgen(js_name = sealedGet)]
pub fn sealed_get(handle: &StoreHandle, key: String) -> Result<js_sys::Promise, JsValue> {
    let s = sealed(handle)?;
    Ok(promise(async move {
        let value = s.get(&key).await.map_err(|e| plain_error(&e.to_string()))?;
        Ok(value.map_or(JsValue::UNDEFINED, |v| Uint8Array::from(&v[..]).into()))
    }))
}

/// `key` of the sealed store under `handle` moved from `expected` (undefined:
/// absent) to `value`: whether it moved.
#[wasm_bindgen(js_name = sealedSwap)]
pub fn sealed_swap(
    handle: &StoreHandle,
    key: String,
    expected: Option<Vec<u8>>,
    value: Vec<u8>,
) -> Result<js_sys::Promise, JsValue> {
    let s = sealed(handle)?;
    Ok(promise(async move {
        let moved = s
            .compare_and_swap(&key, expected.as_deref(), &value)
            .await
            .map_err(|e| plain_error(&e.to_string()))?;
        Ok(moved.into())
    }))
}
