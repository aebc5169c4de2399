//! The rules the PostgreSQL store (`js/stores/postgres.js`) reads from the engine:
//! which rows a read brings back of what other instances committed, and how many.

use memdir::config::{PG_AHEAD_KEPT_BYTES, PG_AHEAD_ROWS, PG_AHEAD_VALUE_BYTES};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// `{structurePrefixes, aheadRows, aheadValueBytes, aheadKeptBytes}`: the prefixes
/// of the keys whose values never change and which a read brings ahead
/// (`memdir::STRUCTURE_PREFIXES`), and its bounds (`memdir::config::PG_AHEAD_*`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rules {
    structure_prefixes: &'static [&'static str],
    ahead_rows: usize,
    ahead_value_bytes: usize,
    ahead_kept_bytes: usize,
}

#[wasm_bindgen(js_name = postgresRules)]
pub fn postgres_rules() -> Result<JsValue, JsValue> {
    crate::to_js::to_js(&Rules {
        structure_prefixes: &memdir::STRUCTURE_PREFIXES,
        ahead_rows: PG_AHEAD_ROWS,
        ahead_value_bytes: PG_AHEAD_VALUE_BYTES,
        ahead_kept_bytes: PG_AHEAD_KEPT_BYTES,
    })
}
