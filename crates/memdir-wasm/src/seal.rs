//! Encryption at rest for the npm package (`openMemory({ encryption })`,
//! `encryptStore`, `memory.rekey`): a store handle opened through
//! `memdir::seal::Sealed`, which does all of it. This file only carries a key
//! across (its bytes or its hex text, judged by `Key::new` / `Key::from_hex`, the
//! one rule) and the 32 fresh random bytes a new data key is made from, which JS
//! draws from `crypto.getRandomValues` since the engine has no randomness of its own.

#[cfg(not(feature = "tool"))]
use alloc::rc::Rc;
use alloc::string::ToString;
#[cfg(not(feature = "tool"))]
use alloc::{string::String, vec::Vec};

use js_sys::{Promise, Reflect};
use memdir::seal::SealError;
#[cfg(not(feature = "tool"))]
use memdir::seal::{Key, Sealed};
use wasm_bindgen::prelude::*;

use crate::any_store::AnyStore;
use crate::{StoreHandle, promise};

/// A key as JS gives it: 32 bytes, or their 64 hex characters (a key file's
/// text), and an id (`None`: derived from the key).
#[cfg(not(feature = "tool"))]
pub(crate) fn key_of(
    bytes: Option<Vec<u8>>,
    hex: Option<String>,
    id: Option<String>,
) -> Result<Key, SealError> {
    match (bytes, hex) {
        (Some(bytes), _) => {
            let bytes = <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| SealError::BadKey)?;
            Key::new(bytes, id.as_deref())
        }
        (None, Some(hex)) => Key::from_hex(&hex, id.as_deref()),
        (None, None) => Err(SealError::BadKey),
    }
}

/// The 32 fresh bytes a new data key is made from; any other length is the
/// wrapper's own mistake, refused rather than padded.
#[cfg(not(feature = "tool"))]
pub(crate) fn fresh_of(fresh: &[u8]) -> Result<[u8; 32], JsValue> {
    <[u8; 32]>::try_from(fresh).map_err(|_| {
        JsValue::from(js_sys::TypeError::new(
            "memdir: 32 fresh random bytes are needed",
        ))
    })
}

/// A refusal of the seal as a JS `Error` named `EncryptionError`: its text as the
/// message (which names no key material and no storage key), and `kind`
/// `encryption`, or the storage failure's kind for one the store answered with.
pub(crate) fn seal_error(e: &SealError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("EncryptionError");
    let kind = match e {
        SealError::Storage(s) => memdir::ToolError::from(*s).kind().name(),
        _ => "encryption",
    };
    let _ = Reflect::set(&err, &JsValue::from_str("kind"), &JsValue::from_str(kind));
    err.into()
}

/// Checks a key without opening anything: `undefined`, or throws the refusal
/// (for a face that reads a key before it has a store: the CLI's key files).
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = checkEncryptionKey)]
pub fn check_encryption_key(
    bytes: Option<Vec<u8>>,
    hex: Option<String>,
    id: Option<String>,
) -> Result<String, JsValue> {
    key_of(bytes, hex, id)
        .map(|k| String::from(k.id()))
        .map_err(|e| seal_error(&e))
}

/// Opens `handle`'s store through the seal: with a key, an encrypted store (an
/// empty one becomes one, its data key made from `fresh`); with none, a plaintext
/// store, an encrypted one being refused. Resolves the sealed store's handle.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = openSealed)]
pub fn open_sealed(
    handle: &StoreHandle,
    bytes: Option<Vec<u8>>,
    hex: Option<String>,
    id: Option<String>,
    fresh: Vec<u8>,
) -> Promise {
    let store = handle.store().clone();
    promise(async move {
        let AnyStore::Plain(backend) = store else {
            return Err(js_sys::TypeError::new(
                "openMemory: this store is already opened with its encryption",
            )
            .into());
        };
        let fresh = fresh_of(&fresh)?;
        let key = key_of(bytes, hex, id).map_err(|e| seal_error(&e))?;
        let sealed = Sealed::open(backend, Some(key), fresh)
            .await
            .map_err(|e| seal_error(&e))?;
        Ok(StoreHandle::new(AnyStore::Sealed(Rc::new(sealed))).into())
    })
}

/// Opens `handle`'s store with no key only to be told it is plaintext: rejects
/// with the refusal for an encrypted one, whose text names its key id. A store
/// that cannot be read now (IndexedDB in a private window) opens as before: each
/// command answers with the storage's own failure, as it did before stores could
/// be encrypted.
#[wasm_bindgen(js_name = checkPlaintext)]
pub fn check_plaintext(handle: &StoreHandle) -> Promise {
    let store = handle.store().clone();
    promise(async move {
        // An encrypted store's handle is opened with its key already; the lean
        // build (feature `tool`) has no other kind.
        #[cfg(not(feature = "tool"))]
        let AnyStore::Plain(backend) = store else {
            return Ok(JsValue::UNDEFINED);
        };
        #[cfg(feature = "tool")]
        let AnyStore::Plain(backend) = store;
        match memdir::seal::check_plaintext(&backend).await {
            Ok(_) | Err(SealError::Storage(_)) => Ok(JsValue::UNDEFINED),
            Err(e) => Err(seal_error(&e)),
        }
    })
}

/// Turns `handle`'s plaintext store into one encrypted with the key, in bounded
/// steps, each saved: a crash midway leaves a store a rerun finishes (and that
/// only this key opens meanwhile). Resolves the key's id.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = encryptStore)]
pub fn encrypt_store(
    handle: &StoreHandle,
    bytes: Option<Vec<u8>>,
    hex: Option<String>,
    id: Option<String>,
    fresh: Vec<u8>,
) -> Promise {
    let store = handle.store().clone();
    promise(async move {
        let AnyStore::Plain(backend) = store else {
            return Err(js_sys::TypeError::new(
                "encryptStore: give the store itself, not a memory's",
            )
            .into());
        };
        let fresh = fresh_of(&fresh)?;
        let key = key_of(bytes, hex, id).map_err(|e| seal_error(&e))?;
        let sealed = Sealed::encrypt(backend, key, fresh)
            .await
            .map_err(|e| seal_error(&e))?;
        Ok(JsValue::from_str(&sealed.key_id().unwrap_or_default()))
    })
}

/// Re-encrypts `store` (a sealed one) under a new key and data key; resolves
/// `{keyId, moved}`. A plaintext store is refused as not encrypted.
#[cfg(not(feature = "tool"))]
pub(crate) async fn rekey(store: &AnyStore, key: Key, fresh: &[u8]) -> Result<JsValue, JsValue> {
    let fresh = fresh_of(fresh)?;
    let AnyStore::Sealed(sealed) = store else {
        return Err(seal_error(&SealError::NotEncrypted));
    };
    let id = String::from(key.id());
    let done = sealed.rekey(key, fresh).await.map_err(|e| seal_error(&e))?;
    let out = js_sys::Object::new();
    Reflect::set(&out, &"keyId".into(), &JsValue::from_str(&id))?;
    Reflect::set(&out, &"moved".into(), &JsValue::from_f64(done.moved as f64))?;
    Ok(out.into())
}

/// Every key and value `handle`'s backend holds, as stored (an encrypted store's
/// names and ciphertexts), as `[[key, Uint8Array], …]`: for the tests that scan a
/// native in-memory store's bytes, which no JS can read otherwise. Not in the
/// browser build, whose store (IndexedDB) a page reads itself, nor in the lean one.
#[cfg(not(any(feature = "indexeddb", feature = "tool")))]
#[wasm_bindgen(js_name = rawEntries)]
pub fn raw_entries(handle: &StoreHandle) -> Promise {
    let backend = match handle.store() {
        AnyStore::Plain(b) => b.clone(),
        AnyStore::Sealed(s) => s.inner().clone(),
    };
    promise(async move { entries_of(&backend).await })
}

/// Every name and value as the engine reads them through `handle` (an encrypted
/// store's plain names and values), `[[name, Uint8Array | string], …]`, a value
/// the store refuses being its error's text: for the tests that tamper with the
/// stored bytes and see which names no longer read.
#[cfg(not(any(feature = "indexeddb", feature = "tool")))]
#[wasm_bindgen(js_name = openedEntries)]
pub fn opened_entries(handle: &StoreHandle) -> Promise {
    let store = handle.store().clone();
    promise(async move { entries_of(&store).await })
}

/// Each key of `store` with its value, or the text of the error reading it; the
/// keys listed as the engine lists them (`memdir::list_all`, its page bound and
/// broken-cursor checks).
#[cfg(not(any(feature = "indexeddb", feature = "tool")))]
async fn entries_of(store: &impl memdir::Store) -> Result<JsValue, JsValue> {
    let keys = memdir::list_all(store, "")
        .await
        .map_err(|e| JsValue::from(js_sys::Error::new(&e.to_string())))?;
    let out = js_sys::Array::new();
    for key in &keys {
        let value = match store.get(key).await {
            Ok(Some(value)) => js_sys::Uint8Array::from(value.as_slice()).into(),
            Ok(None) => continue,
            Err(e) => JsValue::from_str(&e.to_string()),
        };
        let pair = js_sys::Array::new();
        pair.push(&JsValue::from_str(key));
        pair.push(&value);
        out.push(&pair);
    }
    Ok(out.into())
}
