//! Sync's two crossings: the remote as a JS function the engine calls
//! ([`JsRemote`], used by `Memory::sync`), and the HTTP request one call is
//! (`syncHttp`), so JS only carries requests and answers.

use alloc::string::{String, ToString};

use js_sys::{Function, Promise};
use memdir::api::Response;
use memdir::sync::{Remote, Unreachable, wire};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The remote as JS gives it: a function taking one request as JSON text and
/// resolving the JSON text of `{status, body}`; a rejection is no answer.
pub struct JsRemote(pub Function);

impl Remote for JsRemote {
    async fn call(&self, request: &Value) -> Result<Response, Unreachable> {
        let started = self
            .0
            .call1(&JsValue::NULL, &JsValue::from_str(&request.to_string()))
            .map_err(|_| Unreachable)?;
        let answer = JsFuture::from(Promise::resolve(&started))
            .await
            .map_err(|_| Unreachable)?;
        let text = answer.as_string().ok_or(Unreachable)?;
        let v: Value = serde_json::from_str(&text).map_err(|_| Unreachable)?;
        let status = v
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .ok_or(Unreachable)?;
        Ok(Response {
            status,
            body: v.get("body").cloned().unwrap_or(Value::Null),
        })
    }
}

/// The HTTP request a sync request is, for store `store`: JSON text of
/// `{method, target, body, headers}` (`target` the path and query; the headers
/// besides the key and content type), or an error for a request sync never makes.
#[wasm_bindgen(js_name = syncHttp)]
pub fn sync_http(request: String, store: String) -> Result<String, JsValue> {
    let v: Value =
        serde_json::from_str(&request).map_err(|_| JsValue::from_str("not a sync request"))?;
    let http = wire::http(&v, &store).ok_or_else(|| JsValue::from_str("not a sync request"))?;
    Ok(json!({
        "method": http.method,
        "target": http.target,
        "body": http.body,
        "headers": {"anthropic-version": wire::API_VERSION, "anthropic-beta": wire::BETA},
    })
    .to_string())
}

/// What a host needs to carry sync requests, as JSON text: `{baseUrl, timeoutMs,
/// maxAnswerBytes}` (`memdir::sync::wire`).
#[wasm_bindgen(js_name = syncDefaults)]
pub fn sync_defaults() -> String {
    json!({
        "baseUrl": wire::DEFAULT_BASE_URL,
        "timeoutMs": memdir::config::SYNC_REQUEST_TIMEOUT_MS,
        "maxAnswerBytes": memdir::config::SYNC_MAX_ANSWER_BYTES,
    })
    .to_string()
}
