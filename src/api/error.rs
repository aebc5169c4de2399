//! Every way an API request can fail, as one enum whose `Display` is the message
//! the client reads; [`ApiError::type_name`] and [`ApiError::status`] are the
//! error object's `type` and the HTTP status, decided here for every server.

use alloc::format;
use alloc::string::String;
use core::fmt;

use serde_json::{Value, json};

use crate::config::MAX_QUERY_CHARS;
use crate::error::{Echo, Refusal, ToolError};
use crate::number::Thousands;
use crate::path::{PathError, StorePathFault};
use crate::storage::meta::MetaFault;
use crate::store::StoreError;

/// Why a Memory Stores API operation failed: each variant is one of the API's
/// error types, with its status ([`ApiError::status`]) and body.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiError {
    /// A malformed request or one a rule refuses.
    Invalid(String),
    /// No such store, memory, version or route.
    NotFound(String),
    /// A precondition does not hold.
    Precondition(String),
    /// The path, or an ancestor or descendant of it, is taken.
    PathConflict {
        /// The error's message.
        message: String,
        /// The path that blocks.
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
    /// A semantic or hybrid search's embedder failed or answered what memdir
    /// refuses (the engine's words, never the embedder's own text).
    Embedder(String),
}

impl ApiError {
    /// The API's error `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ApiError::Invalid(_) => "invalid_request_error",
            ApiError::NotFound(_) => "not_found_error",
            ApiError::Precondition(_) => "memory_precondition_failed_error",
            ApiError::PathConflict { .. } => "memory_path_conflict_error",
            ApiError::TooLarge(_) => "request_too_large",
            ApiError::Storage | ApiError::Damaged | ApiError::Unerased => "api_error",
            ApiError::Embedder(_) => "api_error",
            ApiError::Busy => "overloaded_error",
            ApiError::ReadOnly => "permission_error",
        }
    }

    /// The HTTP status the API answers with.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::Invalid(_) => 400,
            ApiError::NotFound(_) => 404,
            ApiError::Precondition(_) | ApiError::PathConflict { .. } => 409,
            ApiError::TooLarge(_) => 413,
            ApiError::Storage | ApiError::Damaged | ApiError::Unerased => 500,
            // The server's embedder (a hosted API behind it) failed: not the client's
            // request, and not the store either.
            ApiError::Embedder(_) => 502,
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
            | ApiError::Embedder(m)
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

impl core::error::Error for ApiError {}

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

impl From<crate::search::error::SearchError> for ApiError {
    fn from(e: crate::search::error::SearchError) -> ApiError {
        use crate::search::error::SearchError as S;
        match e {
            S::Store(e) => e.into(),
            S::Embed(_) => ApiError::Embedder(alloc::format!("{e}")),
            // The rest are the request's: a mode without an embedder, a bad option,
            // a store too big for the exact scan (mode 'lexical' still answers).
            other => ApiError::Invalid(alloc::format!("{other}")),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Damaged => ApiError::Damaged,
            _ => ApiError::Storage,
        }
    }
}

/// The refusals the API words in more than one place, or whose rule lives in
/// another file: found here by their text.
impl ApiError {
    /// A memory id this store does not hold.
    pub(crate) fn no_memory(id: &str) -> ApiError {
        ApiError::NotFound(format!("No memory {} in this store.", Echo(id)))
    }

    /// A version id this store does not hold (never made, of another store, or
    /// dropped by retention).
    pub(crate) fn no_version(id: &str) -> ApiError {
        ApiError::NotFound(format!("No memory version {} in this store.", Echo(id)))
    }

    /// A request for a store that has no record.
    pub(crate) fn no_store() -> ApiError {
        ApiError::NotFound("No memory store here.".into())
    }

    /// A `page` token that is not one this list and query gave.
    pub(crate) fn bad_page_token() -> ApiError {
        ApiError::Invalid("page is not a page token of this list and query".into())
    }

    /// A new memory at `path` is blocked by `what` (a memory, a file or a
    /// directory) at `blocker_path`.
    /// What blocks `path`: the memory `memory_id`, or (`""`) a file memdir keeps
    /// that is no memory, or a directory.
    pub(crate) fn conflict(
        path: &str,
        blocker_path: &str,
        memory_id: String,
        is_file: bool,
    ) -> ApiError {
        let what = match (memory_id.as_str(), is_file) {
            ("", true) => String::from("a file"),
            ("", false) => String::from("a directory"),
            (id, _) => format!("memory {id}"),
        };
        ApiError::PathConflict {
            message: format!("The path {path} conflicts with {what} at {blocker_path}."),
            path: blocker_path.into(),
            memory_id,
        }
    }

    /// `not_exists` on a create whose path is taken.
    pub(crate) fn taken(store_path: &str) -> ApiError {
        ApiError::Precondition(format!(
            "The precondition not_exists failed: something is already at {store_path}."
        ))
    }

    /// `not_exists` on an update that renames a memory onto itself.
    pub(crate) fn exists(memory_id: &str) -> ApiError {
        ApiError::Precondition(format!(
            "The precondition not_exists failed: memory {memory_id} exists; not_exists makes a rename a no-op when its new path is taken."
        ))
    }

    /// `content_sha256` on an update whose memory has changed.
    pub(crate) fn changed(memory_id: &str) -> ApiError {
        ApiError::Precondition(format!(
            "The precondition content_sha256 failed: memory {memory_id} has changed since that hash was read."
        ))
    }

    /// `expected_content_sha256` on a delete whose memory has changed.
    pub(crate) fn changed_before_delete(memory_id: &str) -> ApiError {
        ApiError::Precondition(format!(
            "The precondition expected_content_sha256 failed: memory {memory_id} has changed since that hash was read; nothing was deleted."
        ))
    }

    /// A create in a store that holds `cap` memories already.
    pub(crate) fn store_full(cap: u64) -> ApiError {
        ApiError::Invalid(format!(
            "This memory store holds {} memories, the most it may; delete some first.",
            Thousands(cap)
        ))
    }

    /// A body over [`MAX_API_BODY_BYTES`](crate::config::MAX_API_BODY_BYTES).
    pub(crate) fn body_too_large() -> ApiError {
        ApiError::TooLarge(format!(
            "The request body is over {} bytes.",
            Thousands(crate::config::MAX_API_BODY_BYTES as u64)
        ))
    }

    /// A request for a store no mount names.
    pub(crate) fn no_mount(name: &str) -> ApiError {
        ApiError::NotFound(format!("No memory store is mounted at {}.", Echo(name)))
    }

    /// A request whose `op` the API does not have.
    pub(crate) fn no_operation(op: &str) -> ApiError {
        ApiError::NotFound(format!("No operation {}.", Echo(op)))
    }

    /// Request text that is not JSON.
    pub(crate) fn request_not_json() -> ApiError {
        ApiError::Invalid("the request is not valid JSON".into())
    }

    /// A request that is not `{op, id?, query?, body?, actor?}`.
    pub(crate) fn not_a_request() -> ApiError {
        ApiError::Invalid("not a memdir API request: {op, id?, query?, body?, actor?}".into())
    }

    /// An actor whose id breaks the actor rule.
    pub(crate) fn bad_actor() -> ApiError {
        ApiError::Invalid(format!(
            "actor: its id must be 1 to {} characters without control characters",
            crate::config::MAX_ACTOR_ID_CHARS
        ))
    }

    /// A `view` that is neither `basic` nor `full`.
    pub(crate) fn bad_view(v: &str) -> ApiError {
        ApiError::Invalid(format!("view must be basic or full, got {}", Echo(v)))
    }

    /// A create or change in an archived store.
    pub(crate) fn archived() -> ApiError {
        ApiError::Invalid(
            "This memory store is archived: its memories can be read and deleted, not created or changed.".into(),
        )
    }

    /// A redaction of the version that holds a memory's current content.
    pub(crate) fn current_version(version_id: &str, memory_id: &str) -> ApiError {
        ApiError::Invalid(format!(
            "Version {version_id} holds the current content of memory {memory_id}; update or delete the memory first, then redact this version."
        ))
    }

    /// Content over the store's per-file limit.
    pub(crate) fn content_too_large(max: usize, got: usize) -> ApiError {
        ApiError::Invalid(format!(
            "content must be at most {} bytes, got {}",
            Thousands(max as u64),
            Thousands(got as u64)
        ))
    }

    /// Content the store's secret policy refuses.
    pub(crate) fn credential(kind: &str) -> ApiError {
        ApiError::Invalid(format!(
            "content looks like it holds a credential ({kind}); this store refuses to keep it"
        ))
    }
}

/// A store path's broken rule, in the API's words, quoting the path as `shown`.
pub(crate) fn store_path_refusal(f: &StorePathFault, shown: &str) -> ApiError {
    use crate::config::{MAX_SEGMENTS, MAX_STORE_PATH_BYTES};
    ApiError::Invalid(match f {
        StorePathFault::NoSlash => alloc::format!("path must start with '/', got {}", Echo(shown)),
        StorePathFault::TooLong(n) => {
            alloc::format!("path must be at most {MAX_STORE_PATH_BYTES} bytes, got {n}")
        }
        StorePathFault::EmptySegment => {
            alloc::format!("path must not have an empty segment: {shown:?}")
        }
        StorePathFault::TooManySegments(n) => {
            alloc::format!("path must have at most {MAX_SEGMENTS} segments, got {n}")
        }
        StorePathFault::Directory => {
            alloc::format!("path {shown:?} is not valid: it names a directory")
        }
        StorePathFault::Invalid(e) => {
            alloc::format!("path {shown:?} is not valid: {}", path_reason(e))
        }
    })
}

/// Why the memory tool's rules refuse a path, in the API's words.
fn path_reason(e: &PathError) -> &'static str {
    match e.rule() {
        "length" => "it is too long once mounted at /memories (1,024 bytes with that prefix)",
        "escape" => "a segment is '.' or '..', or holds a separator or a look-alike of one",
        "empty" => "it has an empty segment",
        "control" => "it holds a control character",
        "format" => "it holds a format character (or U+2028, U+2029)",
        "nfc" => "it is not in Unicode Normalization Form C",
        "segment" => "a segment is longer than 255 bytes",
        _ => "it breaks the path rules",
    }
}

/// A store record's broken rule, in the API's words.
impl From<MetaFault> for ApiError {
    fn from(f: MetaFault) -> ApiError {
        use crate::config::{
            MAX_DESCRIPTION_CHARS, MAX_METADATA_KEY_CHARS, MAX_METADATA_PAIRS,
            MAX_METADATA_VALUE_CHARS, MAX_NAME_CHARS,
        };
        ApiError::Invalid(match f {
            MetaFault::BadId => "bad store id".into(),
            MetaFault::NameLength(n) => {
                alloc::format!("name must be 1 to {MAX_NAME_CHARS} characters, got {n}")
            }
            MetaFault::NameControl => "name must not contain control characters".into(),
            MetaFault::DescriptionLength(n) => alloc::format!(
                "description must be at most {MAX_DESCRIPTION_CHARS} characters, got {n}"
            ),
            MetaFault::MetadataPairs(n) => {
                alloc::format!("metadata must have at most {MAX_METADATA_PAIRS} pairs, got {n}")
            }
            MetaFault::MetadataKeyLength(kn) => alloc::format!(
                "metadata keys must be 1 to {MAX_METADATA_KEY_CHARS} characters, got {kn}"
            ),
            MetaFault::MetadataValueLength { chars, key } => alloc::format!(
                "metadata values must be at most {MAX_METADATA_VALUE_CHARS} characters, got {chars} for key {}",
                Echo(key.as_str())
            ),
        })
    }
}

/// How a request's body or query is refused: each field check's words.
impl ApiError {
    pub(crate) fn body_not_json() -> ApiError {
        ApiError::Invalid("the body is not valid JSON".into())
    }

    pub(crate) fn body_not_object(got: &Value) -> ApiError {
        ApiError::Invalid(format!(
            "the body must be a JSON object, got {}",
            json_kind(got)
        ))
    }

    pub(crate) fn unknown_field(name: &str) -> ApiError {
        ApiError::Invalid(format!("{name}: unknown field"))
    }

    pub(crate) fn required(name: &str) -> ApiError {
        ApiError::Invalid(format!("{name} is required"))
    }

    /// `want`: the type in words, `a string`.
    pub(crate) fn wrong_type(name: &str, want: &str, got: &Value) -> ApiError {
        ApiError::Invalid(format!("{name}: expected {want}, got {}", json_kind(got)))
    }

    pub(crate) fn query_number(name: &str, min: u64, max: u64, raw: &str) -> ApiError {
        ApiError::Invalid(format!(
            "{name} must be a whole number from {min} to {max}, got {}",
            Echo(raw)
        ))
    }

    pub(crate) fn query_bool(name: &str, raw: &str) -> ApiError {
        ApiError::Invalid(format!("{name} must be true or false, got {}", Echo(raw)))
    }

    pub(crate) fn query_time(name: &str, raw: &str) -> ApiError {
        ApiError::Invalid(format!(
            "{name} must be an RFC 3339 date-time, got {}",
            Echo(raw)
        ))
    }

    pub(crate) fn query_length(chars: usize) -> ApiError {
        ApiError::Invalid(format!(
            "query must be 1 to {MAX_QUERY_CHARS} characters, got {chars}"
        ))
    }

    pub(crate) fn prefix_shape(prefix: &str) -> ApiError {
        ApiError::Invalid(format!(
            "path_prefix must start and end with '/', got {}",
            Echo(prefix)
        ))
    }

    pub(crate) fn not_sha256(name: &str) -> ApiError {
        ApiError::Invalid(format!(
            "{name} must be 64 lowercase hexadecimal characters"
        ))
    }

    pub(crate) fn precondition_shape() -> ApiError {
        ApiError::Invalid("precondition: expected an object with a type".into())
    }

    pub(crate) fn precondition_type(got: &str) -> ApiError {
        ApiError::Invalid(format!(
            "precondition.type must be content_sha256 or not_exists, got {}",
            Echo(got)
        ))
    }

    pub(crate) fn create_precondition() -> ApiError {
        ApiError::Invalid("precondition.type must be not_exists when creating a memory".into())
    }

    pub(crate) fn operation_filter(got: &str) -> ApiError {
        ApiError::Invalid(format!(
            "operation must be created, modified or deleted, got {}",
            Echo(got)
        ))
    }

    pub(crate) fn two_actors() -> ApiError {
        ApiError::Invalid(
            "give at most one of session_id, api_key_id, user_id and service_account_id".into(),
        )
    }

    /// `or_null`: an update, where `null` removes the key.
    pub(crate) fn metadata_value(key: &str, or_null: bool) -> ApiError {
        let null = if or_null { " or null" } else { "" };
        ApiError::Invalid(format!(
            "metadata values must be strings{null} (key {})",
            Echo(key)
        ))
    }

    pub(crate) fn not_a_store_id(id: &str) -> ApiError {
        ApiError::Invalid(format!("not a memory store id: {}", Echo(id)))
    }

    pub(crate) fn store_exists() -> ApiError {
        ApiError::Invalid("This store already has a record.".into())
    }

    pub(crate) fn store_archived() -> ApiError {
        ApiError::Invalid("This memory store is archived and cannot be updated.".into())
    }
}

/// What kind of JSON value `v` is, in words (for refusals that name a field's type).
pub(crate) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
