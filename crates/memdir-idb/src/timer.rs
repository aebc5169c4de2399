//! Waiting a while without a runtime: `setTimeout` from whichever global we are in
//! (a window, a worker, Node, workerd), as a future; and the engine's backoff after
//! a lost race, built on it.

use core::future::Future;
use core::pin::Pin;

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Resolves after about `ms` milliseconds; at once if there is no `setTimeout`.
pub async fn sleep(ms: f64) {
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

/// The engine's wait after losing a compare-and-swap race (`Engine::set_backoff`).
///
/// Two tabs (or processes) running commands back to back fall into step: the loser
/// re-reads just as the winner starts its next command, and loses again, every time.
/// A random wait that doubles with each loss in a row, up to 64 ms, breaks the step.
pub fn backoff(lost: u32) -> Pin<Box<dyn Future<Output = ()>>> {
    let ceiling = f64::from(1u32 << lost.min(6));
    Box::pin(sleep(js_sys::Math::random() * ceiling))
}
