//! The engine's defaults and caps, exported so that `js/core.js`, the CLI and the
//! explorer read them instead of restating numbers (they live in `memdir::config`).

use memdir::{Defaults, InputError, ToolError, ToolResult};
use wasm_bindgen::prelude::*;

use crate::memory::{mark_kind, result_to_js};

/// `{maxFileBytes, maxTotalBytes, readLimitChars, maxRetries, maxRetriesCap,
/// keepCommits, maxInputBytes, secrets}`.
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsValue> {
    serde_wasm_bindgen::to_value(&Defaults::get())
        .map_err(|_| JsValue::from(js_sys::Error::new("memdir could not convert its defaults")))
}

/// The `tool_result` for an input over `maxInputBytes`: a runtime refuses such an
/// input before copying it into the engine, with the engine's own words.
#[wasm_bindgen(js_name = oversizedInput)]
pub fn oversized_input() -> JsValue {
    let e = ToolError::Input(InputError::TooLarge {
        limit: memdir::config::MAX_INPUT_BYTES,
    });
    let js = result_to_js(&ToolResult::of(&Err(e.clone())));
    mark_kind(&js, &e);
    js
}
