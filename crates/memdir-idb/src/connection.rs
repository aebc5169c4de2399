//! Opening a memory's database: its name, its two object stores, and the refusals
//! (private mode, a blocked upgrade, a newer version) that make it unavailable.

use memdir::StoreError;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Event, IdbDatabase, IdbFactory, IdbIndexParameters, IdbObjectStoreParameters, IdbOpenDbRequest,
};

use crate::errors;
use crate::events::{Outcome, Settled};
use crate::names::{OBJECTS, PACKED_KEYS, PACKS};

/// Schema version. Bump it (and handle the old one in `upgrade`) when the layout
/// changes; tabs still on the old version close on `versionchange`. Version 2 added
/// [`PACKS`]; a version-1 database upgrades by gaining it, its `kv` records kept.
pub(crate) const VERSION: u32 = 2;

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
        // A failure here aborts the upgrade, which fails the open request.
        if let Some(db) = db {
            if !db.object_store_names().contains(OBJECTS) {
                let _ = db.create_object_store(OBJECTS);
            }
            if !db.object_store_names().contains(PACKS) {
                let params = IdbObjectStoreParameters::new();
                params.set_auto_increment(true);
                if let Ok(packs) = db.create_object_store_with_optional_parameters(PACKS, &params) {
                    let index = IdbIndexParameters::new();
                    index.set_multi_entry(true);
                    let _ = packs.create_index_with_str_and_optional_parameters(
                        PACKED_KEYS,
                        PACKED_KEYS,
                        &index,
                    );
                }
            }
        }
    })
    .into_js_value();
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));

    let outcome = Settled::open(&request).await;
    match outcome {
        Outcome::Done => request
            .result()
            .ok()
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
            .ok_or(StoreError::Unavailable),
        Outcome::Blocked => {
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
        Outcome::Failed => {
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
    match Settled::open(&request).await {
        Outcome::Done => Ok(()),
        // Blocked: the delete stays queued and happens once the holder closes.
        Outcome::Blocked => Err(StoreError::Unavailable),
        Outcome::Failed => Err(StoreError::Failed),
    }
}

/// Whether an event target is this connection.
pub(crate) fn same(db: &IdbDatabase, target: Option<web_sys::EventTarget>) -> bool {
    target.is_some_and(|t| JsValue::from(t) == JsValue::from(db.clone()))
}
