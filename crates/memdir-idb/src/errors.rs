//! Which [`StoreError`] a failure of IndexedDB is.
//!
//! Only the DOMException's *name* is looked at, never its message: the message is
//! browser text and must not reach a user.

use memdir::StoreError;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::DomException;

/// A failed operation on an open database.
pub(crate) fn from_name(name: &str) -> StoreError {
    match name {
        "QuotaExceededError" => StoreError::QuotaExceeded,
        // The connection is closing or closed, or the origin may not use storage.
        "InvalidStateError" | "TransactionInactiveError" | "SecurityError" | "NotAllowedError" => {
            StoreError::Unavailable
        }
        _ => StoreError::Failed,
    }
}

/// A failure to open the database: whatever the reason (private mode, a sandboxed
/// frame, a newer version held open elsewhere), the memory cannot be reached now.
pub(crate) fn from_open_name(name: &str) -> StoreError {
    match name {
        "QuotaExceededError" => StoreError::QuotaExceeded,
        _ => StoreError::Unavailable,
    }
}

/// The DOMException name inside a thrown value, if it is one.
pub(crate) fn name_of(value: &JsValue) -> Option<String> {
    value.dyn_ref::<DomException>().map(DomException::name)
}

pub(crate) fn from_js(value: &JsValue) -> StoreError {
    name_of(value).map_or(StoreError::Failed, |n| from_name(&n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn names_map_to_kinds() {
        assert_eq!(from_name("QuotaExceededError"), StoreError::QuotaExceeded);
        assert_eq!(from_name("InvalidStateError"), StoreError::Unavailable);
        assert_eq!(from_name("DataError"), StoreError::Failed);
        assert_eq!(from_name("UnknownError"), StoreError::Failed);
        assert_eq!(from_open_name("UnknownError"), StoreError::Unavailable);
        assert_eq!(from_open_name("VersionError"), StoreError::Unavailable);
        assert_eq!(
            from_open_name("QuotaExceededError"),
            StoreError::QuotaExceeded
        );
    }
}
