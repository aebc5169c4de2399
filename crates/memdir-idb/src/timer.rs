//! Waiting a while without a runtime: `setTimeout` from whichever global we are in
//! (a window or a worker), as a future.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Resolves after about `ms` milliseconds; at once if there is no `setTimeout`.
pub(crate) async fn sleep(ms: f64) {
    let global = js_sys::global();
    let Some(set_timeout) = Reflect::get(&global, &JsValue::from_str("setTimeout"))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
    else {
        return;
    };
    let promise = Promise::new(&mut |resolve, _reject| {
        let _ = set_timeout.call2(&global, &resolve, &JsValue::from_f64(ms));
    });
    let _ = JsFuture::from(promise).await;
}
