//! Waiting a while without a runtime: `setTimeout` from whichever global we are in
//! (a window, a worker, Node, workerd), as a future; and the engine's backoff after
//! a lost race, built on it.

use core::future::Future;
use core::pin::Pin;

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::events::Settled;

/// Resolves after about `ms` milliseconds; at once if there is no `setTimeout`.
///
/// The timer calls the handler every IndexedDB request shares (see `events`),
/// bound to an object whose `target` is itself: the handler finds this future by
/// it as it finds a request's by the event's target, so waiting makes no closure
/// and no promise of its own.
pub async fn sleep(ms: f64) {
    let global = js_sys::global();
    let Some(set_timeout) = Reflect::get(&global, &JsValue::from_str("setTimeout"))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
    else {
        return;
    };
    let token = Object::new();
    if Reflect::set(&token, &JsValue::from_str("target"), &token).is_err() {
        return;
    }
    let fire = Settled::timer_handler().bind1(&JsValue::NULL, &token);
    if set_timeout
        .call2(&global, &fire, &JsValue::from_f64(ms))
        .is_err()
    {
        return;
    }
    // Placed after the timer: it fires from the event loop, never before this returns.
    Settled::wait(token.into()).await;
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
