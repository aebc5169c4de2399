//! The exported `Memory`: one engine over one store, driven from JS by promises.
//!
//! The engine's methods take `&self`, so each call clones the `Rc` into its own
//! future: several commands may be in flight at once (the engine's compare-and-swap
//! sorts them out) and freeing the JS object never cuts a pending command short.

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use js_sys::{Function, Object, Promise, Reflect};
use memdir::{Config, Engine, Entry, Limits, SecretPolicy, ToolResult};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::StoreHandle;
use crate::any_store::AnyStore;

#[wasm_bindgen]
pub struct Memory {
    engine: Rc<Engine<AnyStore>>,
}

#[wasm_bindgen]
impl Memory {
    /// Limits are plain numbers checked by `js/core.js` (positive safe integers);
    /// `clock` returns milliseconds since the epoch, `Date.now` when absent.
    #[wasm_bindgen(constructor)]
    pub fn new(
        store: &StoreHandle,
        max_file_bytes: f64,
        max_total_bytes: f64,
        read_limit_chars: f64,
        actor: String,
        max_retries: u32,
        secrets: String,
        clock: Option<Function>,
    ) -> Memory {
        // `as` saturates, so a number the JS side let through cannot wrap around.
        let limits = Limits {
            max_file_bytes: max_file_bytes as usize,
            max_total_bytes: max_total_bytes as u64,
            read_limit_chars: read_limit_chars as usize,
        };
        // `js/core.js` lets through only the three names.
        let secrets = match secrets.as_str() {
            "refuse" => SecretPolicy::Refuse,
            "redact" => SecretPolicy::Redact,
            _ => SecretPolicy::Allow,
        };
        let config = Config { limits, actor, max_retries, secrets };
        let mut engine = Engine::new(store.store().clone(), config);
        engine.set_clock(match clock {
            Some(f) => Box::new(move || millis(f.call0(&JsValue::UNDEFINED).ok())),
            None => Box::new(|| millis(Some(JsValue::from_f64(js_sys::Date::now())))),
        });
        engine.set_backoff(Box::new(memdir_idb::timer::backoff));
        Memory { engine: Rc::new(engine) }
    }

    /// Runs one tool input given as JSON text; resolves `{content, is_error}` with
    /// `Error: ` before the message on failure. Never rejects.
    pub fn execute(&self, input: String) -> Promise {
        let engine = Rc::clone(&self.engine);
        future_to_promise(async move { Ok(result_to_js(&engine.execute(&input).await)) })
    }

    /// Every directory and file, sorted: `[{path, content?}]` (no `content`: a directory).
    pub fn entries(&self) -> Promise {
        let engine = Rc::clone(&self.engine);
        future_to_promise(async move {
            let entries = engine.entries().await.map_err(error)?;
            serde_wasm_bindgen::to_value(&entries).map_err(|_| error(String::from("the entries could not be converted")))
        })
    }

    /// Replaces the whole tree with the entries given as JSON text, in one commit.
    #[wasm_bindgen(js_name = import)]
    pub fn import_entries(&self, entries_json: String) -> Promise {
        let engine = Rc::clone(&self.engine);
        future_to_promise(async move {
            let entries: Vec<Entry> = serde_json::from_str(&entries_json).map_err(|_| {
                error(String::from(
                    "Invalid import: expected an array of {path, content?} objects with string fields",
                ))
            })?;
            engine.import(&entries).await.map_err(error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Removes every file not written in the last `older_than_ms` (and directories
    /// with nothing recent beneath); resolves `{removed, bytes}`.
    pub fn expire(&self, older_than_ms: f64) -> Promise {
        let engine = Rc::clone(&self.engine);
        future_to_promise(async move {
            let report = engine.expire(older_than_ms as u64).await.map_err(error)?;
            serde_wasm_bindgen::to_value(&report).map_err(|_| error(String::from("the report could not be converted")))
        })
    }

    /// Garbage-collects objects unreachable from the last `keep_commits` commits;
    /// resolves `{reachable, deleted, pending}`.
    pub fn gc(&self, keep_commits: u32) -> Promise {
        let engine = Rc::clone(&self.engine);
        future_to_promise(async move {
            let report = engine.gc(keep_commits as usize).await.map_err(error)?;
            serde_wasm_bindgen::to_value(&report).map_err(|_| error(String::from("the report could not be converted")))
        })
    }
}

/// A clock reading as milliseconds; anything that is not a finite, non-negative
/// number (a clock that threw, returned a string) reads as 0 rather than failing a command.
fn millis(v: Option<JsValue>) -> u64 {
    match v.and_then(|v| v.as_f64()) {
        Some(ms) if ms.is_finite() && ms >= 0.0 => ms as u64,
        _ => 0,
    }
}

fn error(message: String) -> JsValue {
    js_sys::Error::new(&message).into()
}

/// `{content, is_error}` as a plain object, built directly: it cannot fail.
pub fn result_to_js(r: &ToolResult) -> JsValue {
    let o = Object::new();
    let _ = Reflect::set(&o, &JsValue::from_str("content"), &JsValue::from_str(&r.content));
    let _ = Reflect::set(&o, &JsValue::from_str("is_error"), &JsValue::from_bool(r.is_error));
    o.into()
}
