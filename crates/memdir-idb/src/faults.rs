//! Fault injection inside the one commit algorithm, for the all-or-nothing tests.
//!
//! [`Store::commit`](memdir::Store::commit) numbers its requests as it places them
//! (the head's read, each object, the head's write) and calls [`CommitFaults`] before
//! and after each, and once all are placed. With the `testing` feature a planned [`Fault`] fires at its step;
//! without it `CommitFaults` is a zero-sized type whose methods do nothing, so the
//! shipped commit is the tested commit minus two empty calls per request.
//!
//! Why a feature and not a field that is merely unset: the npm package must not
//! carry a way to abort its own transactions, and a feature costs nothing at run
//! time. The crate's dev-dependency on itself turns it on for its own tests only.

#[cfg(feature = "testing")]
pub use armed::Fault;
#[cfg(feature = "testing")]
pub(crate) use armed::Faults;
#[cfg(not(feature = "testing"))]
pub(crate) use unarmed::Faults;

#[cfg(not(feature = "testing"))]
mod unarmed {
    use wasm_bindgen::JsValue;
    use web_sys::{IdbRequest, IdbTransaction};

    pub(crate) struct Faults;

    impl Faults {
        pub(crate) fn new() -> Self {
            Faults
        }

        #[inline(always)]
        pub(crate) fn arm(&self, _tx: &IdbTransaction) -> CommitFaults {
            CommitFaults
        }
    }

    pub(crate) struct CommitFaults;

    impl CommitFaults {
        #[inline(always)]
        pub(crate) fn placing(&mut self) -> Result<(), JsValue> {
            Ok(())
        }

        #[inline(always)]
        pub(crate) fn placed(&mut self, _request: &IdbRequest) {}

        #[inline(always)]
        pub(crate) fn sealed(&mut self) {}
    }
}

#[cfg(feature = "testing")]
mod armed {
    use std::cell::Cell;
    use std::rc::Rc;

    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{Event, IdbRequest, IdbTransaction};

    /// What goes wrong in the next commit. Requests are numbered from 0 in the order
    /// the commit places them: the head's read, each object, the head's write.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Fault {
        /// The transaction is aborted once `k` requests have succeeded (their writes
        /// are in the transaction, not yet committed): 0 = every request placed and
        /// none run yet; the number of requests = after the head's write, just
        /// before `complete`. (Like the browser's own aborts, it never comes while
        /// the commit is still placing requests.)
        AbortAfter(usize),
        /// Placing request `k` throws, as a full or broken database would.
        FailPlacing(usize),
    }

    /// The plan for the next commit and how many faults have actually fired, shared
    /// by every clone of a store.
    #[derive(Default)]
    pub(crate) struct Faults {
        next: Cell<Option<Fault>>,
        fired: Rc<Cell<usize>>,
    }

    impl Faults {
        pub(crate) fn new() -> Self {
            Self::default()
        }

        pub(crate) fn plan(&self, fault: Fault) {
            self.next.set(Some(fault));
        }

        pub(crate) fn fired(&self) -> usize {
            self.fired.get()
        }

        /// The next commit's hooks; the plan is used up by this one commit.
        pub(crate) fn arm(&self, tx: &IdbTransaction) -> CommitFaults {
            CommitFaults {
                fault: self.next.take(),
                tx: tx.clone(),
                fired: Rc::clone(&self.fired),
                placed: 0,
            }
        }
    }

    pub(crate) struct CommitFaults {
        fault: Option<Fault>,
        tx: IdbTransaction,
        fired: Rc<Cell<usize>>,
        /// Requests placed so far.
        placed: usize,
    }

    impl CommitFaults {
        /// Before placing a request: the injected error if this one is to fail.
        pub(crate) fn placing(&mut self) -> Result<(), JsValue> {
            if self.fault == Some(Fault::FailPlacing(self.placed)) {
                self.fault = None;
                self.fired.set(self.fired.get() + 1);
                return Err(JsValue::from_str("injected fault"));
            }
            Ok(())
        }

        /// After placing a request: abort in its `success` event if the plan says
        /// the transaction dies once this many requests have succeeded.
        pub(crate) fn placed(&mut self, request: &IdbRequest) {
            self.placed += 1;
            if self.fault != Some(Fault::AbortAfter(self.placed)) {
                return;
            }
            self.fault = None;
            let (tx, fired) = (self.tx.clone(), Rc::clone(&self.fired));
            // Owned by the JS GC from here; it runs at most once.
            let on_success = Closure::once_into_js(move |_: Event| abort(&tx, &fired));
            let _ = request.add_event_listener_with_callback("success", on_success.unchecked_ref());
        }

        /// Every request is placed and none has run yet.
        pub(crate) fn sealed(&mut self) {
            if self.fault == Some(Fault::AbortAfter(0)) {
                self.fault = None;
                abort(&self.tx, &self.fired);
            }
        }
    }

    /// Counts the fault only if the abort took: a transaction the head check already
    /// aborted was not aborted by us.
    fn abort(tx: &IdbTransaction, fired: &Cell<usize>) {
        if tx.abort().is_ok() {
            fired.set(fired.get() + 1);
        }
    }
}
