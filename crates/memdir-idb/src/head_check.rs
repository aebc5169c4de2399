//! Deciding the compare-and-swap inside the head read's own success event.
//!
//! A commit puts its objects and the new head right away, in the same transaction
//! as the read of the current head, and lets the read's `success` handler decide:
//! still what the engine expected, or the transaction is aborted on the spot and
//! every put with it. IndexedDB cannot commit a transaction while a request placed
//! after the read (the head's put) is still pending, so the abort always comes in
//! time; and nothing waits a round trip for the head before writing it.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Uint8Array;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, IdbObjectStore, IdbRequest, IdbTransaction};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The read has not succeeded (yet): the transaction ended some other way.
    Pending,
    Matches,
    /// Another writer moved the head first: the transaction was aborted.
    Differs,
    /// The head holds something that is not ours: the transaction was aborted.
    Unreadable,
}

pub(crate) struct HeadCheck {
    request: IdbRequest,
    verdict: Rc<Cell<Verdict>>,
    _on_success: Closure<dyn FnMut(Event)>,
}

impl HeadCheck {
    /// Places the read of `key` in `tx`; call before placing the puts.
    pub(crate) fn place(
        store: &IdbObjectStore,
        tx: &IdbTransaction,
        key: &JsValue,
        expected: Option<&[u8]>,
    ) -> Result<Self, JsValue> {
        let request = store.get(key)?;
        let verdict = Rc::new(Cell::new(Verdict::Pending));
        let expected = expected.map(<[u8]>::to_vec);
        let (seen, tx) = (Rc::clone(&verdict), tx.clone());
        let on_success = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let current = event
                .target()
                .and_then(|t| t.dyn_into::<IdbRequest>().ok())
                .and_then(|r| r.result().ok());
            let v = match current {
                Some(v) if v.is_undefined() => compare(None, expected.as_deref()),
                Some(v) => match v.dyn_into::<Uint8Array>() {
                    Ok(a) => compare(Some(&a.to_vec()), expected.as_deref()),
                    Err(_) => Verdict::Unreadable,
                },
                None => Verdict::Unreadable,
            };
            seen.set(v);
            if v != Verdict::Matches {
                let _ = tx.abort();
            }
        });
        request.set_onsuccess(Some(on_success.as_ref().unchecked_ref()));
        Ok(HeadCheck {
            request,
            verdict,
            _on_success: on_success,
        })
    }

    /// The head's read, for the fault hooks to listen to.
    pub(crate) fn request(&self) -> &IdbRequest {
        &self.request
    }

    pub(crate) fn verdict(&self) -> Verdict {
        self.verdict.get()
    }
}

fn compare(current: Option<&Vec<u8>>, expected: Option<&[u8]>) -> Verdict {
    if current.map(Vec::as_slice) == expected {
        Verdict::Matches
    } else {
        Verdict::Differs
    }
}

impl Drop for HeadCheck {
    fn drop(&mut self) {
        self.request.set_onsuccess(None);
    }
}
