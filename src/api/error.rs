//! Every way an API request can fail, as one enum whose `Display` is the message
//! the client reads; [`ApiError::type_name`] and [`ApiError::status`] are the
//! error object's `type` and the HTTP status, decided here for every server.

use alloc::string::String;
use core::fmt;

use serde_json::{Value, json};

use crate::error::{Refusal, ToolError};
use crate::store::StoreError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiError {
    /// A malformed request or one a rule refuses.
    Invalid(String),
    /// No such store, memory, version or route.
    NotFound(String),
    /// A precondition does not hold.
    Precondition(String),
    /// The path, or an ancestor or descendant of it, is taken.
    PathConflict {
        message: String,
        path: String,
        /// `""` when what blocks is a directory, not a memory.
        memory_id: String,
    },
    /// A body over the limit.
    TooLarge(String),
    /// The store failed; nothing was changed.
    Storage,
    /// A stored record is missing or unreadable.
    Damaged,
    /// Other writers kept winning the race.
    Busy,
    /// A write to a store mounted read-only.
    ReadOnly,
    /// A redaction was published, but erasing the old content then failed.
    Unerased,
}

impl ApiError {
    pub fn type_name(&self) -> &'static str {
        match self {
            ApiError::Invalid(_) => "invalid_request_error",
            ApiError::NotFound(_) => "not_found_error",
            ApiError::Precondition(_) => "memory_precondition_failed_error",
            ApiError::PathConflict { .. } => "memory_path_conflict_error",
            ApiError::TooLarge(_) => "request_too_large",
            ApiError::Storage | ApiError::Damaged | ApiError::Unerased => "api_error",
            ApiError::Busy => "overloaded_error",
            ApiError::ReadOnly => "permission_error",
        }
    }

    pub fn status(&self) -> u16 {
        match self {
            ApiError::Invalid(_) => 400,
            ApiError::NotFound(_) => 404,
            ApiError::Precondition(_) | ApiError::PathConflict { .. } => 409,
            ApiError::TooLarge(_) => 413,
            ApiError::Storage | ApiError::Damaged | ApiError::Unerased => 500,
            ApiError::Busy => 529,
            ApiError::ReadOnly => 403,
        }
    }

    /// The error object, `{"type":"error","error":{…}}`.
    pub fn body(&self) -> Value {
        let mut error = json!({"type": self.type_name(), "message": alloc::format!("{self}")});
        if let (
            ApiError::PathConflict {
                path, memory_id, ..
            },
            Some(map),
        ) = (self, error.as_object_mut())
        {
            map.insert("conflicting_path".into(), Value::from(path.as_str()));
            map.insert(
                "conflicting_memory_id".into(),
                Value::from(memory_id.as_str()),
            );
        }
        json!({"type": "error", "error": error})
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::Invalid(m)
            | ApiError::NotFound(m)
            | ApiError::Precondition(m)
            | ApiError::TooLarge(m)
            | ApiError::PathConflict { message: m, .. } => f.write_str(m),
            ApiError::Storage => f.write_str("The store failed; nothing was changed."),
            ApiError::Damaged => {
                f.write_str("The store holds a damaged record; nothing was changed.")
            }
            ApiError::Busy => f.write_str(
                "Too many concurrent writers to this store; nothing was changed. Retry.",
            ),
            ApiError::ReadOnly => {
                f.write_str("This memory store is mounted read-only; nothing was changed.")
            }
            ApiError::Unerased => f.write_str(
                "The version is redacted, but the store failed while erasing its old content; gc erases what remains.",
            ),
        }
    }
}

impl From<ToolError> for ApiError {
    fn from(e: ToolError) -> ApiError {
        match e {
            ToolError::Storage(_) => ApiError::Storage,
            ToolError::Damaged => ApiError::Damaged,
            ToolError::Busy => ApiError::Busy,
            ToolError::Refused(Refusal::StoreReadOnly) => ApiError::ReadOnly,
            other => ApiError::Invalid(alloc::format!("{other}")),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(_: StoreError) -> ApiError {
        ApiError::Storage
    }
}

/// `Err(ApiError::Invalid(format!(…)))`.
macro_rules! invalid {
    ($($t:tt)*) => { Err($crate::api::error::ApiError::Invalid(alloc::format!($($t)*))) };
}
pub(crate) use invalid;
