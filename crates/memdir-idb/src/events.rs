//! Waiting for the first of several DOM events on one target.
//!
//! The `idb` crate's transaction future resolves on the first request `error`, which
//! fires *before* the transaction has rolled back, and its open future has no way to
//! give up on `blocked`. We need "complete or abort, whichever ends it" and "success,
//! error or blocked", so this small future listens for a set of event names and
//! resolves with the name of the first one that fires.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Event, EventTarget};

#[derive(Default)]
struct Slot {
    fired: Option<&'static str>,
    waker: Option<Waker>,
}

/// Resolves with the first of `names` to fire on `target`. Listeners are removed on
/// drop, so a late event never calls into a dropped closure.
pub(crate) struct FirstEvent {
    target: EventTarget,
    names: &'static [&'static str],
    slot: Rc<RefCell<Slot>>,
    listener: Closure<dyn FnMut(Event)>,
}

impl FirstEvent {
    /// Must be called before control returns to the event loop, or the event may
    /// already have fired.
    pub(crate) fn new(target: &EventTarget, names: &'static [&'static str]) -> Self {
        let slot = Rc::new(RefCell::new(Slot::default()));
        let seen = Rc::clone(&slot);
        let listener = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let kind = event.type_();
            let Some(name) = names.iter().copied().find(|n| *n == kind) else {
                return;
            };
            let waker = {
                let mut s = seen.borrow_mut();
                if s.fired.is_some() {
                    return;
                }
                s.fired = Some(name);
                s.waker.take()
            };
            if let Some(w) = waker {
                w.wake();
            }
        });
        for name in names {
            // Adding a listener to a live IDB object cannot fail; if it somehow did,
            // the future would never resolve, so treat it as fired-with-nothing.
            if target
                .add_event_listener_with_callback(name, listener.as_ref().unchecked_ref())
                .is_err()
            {
                slot.borrow_mut().fired = Some("error");
            }
        }
        FirstEvent {
            target: target.clone(),
            names,
            slot,
            listener,
        }
    }
}

impl Future for FirstEvent {
    type Output = &'static str;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<&'static str> {
        let mut s = self.slot.borrow_mut();
        match s.fired {
            Some(name) => Poll::Ready(name),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for FirstEvent {
    fn drop(&mut self) {
        for name in self.names {
            let _ = self
                .target
                .remove_event_listener_with_callback(name, self.listener.as_ref().unchecked_ref());
        }
    }
}
