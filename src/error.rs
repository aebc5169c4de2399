//! Every way a command or a maintenance call can fail, as one enum whose `Display`
//! is the exact text the model (or the caller) sees, without the `Error: ` prefix
//! of a `tool_result`. Faces branch on [`ToolError::kind`], never on the text.
//!
//! Path errors live beside their rules ([`crate::path::PathError`]); this file holds
//! the rest, the tool input's errors ([`InputError`]) among them.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde_json::Number;

use crate::config::MAX_ECHO_CHARS;
use crate::number::{Thousands, digits};
use crate::path::{PathError, ValidPath};
use crate::store::StoreError;

/// The six commands of `memory_20250818`, in the order the API documents them:
/// the names the input parser accepts and no other. They are written here, in the
/// foundation, because the unknown-command error lists them and this file names
/// nothing above it; the tool's definition (`command/tool.rs`) and every face read
/// them from here.
pub const COMMANDS: [&str; 6] = [
    "view",
    "create",
    "str_replace",
    "insert",
    "delete",
    "rename",
];

/// A caller's text as an error quotes it: in quotes and escaped as `{:?}` writes
/// it, its first [`MAX_ECHO_CHARS`] characters only, then how long it was:
/// `"abc"… (1,000,000 characters)`. The one way memdir's own faces quote input
/// that no earlier rule has bounded (the JS faces through the wasm's `echoInput`).
pub struct Echo<'a>(pub &'a str);

impl fmt::Display for Echo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(MAX_ECHO_CHARS) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => {
                let shown = self.0.get(..cut).unwrap_or_default();
                let chars = u64::try_from(self.0.chars().count()).unwrap_or(u64::MAX);
                write!(f, "{shown:?}… ({} characters)", Thousands(chars))
            }
        }
    }
}

/// A tool input that is not a well-formed command. `Display` is the text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputError {
    /// The input is not JSON text.
    NotJson,
    /// The input is JSON but not an object.
    NotObject,
    /// The object has no `command`.
    MissingCommand,
    /// The `command` is not a string.
    CommandNotString,
    /// The `command` names none of [`COMMANDS`] (the name given, quoted with
    /// [`Echo`] in the text).
    UnknownCommand(String),
    /// A field the command requires is absent.
    MissingField {
        /// The command, as the input named it.
        command: &'static str,
        /// The field it lacks.
        field: &'static str,
    },
    /// A field has the wrong JSON type.
    WrongType {
        /// The command, as the input named it.
        command: &'static str,
        /// The field of the wrong type.
        field: &'static str,
        /// The type it must have, as the text says it ("a string", …).
        expected: &'static str,
    },
    /// `view_range` is not an array of two integers.
    BadViewRange,
    /// `str_replace` was given an empty `old_str`, which would match everywhere.
    EmptyOldStr,
    /// `import` was given something other than a list of `{path, content?}`.
    NotEntries,
    /// Input bytes that are not UTF-8 (a command line, a line of a stream).
    NotUtf8,
    /// Over the input cap ([`MAX_INPUT_BYTES`](crate::config::MAX_INPUT_BYTES), or a host's lower one): refused
    /// before parsing (a runtime refuses it before copying it in at all).
    TooLarge {
        /// The cap the input is over, in bytes.
        limit: usize,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::NotJson => f.write_str("Invalid tool input: not valid JSON"),
            InputError::NotObject => {
                f.write_str("Invalid tool input: expected a JSON object with a \"command\" field")
            }
            InputError::MissingCommand => {
                f.write_str("Invalid tool input: missing field \"command\"")
            }
            InputError::CommandNotString => {
                f.write_str("Invalid tool input: field \"command\" must be a string")
            }
            InputError::UnknownCommand(other) => {
                write!(f, "Unknown command {}. Expected one of: ", Echo(other))?;
                for (i, command) in COMMANDS.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(command)?;
                }
                Ok(())
            }
            InputError::MissingField { command, field } => {
                write!(f, "Invalid {command} input: missing field \"{field}\"")
            }
            InputError::WrongType {
                command,
                field,
                expected,
            } => write!(
                f,
                "Invalid {command} input: field \"{field}\" must be {expected}"
            ),
            InputError::BadViewRange => f.write_str(
                "Invalid view input: field \"view_range\" must be an array of two integers",
            ),
            InputError::EmptyOldStr => {
                f.write_str("Invalid str_replace input: field \"old_str\" must not be empty")
            }
            InputError::NotEntries => f.write_str(
                "Invalid import: expected an array of {path, content?} objects with string fields",
            ),
            InputError::NotUtf8 => f.write_str("Invalid tool input: not valid UTF-8"),
            InputError::TooLarge { limit } => write!(
                f,
                "Invalid tool input: the input is over the limit of {} bytes",
                Thousands(*limit as u64)
            ),
        }
    }
}

impl core::error::Error for InputError {}

/// Why a command or a maintenance call failed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ToolError {
    /// The tool input is not a well-formed command.
    Input(InputError),
    /// A path broke one of the path rules.
    Path(PathError),
    /// The command does not apply to the memory as it is.
    Refused(Refusal),
    /// A size limit: per file or for the whole memory.
    Limit(LimitError),
    /// The text looks like it holds a credential and the policy refuses it.
    Secret {
        /// The file written.
        path: ValidPath,
        /// What the credential looks like ("private key", "card number", …).
        kind: &'static str,
    },
    /// The backend failed; nothing was changed.
    Storage(StoreError),
    /// A stored record is missing or unreadable.
    Damaged,
    /// Other writers kept winning the compare-and-swap race.
    Busy,
}

/// Why a face ran no command at all, beside [`ToolError`]: its memory was closed
/// (the JavaScript `Memory`'s `close()`), or the engine stopped inside the command
/// (a trap: a bug, never input). Their kinds are the faces' own, not
/// [`ErrorKind`]s: no engine call returns them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceError {
    /// The memory was closed before the call.
    Closed,
    /// The engine stopped inside the command (a trap): a bug, never the input.
    Stopped,
}

impl FaceError {
    /// Every face error, for the faces that list their texts at start.
    pub const ALL: [FaceError; 2] = [FaceError::Closed, FaceError::Stopped];

    /// The kind as the JavaScript face spells it (`error.kind`).
    pub fn kind(self) -> &'static str {
        match self {
            FaceError::Closed => "closed",
            FaceError::Stopped => "internal",
        }
    }
}

impl fmt::Display for FaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FaceError::Closed => "This memory was closed; open it again to use it.",
            FaceError::Stopped => "memdir stopped unexpectedly while running this command",
        })
    }
}

/// The kind of a [`ToolError`], for faces that branch (the explorer's banners, the
/// host's exit status, a JS `error.kind`). Spelled by [`ErrorKind::name`].
/// Deliberately exhaustive (not `#[non_exhaustive]`): every face maps each kind to
/// its own spelling (WIT, JS, exit codes), and a new kind must fail their build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// [`ToolError::Input`].
    Input,
    /// [`ToolError::Path`].
    Path,
    /// [`ToolError::Refused`].
    Refused,
    /// [`ToolError::Limit`].
    Limit,
    /// [`ToolError::Secret`].
    Secret,
    /// [`ToolError::Storage`] of [`StoreError::QuotaExceeded`].
    StorageFull,
    /// [`ToolError::Storage`] of [`StoreError::Unavailable`].
    StorageUnavailable,
    /// [`ToolError::Storage`] of [`StoreError::Failed`].
    StorageFailed,
    /// [`ToolError::Damaged`].
    Damaged,
    /// [`ToolError::Busy`].
    Busy,
}

impl ErrorKind {
    /// Every kind, for the faces that map each to their own spelling.
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::Input,
        ErrorKind::Path,
        ErrorKind::Refused,
        ErrorKind::Limit,
        ErrorKind::Secret,
        ErrorKind::StorageFull,
        ErrorKind::StorageUnavailable,
        ErrorKind::StorageFailed,
        ErrorKind::Damaged,
        ErrorKind::Busy,
    ];

    /// The kind as every face spells it (`snake_case`; WIT uses `-` for `_`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Input => "input",
            ErrorKind::Path => "path",
            ErrorKind::Refused => "refused",
            ErrorKind::Limit => "limit",
            ErrorKind::Secret => "secret",
            ErrorKind::StorageFull => "storage_full",
            ErrorKind::StorageUnavailable => "storage_unavailable",
            ErrorKind::StorageFailed => "storage_failed",
            ErrorKind::Damaged => "damaged",
            ErrorKind::Busy => "busy",
        }
    }
}

impl ToolError {
    /// The kind faces branch on, never the text.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ToolError::Input(_) => ErrorKind::Input,
            ToolError::Path(_) => ErrorKind::Path,
            ToolError::Refused(_) => ErrorKind::Refused,
            ToolError::Limit(_) => ErrorKind::Limit,
            ToolError::Secret { .. } => ErrorKind::Secret,
            ToolError::Storage(StoreError::QuotaExceeded) => ErrorKind::StorageFull,
            ToolError::Storage(StoreError::Unavailable) => ErrorKind::StorageUnavailable,
            ToolError::Storage(StoreError::Failed) => ErrorKind::StorageFailed,
            ToolError::Damaged | ToolError::Storage(StoreError::Damaged) => ErrorKind::Damaged,
            ToolError::Busy => ErrorKind::Busy,
        }
    }

    /// True when the answer was decided by the tree's contents, so a cached head
    /// may have made it stale (the engine re-reads the head before giving it).
    pub(crate) fn depends_on_tree(&self) -> bool {
        matches!(self, ToolError::Refused(_) | ToolError::Limit(_))
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Input(e) => e.fmt(f),
            ToolError::Path(e) => e.fmt(f),
            ToolError::Refused(e) => e.fmt(f),
            ToolError::Limit(e) => e.fmt(f),
            ToolError::Secret { path, kind } => write!(
                f,
                "Cannot write {path}: the text looks like it holds a credential ({kind}). Memories must not store credentials; nothing was written."
            ),
            ToolError::Storage(StoreError::QuotaExceeded) => {
                f.write_str("The memory directory's storage is full; nothing was changed.")
            }
            ToolError::Storage(StoreError::Unavailable) => f.write_str(
                "The memory directory's storage is unavailable right now; nothing was changed.",
            ),
            ToolError::Storage(StoreError::Failed) => {
                f.write_str("The memory directory's storage failed; nothing was changed.")
            }
            ToolError::Damaged | ToolError::Storage(StoreError::Damaged) => f.write_str(
                "The memory directory's storage is damaged: a stored record is missing or unreadable.",
            ),
            ToolError::Busy => f.write_str(
                "The memory directory is busy: other writers kept changing it while this command ran; nothing was changed. Try again.",
            ),
        }
    }
}

impl core::error::Error for ToolError {
    /// The store's failure, when there is one: its `Display` is not part of this
    /// error's text. The other variants' text is the inner error's own, so they
    /// name no source (a report would print it twice).
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            ToolError::Storage(e) => Some(e),
            _ => None,
        }
    }
}

impl From<InputError> for ToolError {
    fn from(e: InputError) -> Self {
        ToolError::Input(e)
    }
}

impl From<PathError> for ToolError {
    fn from(e: PathError) -> Self {
        ToolError::Path(e)
    }
}

impl From<Refusal> for ToolError {
    fn from(e: Refusal) -> Self {
        ToolError::Refused(e)
    }
}

impl From<LimitError> for ToolError {
    fn from(e: LimitError) -> Self {
        ToolError::Limit(e)
    }
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        match e {
            // A value that does not open under the store's key is a damaged record.
            StoreError::Damaged => ToolError::Damaged,
            e => ToolError::Storage(e),
        }
    }
}

/// A command that does not apply to the memory as it is. The texts follow the
/// spec's tables (view/str_replace/insert say "Please provide a valid path").
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Refusal {
    /// view, str_replace, insert: the path names nothing (or a directory where a
    /// file is needed).
    NotFoundHint(ValidPath),
    /// delete, rename: the path names nothing.
    NotFound(ValidPath),
    /// view: the file has more lines than a view numbers (999,999).
    TooManyLines(ValidPath),
    /// view: `view_range`'s first element is outside the file's (or listing's)
    /// lines.
    RangeFirst {
        /// The range's first element, as given.
        start: i64,
        /// Its second element, as given.
        end: i64,
        /// How many lines there are.
        lines: usize,
        /// Whether they are a file's or a listing's.
        of: ViewLines,
    },
    /// view: `view_range`'s second element is less than its first.
    RangeOrder {
        /// The range's first element, as given.
        start: i64,
        /// Its second element, as given.
        end: i64,
        /// How many lines there are.
        lines: usize,
    },
    /// view: `view_range`'s second element is outside the lines, and not -1.
    RangeSecond {
        /// The range's first element, as given.
        start: i64,
        /// Its second element, as given.
        end: i64,
        /// How many lines there are.
        lines: usize,
        /// Whether they are a file's or a listing's.
        of: ViewLines,
    },
    /// create: something is at the path already.
    AlreadyExists(ValidPath),
    /// create: the path is `/memories` itself.
    CreateRoot,
    /// create: a parent of the path is a file.
    CreateUnderFile {
        /// The path to create.
        path: ValidPath,
        /// The file in its way.
        file: ValidPath,
    },
    /// str_replace: `old_str` appears nowhere in the file.
    NoMatch {
        /// The text looked for.
        old: String,
        /// The file.
        path: ValidPath,
    },
    /// `lines`: the lines shown; `more`: occurrences past them (see
    /// [`Refusal::many_matches`]).
    ManyMatches {
        /// The text looked for.
        old: String,
        /// The lines of the occurrences shown.
        lines: Vec<usize>,
        /// How many occurrences there are past them.
        more: usize,
    },
    /// insert: `insert_line` is outside `[0, lines]`.
    BadInsertLine {
        /// The line as given (any JSON number).
        line: Number,
        /// How many lines the file has.
        lines: usize,
    },
    /// delete: the path is `/memories` itself.
    DeleteRoot,
    /// rename: the old path is `/memories` itself.
    RenameRoot,
    /// rename: the new path is `/memories` itself (the old path is the field).
    RenameOntoRoot(ValidPath),
    /// rename: the new path is under the old one.
    RenameIntoItself {
        /// The old path.
        from: ValidPath,
        /// The new path.
        to: ValidPath,
    },
    /// rename: something is at the new path already.
    DestinationExists(ValidPath),
    /// rename: a parent of the new path is a file.
    RenameUnderFile {
        /// The old path.
        from: ValidPath,
        /// The new path.
        to: ValidPath,
        /// The file in its way.
        file: ValidPath,
    },
    /// A write that reached a store mounted read-only (the engine's own backstop;
    /// a memory of several stores refuses with [`Refusal::ReadOnly`] first).
    StoreReadOnly,
    /// A create or change in an archived store (its memories can still be viewed
    /// and deleted, as the Memory Stores API and the toolset allow). `mount`: where
    /// the store is mounted (`""`: at `/memories` itself).
    Archived {
        /// The command refused.
        command: &'static str,
        /// The path it names.
        path: ValidPath,
        /// Where the store is mounted (`""`: at `/memories` itself).
        mount: String,
    },
    /// A write into a store mounted read-only.
    ReadOnly {
        /// The command refused.
        command: &'static str,
        /// The path it names.
        path: ValidPath,
        /// Where the store is mounted (`""`: at `/memories` itself).
        mount: String,
    },
    /// A path under `/memories` where no store is mounted.
    NoMount {
        /// The path.
        path: ValidPath,
        /// The mounted stores' paths, listed for the model.
        mounts: String,
    },
    /// A rename from one mounted store into another.
    AcrossMounts {
        /// The old path.
        from: ValidPath,
        /// The new path, in another store.
        to: ValidPath,
    },
    /// A delete or rename of the directory a store is mounted at.
    MountPoint {
        /// The command refused.
        command: &'static str,
        /// The mount point.
        path: ValidPath,
    },
}

impl Refusal {
    /// The "multiple occurrences" refusal, listing as many of the occurrences'
    /// lines as keep the message within `limit` characters (memdir's rule: an
    /// `old_str` found 100,000 times must not answer with a 300 KB list), and
    /// always the first two.
    pub fn many_matches(old: &str, lines: &[usize], limit: usize) -> Refusal {
        // The text around the list, and the longest " and N more" it may need.
        let fixed = "No replacement was performed. Multiple occurrences of old_str `` in lines: . Please ensure it is unique and 9,999,999,999 more".len()
            + old.chars().count();
        let mut used = fixed;
        let mut shown = 0;
        for (i, l) in lines.iter().enumerate() {
            let cost = digits(*l) + if i > 0 { 2 } else { 0 };
            if i >= 2 && used + cost > limit {
                break;
            }
            used += cost;
            shown += 1;
        }
        Refusal::ManyMatches {
            old: old.into(),
            lines: lines.iter().take(shown).copied().collect(),
            more: lines.len() - shown,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotFoundHint(path) => {
                write!(
                    f,
                    "The path {path} does not exist. Please provide a valid path."
                )
            }
            Refusal::NotFound(path) => write!(f, "The path {path} does not exist"),
            Refusal::TooManyLines(path) => {
                write!(
                    f,
                    "File {path} exceeds maximum line limit of 999,999 lines."
                )
            }
            Refusal::RangeFirst {
                start,
                end,
                lines,
                of,
            } => write!(
                f,
                "Invalid `view_range`: [{start}, {end}]. Its first element `{start}` should be within the range of lines of the {of}: [1, {lines}]"
            ),
            Refusal::RangeOrder { start, end, lines } => write!(
                f,
                "Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should not be less than its first element `{start}`; the valid range is [1, {lines}]"
            ),
            Refusal::RangeSecond {
                start,
                end,
                lines,
                of,
            } => write!(
                f,
                "Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be within the range of lines of the {of}: [1, {lines}], or -1 for the last line"
            ),
            Refusal::AlreadyExists(path) => write!(f, "File {path} already exists"),
            Refusal::CreateRoot => {
                f.write_str("Cannot create /memories: it is the memory directory itself")
            }
            Refusal::CreateUnderFile { path, file } => {
                write!(f, "Cannot create {path}: {file} is a file, not a directory")
            }
            Refusal::NoMatch { old, path } => write!(
                f,
                "No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
            ),
            Refusal::ManyMatches { old, lines, more } => {
                write!(
                    f,
                    "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
                )?;
                for (i, l) in lines.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{l}")?;
                }
                if *more > 0 {
                    write!(f, " and {} more", Thousands(*more as u64))?;
                }
                f.write_str(". Please ensure it is unique")
            }
            Refusal::BadInsertLine { line, lines } => write!(
                f,
                "Invalid `insert_line` parameter: {line}. It should be within the range of lines of the file: [0, {lines}]"
            ),
            Refusal::DeleteRoot => f.write_str("Cannot delete the /memories directory itself"),
            Refusal::RenameRoot => f.write_str("Cannot rename the /memories directory itself"),
            Refusal::RenameOntoRoot(from) => write!(
                f,
                "Cannot rename {from} to /memories: that is the memory directory itself"
            ),
            Refusal::RenameIntoItself { from, to } => {
                write!(f, "Cannot rename {from} to {to}: {to} is inside {from}")
            }
            Refusal::DestinationExists(to) => write!(f, "The destination {to} already exists"),
            Refusal::StoreReadOnly => {
                f.write_str("This memory store is mounted read-only; nothing was changed")
            }
            Refusal::Archived {
                command,
                path,
                mount,
            } => {
                write!(f, "Cannot {command} {path}: the memory store ")?;
                if !mount.is_empty() {
                    write!(f, "mounted at {mount} ")?;
                }
                f.write_str(
                    "is archived; its memories can be viewed and deleted, not created or changed",
                )
            }
            Refusal::ReadOnly {
                command,
                path,
                mount,
            } => write!(
                f,
                "Cannot {command} {path}: the memory store mounted at {mount} is read-only"
            ),
            Refusal::NoMount { path, mounts } => write!(
                f,
                "Cannot write {path}: no memory store is mounted there (the stores are {mounts})"
            ),
            Refusal::AcrossMounts { from, to } => write!(
                f,
                "Cannot rename {from} to {to}: they are in different memory stores (create it in the other store, then delete it here)"
            ),
            Refusal::MountPoint { command, path } => write!(
                f,
                "Cannot {command} {path}: a memory store is mounted there"
            ),
            Refusal::RenameUnderFile { from, to, file } => write!(
                f,
                "Cannot rename {from} to {to}: {file} is a file, not a directory"
            ),
        }
    }
}

impl core::error::Error for Refusal {}

/// What a `view_range` counts lines of: a file, or a directory's listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViewLines {
    /// A file's lines.
    OfFile,
    /// A directory listing's lines.
    OfListing,
}

impl fmt::Display for ViewLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ViewLines::OfFile => "file",
            ViewLines::OfListing => "listing",
        })
    }
}

/// A write over one of the size limits; nothing was written.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimitError {
    /// The file's content would be over the per-file limit.
    FileTooLarge {
        /// The file written.
        path: ValidPath,
        /// Its content's size, in bytes.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// The memory's contents would be over its total quota.
    OverQuota {
        /// The file written.
        path: ValidPath,
        /// What the contents would total, in bytes.
        total: u64,
        /// The quota.
        quota: u64,
    },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::FileTooLarge { path, bytes, max } => write!(
                f,
                "Cannot write {path}: the content would be {} bytes, over the limit of {} bytes per file. Nothing was written.",
                Thousands(*bytes as u64),
                Thousands(*max as u64)
            ),
            LimitError::OverQuota { path, total, quota } => write!(
                f,
                "Cannot write {path}: the memory directory would hold {} bytes, over its quota of {} bytes. Nothing was written.",
                Thousands(*total),
                Thousands(*quota)
            ),
        }
    }
}

impl core::error::Error for LimitError {}
