//! The benchmark's floor (`npm run bench`): the crossing a command makes (JSON text
//! in, a promise of a result object out) with no engine work in between. Only in
//! the bench build (`node scripts/build.mjs --bench`, feature `bench`), never in
//! the npm package.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::memory;

thread_local! {
    static FLOOR_OUTPUT: RefCell<String> = const { RefCell::new(String::new()) };
    static HASH_INPUT: RefCell<String> = const { RefCell::new(String::new()) };
    static RECORDS: RefCell<BTreeMap<[u8; 32], Vec<u8>>> = const { RefCell::new(BTreeMap::new()) };
}

/// A rename's or a delete's floor adds one version record: made (the fields a
/// memory version holds), hashed with the engine's SHA-256 and kept by its hash,
/// as every change keeps one. A byte of the digest comes back.
#[wasm_bindgen(js_name = recordStaged)]
pub fn record_staged(op: &str, path: &str) -> u8 {
    let record = serde_json::json!({
        "type": "memory_version",
        "memory_id": "mem_0000000000000000000000",
        "operation": op,
        "path": path,
        "created_at": "2026-11-25T00:00:00Z",
        "created_by": {"type": "api_actor", "api_key_id": "apikey_000000000000000000"},
    })
    .to_string()
    .into_bytes();
    let hash = memdir::__hooks::sha256(&record);
    RECORDS.with(|r| r.borrow_mut().insert(hash, record));
    hash[0]
}

/// A write's floor adds hashing the bytes it leaves once: staged here, untimed.
#[wasm_bindgen(js_name = hashPrepare)]
pub fn hash_prepare(bytes: String) {
    HASH_INPUT.with(|o| *o.borrow_mut() = bytes);
}

/// Hashes the staged bytes with the engine's SHA-256 (a byte of the digest comes
/// back so the work cannot be skipped).
#[wasm_bindgen(js_name = hashStaged)]
pub fn hash_staged() -> u8 {
    HASH_INPUT.with(|o| memdir::__hooks::sha256(o.borrow().as_bytes())[0])
}

/// Step one: the text `roundTrip` will answer with, staged outside the timing.
#[wasm_bindgen(js_name = roundTripPrepare)]
pub fn round_trip_prepare(output: String) {
    FLOOR_OUTPUT.with(|o| *o.borrow_mut() = output);
}

/// The same crossing as a command, answering the staged text.
#[wasm_bindgen(js_name = roundTrip)]
pub fn round_trip(input: String) -> Promise {
    let content = FLOOR_OUTPUT.with(|o| o.borrow().clone());
    let result = memdir::ToolResult {
        content,
        is_error: input.is_empty(),
    };
    crate::promise(async move { Ok(memory::result_to_js(&result)) })
}
