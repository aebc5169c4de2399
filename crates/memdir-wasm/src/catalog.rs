//! The stores' catalog, which only a server runs (`js/api/catalog.js`, for the
//! Memory Stores API's `apiHandler` and the directory and PostgreSQL catalogs): a
//! page of stores from their records, and new store ids. Not in the browser build
//! (issue 23: a page downloads only what it runs).

use alloc::string::String;
use wasm_bindgen::prelude::*;

/// One page of memory stores from the stores' records (what each answered to
/// `store.retrieve`), as JSON text; the query as JSON text of string values.
/// Answers the JSON text of `{status, body}`, like `Memory.api`.
#[wasm_bindgen(js_name = listStores)]
pub fn list_stores(records: &str, query: &str) -> String {
    use memdir::ApiError;
    use memdir::api::{Query, Response};
    let parsed = memdir::__hooks::from_text::<alloc::vec::Vec<serde_json::Value>>(records)
        .ok()
        .zip(
            memdir::__hooks::from_text::<alloc::collections::BTreeMap<String, String>>(query).ok(),
        );
    let outcome = match parsed {
        Some((records, query)) => memdir::api::list_stores(&records, &Query(&query)),
        None => Err(ApiError::Invalid("not a list of stores and a query".into())),
    };
    Response::of(outcome).to_json()
}

/// A new memory store id from at least 15 random bytes (`crypto.getRandomValues`).
#[wasm_bindgen(js_name = newStoreId)]
pub fn new_store_id(random: &[u8]) -> Option<String> {
    memdir::api::rules::new_store_id(random)
}
