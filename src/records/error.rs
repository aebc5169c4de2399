//! Every way a records tool call can fail, as one enum whose `Display` is the
//! text the model reads (faces add nothing but the SDK's `Error: `).

use alloc::format;
use alloc::string::String;
use core::fmt;

use serde_json::Value;

use crate::api::error::{ApiError, json_kind};
use crate::error::Echo;
use crate::search::error::SearchError;

/// Why a records tool call failed. `Display` is the text the model sees.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RecordsError {
    /// No tool of that name.
    UnknownTool(String),
    /// The input does not hold to the tool's schema or its bounds.
    Input {
        /// The tool called.
        tool: &'static str,
        /// What is wrong.
        problem: String,
    },
    /// The retrieval query cannot be searched for, in the search's words.
    Query(SearchError),
    /// No record has that id.
    NotFound(String),
    /// A rule of the store refused the write (a size, the quota, the count of
    /// memories), in the API's words.
    Refused(String),
    /// The record was stored, but deleting records past the capacity failed.
    Pruning {
        /// The stored record's id.
        memory_id: String,
        /// What failed.
        cause: ApiError,
    },
    /// The toolset's settings are out of their bounds (a face's option).
    Settings(String),
    /// A write into a store mounted read-only (`mount`: where, e.g. `/team`).
    ReadOnly {
        /// The tool called.
        tool: &'static str,
        /// Where the store is mounted.
        mount: String,
    },
    /// The store failed, holds a damaged record, or was too busy; nothing changed.
    Failed(ApiError),
    /// memdir's own tool definitions are broken (the tests parse them all).
    Internal,
}

impl RecordsError {
    /// A short name for faces that branch (a JS `error.kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            RecordsError::UnknownTool(_) => "unknown_tool",
            RecordsError::Input { .. } | RecordsError::Query(_) => "input",
            RecordsError::NotFound(_) => "not_found",
            RecordsError::Refused(_) => "refused",
            RecordsError::Pruning { .. } => "pruning",
            RecordsError::Settings(_) => "settings",
            RecordsError::ReadOnly { .. } | RecordsError::Failed(ApiError::ReadOnly) => "read_only",
            RecordsError::Failed(ApiError::Busy) => "busy",
            RecordsError::Failed(ApiError::Damaged) => "damaged",
            RecordsError::Failed(_) => "storage_failed",
            RecordsError::Internal => "internal",
        }
    }

    pub(crate) fn input(tool: &'static str, problem: String) -> RecordsError {
        RecordsError::Input { tool, problem }
    }

    /// A field of the wrong JSON type: `want` as words (`a string`).
    pub(crate) fn wrong_type(
        tool: &'static str,
        field: &str,
        want: &str,
        got: &Value,
    ) -> RecordsError {
        RecordsError::input(
            tool,
            format!("{field} must be {want}, got {}", json_kind(got)),
        )
    }

    /// An integer field out of `lo..=hi` or not whole: the value as sent.
    pub(crate) fn range(
        tool: &'static str,
        field: &str,
        lo: u64,
        hi: u64,
        got: &Value,
    ) -> RecordsError {
        let shown = match got {
            Value::Number(n) => format!("{n}"),
            other => String::from(json_kind(other)),
        };
        RecordsError::input(
            tool,
            format!("{field} must be a whole number from {lo} to {hi}, got {shown}"),
        )
    }
}

impl fmt::Display for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordsError::UnknownTool(name) => write!(
                f,
                "Unknown tool {}. The memory record tools are memory_store, memory_retrieve and memory_delete.",
                Echo(name)
            ),
            RecordsError::Input { tool, problem } => {
                write!(f, "Invalid input for {tool}: {problem}.")
            }
            RecordsError::Query(e) => write!(f, "Invalid input for memory_retrieve: {e}"),
            RecordsError::NotFound(id) => write!(
                f,
                "No memory record has the id {}; memory_retrieve shows the records and their ids.",
                Echo(id)
            ),
            RecordsError::Refused(m) | RecordsError::Settings(m) => f.write_str(m),
            RecordsError::Pruning { memory_id, cause } => {
                // The API's own words say "nothing was changed", which is true of
                // the failed delete and not of the store call: said in a clause.
                let why = match cause {
                    ApiError::Busy => "other writers kept changing the records",
                    ApiError::Damaged => "a stored record is damaged",
                    _ => "the store failed",
                };
                write!(
                    f,
                    "The memory was stored as {memory_id}, but deleting the records past the capacity failed ({why}); the next memory_store tries again."
                )
            }
            RecordsError::ReadOnly { tool, mount } => write!(
                f,
                "Cannot {} a memory record: the memory store at {mount} is read-only; nothing was written.",
                tool.strip_prefix("memory_").unwrap_or(tool)
            ),
            RecordsError::Failed(e) => write!(f, "{e}"),
            RecordsError::Internal => {
                f.write_str("memdir's memory record tools are misconfigured; nothing was changed.")
            }
        }
    }
}

impl core::error::Error for RecordsError {}

impl From<crate::error::ToolError> for RecordsError {
    fn from(e: crate::error::ToolError) -> RecordsError {
        RecordsError::Failed(ApiError::from(e))
    }
}

impl From<SearchError> for RecordsError {
    fn from(e: SearchError) -> RecordsError {
        match e {
            SearchError::Store(e) => e.into(),
            other => RecordsError::Query(other),
        }
    }
}
