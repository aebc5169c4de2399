//! The memdir engine for JavaScript: what `dist/memdir_wasm.js` exports.
//!
//! This is the low-level half of the npm package; `js/core.js` wraps it into the
//! SDK-shaped surface (`openMemory`, `betaMemoryTool`, the store factories). Inputs
//! cross the boundary as JSON text made by `JSON.stringify` on the JS side, so a
//! lone surrogate or a throwing getter never reaches Rust as a lossy string, and no
//! call here can trap: every failure comes back as a rejected promise or an error
//! result.

extern crate alloc;

mod any_store;
#[cfg(feature = "bench")]
mod bench;
// The stores' catalog and the directory store's rules: only a server runs them, so
// the browser build (feature `indexeddb`) leaves them out.
#[cfg(not(any(feature = "indexeddb", feature = "tool")))]
mod catalog;
// `memdir serve`'s encryption at rest (master key, shredding, re-wrapping): only a
// server runs it, as the catalog.
mod defaults;
mod embedder;
mod heap;
#[cfg(feature = "indexeddb")]
mod idb;
// The JS store protocol's adapter (`customStore`): not in the lean build (feature `tool`).
#[cfg(not(feature = "tool"))]
mod js_store;
mod memory;
#[cfg(not(any(feature = "indexeddb", feature = "tool")))]
mod serve_seal;
// The PostgreSQL store's rules; only Node's full build runs it.
#[cfg(not(any(feature = "indexeddb", feature = "tool")))]
mod postgres;
// Encryption at rest: a store handle opened through `memdir::seal`, every build.
mod seal;
// The Node directory store: the format's rules, the protocol and the engine's
// native store over it; the browser has no directory store.
#[cfg(not(feature = "indexeddb"))]
mod store_dir;
// Sync with a Memory Stores API store: not in the lean build (feature `tool`).
#[cfg(not(feature = "tool"))]
mod sync;
mod to_js;

use alloc::boxed::Box;
use alloc::string::String;
use core::cell::Cell;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::prelude::*;

pub use any_store::{AnyStore, Backend};
#[cfg(not(feature = "tool"))]
pub use js_store::JsStore;
pub use memory::Memory;
#[cfg(not(feature = "indexeddb"))]
use store_dir::protocol::DirProtocol;

/// A store the engine can run on, whatever its backend; made by `memoryStore()` or
/// `jsStore(obj)`. Opening several memories over one handle shares its data, which
/// models several clients (tabs, isolates) over one backend.
#[wasm_bindgen]
pub struct StoreHandle {
    store: AnyStore,
}

#[wasm_bindgen]
impl StoreHandle {
    /// `"memory"`, `"js"` or `"indexeddb"`.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> String {
        String::from(self.store.kind())
    }
}

impl StoreHandle {
    pub fn new(store: AnyStore) -> StoreHandle {
        StoreHandle { store }
    }

    pub fn store(&self) -> &AnyStore {
        &self.store
    }
}

/// A native in-memory store, inside the wasm instance.
#[wasm_bindgen(js_name = memoryStore)]
pub fn memory_store() -> StoreHandle {
    StoreHandle::new(Backend::Memory(memdir::MemoryStore::new()).into())
}

/// Adapts an object following the JS store protocol; throws a `TypeError` naming
/// the missing method when it does not.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = jsStore)]
pub fn js_store(obj: JsValue) -> Result<StoreHandle, JsValue> {
    JsStore::new(obj)
        .map(|s| StoreHandle::new(Backend::Js(s).into()))
        .map_err(|m| js_sys::TypeError::new(&m).into())
}

// The Node directory store's handle for the engine: beside the other stores'
// handles, above both the protocol (`store_dir/protocol.rs`) and the store over it
// (`store_dir/store.rs`), so that neither names the other.
#[cfg(not(feature = "indexeddb"))]
#[wasm_bindgen]
impl DirProtocol {
    /// This directory as a store the engine calls without the JS store protocol:
    /// reads are direct calls, and a change hands its waits and fsyncs to `driver`
    /// (open the directory first).
    #[wasm_bindgen(js_name = storeHandle)]
    pub fn store_handle(&self, driver: store_dir::store::JsDriver) -> StoreHandle {
        StoreHandle::new(
            Backend::Dir(store_dir::store::DirStore::new(self.core.clone(), driver)).into(),
        )
    }
}

/// Runs the engine's store-contract suite against an empty store; rejects with an
/// `Error` naming the first broken promise. A test helper, shipped so that an
/// application can check its own `customStore` the same way.
// A test helper: not in the lean build (feature `tool`).
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = checkStoreContract)]
pub fn check_store_contract(handle: &StoreHandle) -> Promise {
    let store = handle.store.clone();
    promise(async move {
        memdir::contract::check(&store)
            .await
            .map(|()| JsValue::UNDEFINED)
            .map_err(|m| js_sys::Error::new(&m).into())
    })
}

/// The promise of an exported async method. Every method goes through this one
/// boxed future type, so `future_to_promise` and its task are compiled once instead
/// of once per method, each copy with that method's whole body inlined into it.
pub(crate) fn promise(body: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    one_promise(Box::pin(body))
}

#[inline(never)]
fn one_promise(body: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>) -> Promise {
    let mut body = Marked(body);
    // Polled once at once: a command on a store that answers at once (in memory)
    // is done here and its promise made settled, with no task queued and no
    // microtask to run it (10% of a view). A call made while a body is being
    // polled (a JS store's callback calling back into memdir) is queued instead,
    // as every call was, so no engine code ever runs inside another's.
    if !POLLING.get()
        && let Poll::Ready(answer) =
            Pin::new(&mut body).poll(&mut Context::from_waker(Waker::noop()))
    {
        heap::keep_headroom();
        return match answer {
            Ok(value) => Promise::resolve(&value),
            Err(e) => Promise::reject(&e),
        };
    }
    // Not done: the task polls it again with its own waker, which each future
    // waiting keeps from then on (a future wakes the waker it was polled with last).
    wasm_bindgen_futures::future_to_promise(async move {
        let answer = body.await;
        heap::keep_headroom();
        answer
    })
}

thread_local! {
    /// Whether a [`Marked`] body is being polled now.
    static POLLING: Cell<bool> = const { Cell::new(false) };
}

/// An exported method's body, marking [`POLLING`] while it is polled.
struct Marked(Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>);

impl Future for Marked {
    type Output = Result<JsValue, JsValue>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let outer = POLLING.replace(true);
        let polled = self.0.as_mut().poll(cx);
        POLLING.set(outer);
        polled
    }
}
