//! Every way a toolset call can fail, as one enum whose `Display` is the text the
//! model reads (faces add nothing but the SDK's `Error: `). Paths are shown as the
//! model named them: with the mount prefix the call was given.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde_json::Value;

use crate::api::error::{ApiError, json_kind};
use crate::error::Echo;
use crate::number::Thousands;

use crate::config::MAX_LINES_LISTED;

/// Why a memory-store toolset call failed. `Display` is the text the model sees
/// in the tool's error result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolsetError {
    /// No tool of that name.
    UnknownTool(String),
    /// The input does not match the tool's schema; `field` is `""` when the input
    /// is not an object at all.
    Input {
        /// The tool called.
        tool: &'static str,
        /// The field at fault.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A path the store's rules refuse, in their words.
    Path(String),
    /// No document at the path.
    NotFound(String),
    /// The path is a directory, where a document is needed.
    Directory(String),
    /// `old_str` is not in the document.
    NoMatch(String),
    /// `old_str` is in the document more than once: how often, and on which lines.
    ManyMatches {
        /// The document.
        path: String,
        /// How many times `old_str` is in it.
        count: usize,
        /// The lines it is on (the first [`MAX_LINES_LISTED`] of them in the text).
        lines: Vec<usize>,
    },
    /// A `content_sha256` precondition does not hold: the document's hash now.
    Changed {
        /// The document.
        path: String,
        /// Its content's hash now.
        now: String,
    },
    /// `create_only` and a document is already there.
    Exists(String),
    /// Something else holds the path or an ancestor of it (`what`: a directory, a
    /// document or a file).
    Conflict {
        /// The path written.
        path: String,
        /// What holds it or an ancestor.
        blocker: String,
        /// What kind of thing that is.
        what: &'static str,
    },
    /// The path is a directory holding a document (or a file, `what`), so no
    /// document can be written there.
    Holds {
        /// The path written.
        path: String,
        /// What the directory holds.
        inside: String,
        /// What kind of thing that is.
        what: &'static str,
    },
    /// The store is archived: it can be read and its documents deleted.
    Archived,
    /// A rule of the store refused the write (a size, the quota, the count of
    /// documents, a credential), in the API's words.
    Refused(String),
    /// The store failed, holds a damaged record, or was too busy; nothing changed.
    Failed(ApiError),
    /// memdir's own tool definitions are broken (the tests parse them all).
    Internal,
    /// A write into a store mounted read-only (`mount`: where, e.g. `/team`).
    ReadOnly {
        /// The tool called.
        tool: &'static str,
        /// The path it names.
        path: String,
        /// Where the store is mounted.
        mount: String,
    },
    /// A path in no mounted store; `mounts` lists where the stores are.
    Unmounted {
        /// The path.
        path: String,
        /// The mounted stores' paths.
        mounts: String,
    },
}

impl ToolsetError {
    /// A short name for faces that branch (a JS `error.kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            ToolsetError::UnknownTool(_) => "unknown_tool",
            ToolsetError::Input { .. } => "input",
            ToolsetError::Path(_) => "path",
            ToolsetError::NotFound(_) | ToolsetError::Directory(_) => "not_found",
            ToolsetError::NoMatch(_) => "no_match",
            ToolsetError::ManyMatches { .. } => "many_matches",
            ToolsetError::Changed { .. } | ToolsetError::Exists(_) => "precondition",
            ToolsetError::Conflict { .. } | ToolsetError::Holds { .. } => "conflict",
            ToolsetError::Archived => "archived",
            ToolsetError::Refused(_) => "refused",
            ToolsetError::Failed(ApiError::Busy) => "busy",
            ToolsetError::Failed(ApiError::Damaged) => "damaged",
            ToolsetError::Failed(_) => "storage_failed",
            ToolsetError::Internal => "internal",
            ToolsetError::Unmounted { .. } => "no_mount",
            ToolsetError::ReadOnly { .. } => "read_only",
        }
    }
}

impl fmt::Display for ToolsetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolsetError::UnknownTool(name) => {
                write!(f, "Unknown tool {}. The memory tools are ", Echo(name))?;
                let names = super::TOOLS;
                for (i, t) in names.iter().enumerate() {
                    if i > 0 {
                        f.write_str(if i + 1 == names.len() { " and " } else { ", " })?;
                    }
                    f.write_str(t.name)?;
                }
                f.write_str(".")
            }
            ToolsetError::Input { tool, problem, .. } => {
                write!(f, "Invalid input for {tool}: {problem}.")
            }
            ToolsetError::Path(m) | ToolsetError::Refused(m) => f.write_str(m),
            ToolsetError::NotFound(p) => write!(
                f,
                "No document at {p}; memory_list shows the documents there are."
            ),
            ToolsetError::Directory(p) => write!(
                f,
                "{p} is a directory, not a document; memory_list shows what it holds."
            ),
            ToolsetError::NoMatch(p) => write!(
                f,
                "old_str does not appear in {p}; nothing was changed. memory_read shows its content."
            ),
            ToolsetError::ManyMatches { path, count, lines } => {
                write!(
                    f,
                    "old_str appears {} times in {path}, on line",
                    Thousands(*count as u64)
                )?;
                if lines.len() > 1 {
                    f.write_str("s")?;
                }
                for (i, l) in lines.iter().take(MAX_LINES_LISTED).enumerate() {
                    f.write_str(if i == 0 { " " } else { ", " })?;
                    write!(f, "{l}")?;
                }
                if lines.len() > MAX_LINES_LISTED {
                    write!(f, " and {} more", lines.len() - MAX_LINES_LISTED)?;
                }
                f.write_str("; nothing was changed. Include more of the text around it so that it appears once.")
            }
            ToolsetError::Changed { path, now } => write!(
                f,
                "{path} has changed since that content_sha256 was read (it is now {now}); nothing was changed. Read it again with memory_read."
            ),
            ToolsetError::Exists(p) => write!(
                f,
                "{p} already exists and create_only is set; nothing was written."
            ),
            ToolsetError::Conflict {
                path,
                blocker,
                what,
            } if path == blocker => {
                write!(f, "Cannot write {path}: it is {what}; nothing was written.")
            }
            ToolsetError::Conflict {
                path,
                blocker,
                what,
            } => write!(
                f,
                "Cannot write {path}: {blocker} is {what}, so nothing can be beneath it; nothing was written."
            ),
            ToolsetError::Holds { path, inside, what } => write!(
                f,
                "Cannot write {path}: it is a directory holding {what} {inside}; nothing was written."
            ),
            ToolsetError::Archived => f.write_str(
                "This memory store is archived: its documents can be listed, searched, read and deleted, not written or edited.",
            ),
            ToolsetError::Failed(e) => write!(f, "{e}"),
            ToolsetError::Internal => {
                f.write_str("memdir's memory tools are misconfigured; nothing was changed.")
            }
            ToolsetError::ReadOnly { tool, path, mount } => write!(
                f,
                "Cannot {} {path}: the memory store at {mount} is read-only; nothing was written.",
                tool.strip_prefix("memory_").unwrap_or(tool)
            ),
            ToolsetError::Unmounted { path, mounts } => write!(
                f,
                "No memory store holds {path}: the stores are {mounts}."
            ),
        }
    }
}

impl core::error::Error for ToolsetError {}

/// How an input that does not match its tool's schema is refused: each check's words.
impl ToolsetError {
    /// An input refused in words made elsewhere (the API's, relayed).
    pub(crate) fn input(tool: &'static str, field: &str, problem: String) -> ToolsetError {
        ToolsetError::Input {
            tool,
            field: field.into(),
            problem,
        }
    }

    pub(crate) fn input_not_json(tool: &'static str) -> ToolsetError {
        ToolsetError::input(tool, "", "the input is not valid JSON".into())
    }

    pub(crate) fn input_not_object(tool: &'static str, got: &Value) -> ToolsetError {
        let problem = format!("the input must be a JSON object, got {}", json_kind(got));
        ToolsetError::input(tool, "", problem)
    }

    /// `names`: the fields the tool takes, listed as `memory_x takes a, b and c`.
    pub(crate) fn unknown_field(tool: &'static str, field: &str, names: &[&str]) -> ToolsetError {
        let mut problem = format!("{} is not one of its fields ({tool} takes ", Echo(field));
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                problem.push_str(if i + 1 == names.len() { " and " } else { ", " });
            }
            problem.push_str(n);
        }
        problem.push(')');
        ToolsetError::input(tool, field, problem)
    }

    pub(crate) fn required(tool: &'static str, field: &str) -> ToolsetError {
        ToolsetError::input(tool, field, format!("{field} is required"))
    }

    pub(crate) fn empty(tool: &'static str, field: &str) -> ToolsetError {
        ToolsetError::input(tool, field, format!("{field} must not be empty"))
    }

    pub(crate) fn below(tool: &'static str, field: &str, min: u64, got: u64) -> ToolsetError {
        let problem = format!("{field} must be a whole number of at least {min}, got {got}");
        ToolsetError::input(tool, field, problem)
    }

    /// An integer field given anything but a whole number: a number as it was sent.
    pub(crate) fn not_whole(tool: &'static str, field: &str, got: &Value) -> ToolsetError {
        let shown = match got {
            Value::Number(n) => format!("{n}"),
            other => String::from(json_kind(other)),
        };
        let problem = format!("{field} must be a whole number, got {shown}");
        ToolsetError::input(tool, field, problem)
    }

    /// `want`: the schema's type name (`string`, `boolean`).
    pub(crate) fn wrong_type(
        tool: &'static str,
        field: &str,
        want: &str,
        got: &Value,
    ) -> ToolsetError {
        let want = match want {
            "string" => String::from("a string"),
            "boolean" => String::from("true or false"),
            other => format!("a {other}"),
        };
        let problem = format!("{field} must be {want}, got {}", json_kind(got));
        ToolsetError::input(tool, field, problem)
    }
}
