//! Answers as plain JS objects, through JSON text: shared by every exported
//! function that hands back a report, a list or a module's rules.

use wasm_bindgen::JsValue;

/// A plain object from a report or a list, through JSON text and `JSON.parse`: the
/// same plain objects, arrays, strings and numbers serde-wasm-bindgen built a
/// field at a time, without linking a second serializer (serde_json is already
/// in). These types always serialize, so a failure is internal.
pub fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    serde_json::to_string(value)
        .ok()
        .and_then(|t| js_sys::JSON::parse(&t).ok())
        .ok_or_else(cannot_convert)
}

pub(crate) fn cannot_convert() -> JsValue {
    js_sys::Error::new("memdir could not convert its answer").into()
}
