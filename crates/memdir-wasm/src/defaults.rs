//! The engine's defaults and caps, exported so that `js/core.js`, the CLI and the
//! explorer read them instead of restating numbers (they live in `memdir::config`).

use alloc::string::String;
use memdir::config::Defaults;
use memdir::{FaceError, InputError, ToolError, ToolResult};
use wasm_bindgen::prelude::*;

use crate::memory::{mark_kind, result_to_js};

/// `memdir::config::Defaults` in camelCase (`{maxFileBytes, maxTotalBytes, readLimitChars,
/// …, maxValueBytes}`): every engine bound a JS face uses.
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsValue> {
    crate::to_js::to_js(&Defaults::get())
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

/// The faces' own failures (`memdir::FaceError`) as JSON text, `[[kind, text], …]`:
/// js/core.js and the MCP server answer with these words.
#[wasm_bindgen(js_name = faceErrors)]
pub fn face_errors() -> String {
    let texts = FaceError::ALL.map(|e| (e.kind(), e.to_string()));
    serde_json::to_string(&texts).unwrap_or_default()
}

/// `text` quoted as every error quotes a caller's text (`memdir::Echo`): the JS faces'
/// own errors (the MCP server's) cut it where the engine's do.
#[wasm_bindgen(js_name = echoInput)]
pub fn echo_input(text: &str) -> String {
    memdir::Echo(text).to_string()
}

/// The answer to a request whose body is over the limit, for a runtime that refuses
/// it before copying it into the engine.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = oversizedApiBody)]
pub fn oversized_api_body() -> String {
    memdir::api::Response::too_large().to_json()
}

/// The Memory Stores API operations that change a store, as JSON text
/// (`memdir::api::WRITE_OPS`); every other operation only reads.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = apiWriteOps)]
pub fn api_write_ops() -> String {
    serde_json::to_string(&memdir::api::WRITE_OPS).unwrap_or_default()
}

/// The memory-store toolset's tools as JSON text: `[{name, description,
/// input_schema, read_only}]`, the schema as an object (`memdir::toolset::TOOLS`).
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = toolsetTools)]
pub fn toolset_tools() -> String {
    memdir::toolset::definitions_json(&memdir::toolset::TOOLS)
}

/// Seed 002's records toolset's tools as JSON text: `[{name, description,
/// input_schema, read_only}]`, the schema as an object (`memdir::records::TOOLS`).
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = recordTools)]
pub fn record_tools() -> String {
    memdir::toolset::definitions_json(&memdir::records::TOOLS)
}

/// Why the records toolset's settings are refused, in the engine's words, or `""`
/// when they hold (`undefined`: the default): `memoryRecordTools` checks them at once.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = recordSettingsError)]
pub fn record_settings_error(
    half_life_days: Option<f64>,
    capacity: Option<f64>,
    similarity: Option<f64>,
) -> String {
    match memdir::records::Settings::of(half_life_days, capacity, similarity) {
        Ok(_) => alloc::string::String::new(),
        Err(e) => alloc::format!("{e}"),
    }
}

/// The memory tool's command names and those that only read, as JSON text
/// `[commands, read_only_commands]` (`memdir::COMMANDS`, `memdir::READ_ONLY_COMMANDS`):
/// every face needs them at start, to know which calls write, and the whole
/// definition ([`memory_tool`]) costs about 1.7 ms to make the first time.
#[wasm_bindgen(js_name = commandNames)]
pub fn command_names() -> String {
    serde_json::to_string(&(memdir::COMMANDS, memdir::READ_ONLY_COMMANDS)).unwrap_or_default()
}

/// The memory tool's definition as JSON text: `{name, title, description,
/// input_schema, commands, read_only_commands}`, the schema as an object
/// (`memdir::MEMORY_TOOL`, `memdir::COMMANDS`, `memdir::READ_ONLY_COMMANDS`), for
/// faces that must describe the tool (an MCP server).
// For faces that describe the tool themselves (an MCP server): not in the lean
// build (feature `tool`), whose tool runner's shape is the SDK's (`betaMemoryTool`).
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = memoryTool)]
pub fn memory_tool() -> String {
    let t = memdir::MEMORY_TOOL;
    serde_json::json!({
        "name": t.name,
        "title": t.title,
        "description": t.description,
        "input_schema": serde_json::from_str::<serde_json::Value>(t.input_schema).unwrap_or_default(),
        "commands": memdir::COMMANDS,
        "read_only_commands": memdir::READ_ONLY_COMMANDS,
    })
    .to_string()
}

/// The `memory_find` client tool's definition as JSON text: `{name, title,
/// description, input_schema}`, the schema as an object (`memdir::mounts::FIND_TOOL`).
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = findTool)]
pub fn find_tool() -> String {
    let t = memdir::mounts::FIND_TOOL;
    serde_json::json!({
        "name": t.name,
        "title": t.title,
        "description": t.description,
        "input_schema": serde_json::from_str::<serde_json::Value>(t.input_schema).unwrap_or_default(),
    })
    .to_string()
}
