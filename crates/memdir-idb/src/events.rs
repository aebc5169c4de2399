//! Waiting for how an IndexedDB request or transaction ends.
//!
//! The `idb` crate's transaction future resolves on the first request `error`, which
//! fires *before* the transaction has rolled back, and its open future has no way to
//! give up on `blocked`. We need "complete or abort, whichever ends it" and "success,
//! error or blocked", so [`Settled`] sets the target's own handler properties to
//! handlers shared by every request and resolves with the first that fires.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::Function;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, IdbOpenDbRequest, IdbRequest, IdbTransaction};

/// How a request or a transaction ended, as [`Settled`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A request's `success`, a transaction's `complete`.
    Done,
    /// A request's `error`, a transaction's `abort`.
    Failed,
    /// An open or delete request's `blocked`: another connection holds the
    /// database at an older version.
    Blocked,
}

/// A future waiting for a target's [`Outcome`], in the table the two shared
/// handlers look it up in.
struct Waiting {
    target: JsValue,
    slot: Rc<RefCell<SettledSlot>>,
}

#[derive(Default)]
struct SettledSlot {
    outcome: Option<Outcome>,
    waker: Option<Waker>,
}

/// The handlers every request and transaction shares, made once (kept in
/// [`HANDLERS`]): they find the future waiting for the event's target in [`WAITING`].
struct Handlers {
    done: JsValue,
    failed: JsValue,
    blocked: JsValue,
}

impl Handlers {
    fn new() -> Self {
        Handlers {
            done: handler(Outcome::Done),
            failed: handler(Outcome::Failed),
            blocked: handler(Outcome::Blocked),
        }
    }
}

thread_local! {
    /// Made on first use and kept for the page's life: three functions.
    static HANDLERS: Handlers = Handlers::new();
}

thread_local! {
    /// The requests and transactions being awaited: one per command in flight (two
    /// in a read that misses `kv`). Each leaves on its first event, which always
    /// comes: IndexedDB ends every request in `success` or `error` (its
    /// transaction's abort included) and every transaction in `complete` or
    /// `abort`, so one whose future was dropped early leaves then too.
    static WAITING: RefCell<Vec<Waiting>> = const { RefCell::new(Vec::new()) };
}

/// How many requests, transactions and timers are in the table now (a test hook).
#[cfg(feature = "testing")]
pub(crate) fn awaited() -> usize {
    WAITING.with(|w| w.borrow().len())
}

/// One handler for good: it lives as long as the page, as the table does.
fn handler(outcome: Outcome) -> JsValue {
    Closure::<dyn FnMut(Event)>::new(move |event: Event| {
        let Some(target) = event.target() else {
            return;
        };
        let target = JsValue::from(target);
        let found = WAITING.with(|w| {
            let mut w = w.borrow_mut();
            let at = w.iter().position(|x| x.target == target)?;
            Some(w.swap_remove(at))
        });
        let Some(Waiting { slot, .. }) = found else {
            return;
        };
        let waker = {
            let mut s = slot.borrow_mut();
            s.outcome = Some(outcome);
            s.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    })
    .into_js_value()
}

/// Resolves with how a request (`success` or `error`; an open request also
/// `blocked`) or a transaction (`complete` or `abort`) ended, whichever comes
/// first. A warm view is one request, so this is on every command's path: no
/// closure is made per request, no event name crosses into JS, no listener is
/// added or removed; the target's handler properties are set to the shared
/// handlers, which find the waiting future by the event's target. The properties
/// are ours: nothing else in this crate sets those of a target it awaits this way.
pub(crate) struct Settled {
    slot: Rc<RefCell<SettledSlot>>,
}

impl Settled {
    /// Must be called before control returns to the event loop, or the event may
    /// already have fired.
    pub(crate) fn request(request: &IdbRequest) -> Self {
        HANDLERS.with(|h| {
            request.set_onsuccess(Some(h.done.unchecked_ref()));
            request.set_onerror(Some(h.failed.unchecked_ref()));
        });
        Self::wait(request.into())
    }

    /// As [`Settled::request`], for a transaction's `complete` or `abort`.
    pub(crate) fn transaction(tx: &IdbTransaction) -> Self {
        HANDLERS.with(|h| {
            tx.set_oncomplete(Some(h.done.unchecked_ref()));
            tx.set_onabort(Some(h.failed.unchecked_ref()));
        });
        Self::wait(tx.into())
    }

    /// As [`Settled::request`], for an open or delete request, which may also be
    /// `blocked`.
    pub(crate) fn open(request: &IdbOpenDbRequest) -> Self {
        HANDLERS.with(|h| request.set_onblocked(Some(h.blocked.unchecked_ref())));
        Self::request(request)
    }

    /// The handler a timer calls to settle the future [`Settled::wait`] made for its
    /// token (see `timer::sleep`).
    pub(crate) fn timer_handler() -> Function {
        HANDLERS.with(|h| h.done.clone().unchecked_into())
    }

    /// Waits for the shared handlers to be called for `target`.
    pub(crate) fn wait(target: JsValue) -> Self {
        let slot = Rc::new(RefCell::new(SettledSlot::default()));
        WAITING.with(|w| {
            w.borrow_mut().push(Waiting {
                target,
                slot: Rc::clone(&slot),
            });
        });
        Settled { slot }
    }
}

impl Future for Settled {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let mut s = self.slot.borrow_mut();
        match s.outcome {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
