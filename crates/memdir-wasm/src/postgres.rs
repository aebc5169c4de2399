//! The rules the PostgreSQL store (`js/stores/postgres.js`) reads from the engine:
//! which rows a read brings back of what other instances committed, and how many.

use memdir::config::{PG_AHEAD_KEPT_BYTES, PG_AHEAD_ROWS, PG_AHEAD_VALUE_BYTES};
use wasm_bindgen::prelude::*;

/// `{structurePrefixes, aheadRows, aheadValueBytes, aheadKeptBytes}`: the prefixes
/// of the keys whose values never change and which a read brings ahead
/// (`memdir::STRUCTURE_PREFIXES`), and its bounds (`memdir::config::PG_AHEAD_*`).
#[wasm_bindgen(js_name = postgresRules)]
pub fn postgres_rules() -> JsValue {
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
    };
    let prefixes = js_sys::Array::new();
    for p in memdir::STRUCTURE_PREFIXES {
        prefixes.push(&JsValue::from_str(p));
    }
    set("structurePrefixes", prefixes.into());
    set("aheadRows", JsValue::from_f64(PG_AHEAD_ROWS as f64));
    set(
        "aheadValueBytes",
        JsValue::from_f64(PG_AHEAD_VALUE_BYTES as f64),
    );
    set(
        "aheadKeptBytes",
        JsValue::from_f64(PG_AHEAD_KEPT_BYTES as f64),
    );
    o.into()
}
