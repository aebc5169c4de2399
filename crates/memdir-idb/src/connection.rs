//! Opening a memory's database: its name, its one object store, and the refusals
//! (private mode, a blocked upgrade, a newer version) that make it unavailable.

use memdir::StoreError;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, IdbDatabase, IdbFactory, IdbOpenDbRequest};

use crate::errors;
use crate::events::FirstEvent;

/// The one object store of a memory's database: string keys, `Uint8Array` values.
pub(crate) const OBJECTS: &str = "kv";

/// Schema version. Bump it (and handle the old one in `upgrade`) when the layout
/// changes; tabs still on the old version close on `versionchange`.
pub(crate) const VERSION: u32 = 1;

/// Database name for a memory namespace: prefixed so memdir's databases are
/// recognisable among an origin's others.
pub fn database_name(namespace: &str) -> String {
    format!("memdir:{namespace}")
}

fn factory() -> Result<IdbFactory, StoreError> {
    // `indexedDB` is missing in some contexts and throws SecurityError in others
    // (sandboxed frames, storage disabled); both mean: not available here.
    idb::Factory::new()
        .map(Into::into)
        .map_err(|_| StoreError::Unavailable)
}

/// Opens (creating or upgrading) the database, failing fast instead of waiting when
/// another connection blocks the upgrade.
pub(crate) async fn open(db_name: &str, version: u32) -> Result<IdbDatabase, StoreError> {
    let request: IdbOpenDbRequest = factory()?.open_with_u32(db_name, version).map_err(|e| {
        errors::name_of(&e).map_or(StoreError::Unavailable, |n| errors::from_open_name(&n))
    })?;
    // Handed to the JS GC so it outlives an early return on `blocked`: the upgrade
    // may still run later and must still create the object store.
    let upgrade = Closure::<dyn FnMut(Event)>::new(|event: Event| {
        let db = event
            .target()
            .and_then(|t| t.dyn_into::<IdbOpenDbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok());
        if let Some(db) = db
            && !db.object_store_names().contains(OBJECTS)
        {
            // A failure here aborts the upgrade, which fails the open request.
            let _ = db.create_object_store(OBJECTS);
        }
    })
    .into_js_value();
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));

    let outcome = FirstEvent::new(&request, &["success", "error", "blocked"]).await;
    match outcome {
        "success" => request
            .result()
            .ok()
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
            .ok_or(StoreError::Unavailable),
        "blocked" => {
            // Another tab holds an older version open and will not close. Give up now;
            // if the open succeeds later, close it at once so it blocks nobody.
            let late = Closure::once_into_js(|event: Event| {
                let db = event
                    .target()
                    .and_then(|t| t.dyn_into::<IdbOpenDbRequest>().ok())
                    .and_then(|r| r.result().ok())
                    .and_then(|r| r.dyn_into::<IdbDatabase>().ok());
                if let Some(db) = db {
                    db.close();
                }
            });
            request.set_onsuccess(Some(late.unchecked_ref()));
            Err(StoreError::Unavailable)
        }
        _ => {
            let name = request.error().ok().flatten().map(|e| e.name());
            Err(name.map_or(StoreError::Unavailable, |n| errors::from_open_name(&n)))
        }
    }
}

/// Deletes a memory's database. Other connections (other tabs) close on the
/// `versionchange` this causes, so this waits for nobody.
pub async fn delete_database(namespace: &str) -> Result<(), StoreError> {
    let request = factory()?
        .delete_database(&database_name(namespace))
        .map_err(|e| {
            errors::name_of(&e).map_or(StoreError::Unavailable, |n| errors::from_open_name(&n))
        })?;
    match FirstEvent::new(&request, &["success", "error", "blocked"]).await {
        "success" => Ok(()),
        // Blocked: the delete stays queued and happens once the holder closes.
        "blocked" => Err(StoreError::Unavailable),
        _ => Err(StoreError::Failed),
    }
}

/// Whether an event target is this connection.
pub(crate) fn same(db: &IdbDatabase, target: Option<web_sys::EventTarget>) -> bool {
    target.is_some_and(|t| JsValue::from(t) == JsValue::from(db.clone()))
}
