//! How a tool call parses: a JSON value in, a typed [`Command`] out, or an
//! [`InputError`] naming the command and the field that is wrong. Nothing here
//! touches storage; path rules run right after, in `Command::validate_paths`.

use alloc::string::String;

use serde_json::{Map, Number, Value};

use crate::config::MAX_INPUT_BYTES;
use crate::error::COMMANDS;
pub(crate) use crate::error::InputError;
use crate::error::ToolError;
use crate::path::{self, ValidPath};

/// One of the six commands of the memory tool, with its fields: the typed face of
/// the engine ([`crate::Engine::run`]). Paths are raw, as the model sent them
/// (`P = String`); they are checked when the command runs, before any storage
/// access, into the same command over checked paths (`Checked`).
///
/// Deliberately exhaustive (not `#[non_exhaustive]`): the six commands are the
/// tool version's (`memory_20250818`), and a reference model that matches each one
/// (the bench's) must fail to build if another is added.
#[derive(Clone, Debug, PartialEq)]
pub enum Command<P = String> {
    /// Shows a directory (two levels deep) or a file with line numbers.
    View {
        /// The file or directory.
        path: P,
        /// A file's lines to show, 1-based and inclusive; `-1` ends at the last.
        view_range: Option<(i64, i64)>,
    },
    /// Writes a new file (refused if something is there).
    Create {
        /// The file.
        path: P,
        /// Its content.
        file_text: String,
    },
    /// Replaces text that appears exactly once in a file.
    StrReplace {
        /// The file.
        path: P,
        /// The text to replace; never empty.
        old_str: String,
        /// What goes in its place.
        new_str: String,
    },
    /// `insert_line` stays a JSON number: a float or a negative value is answered by
    /// the insert rule, which names the file's valid range.
    Insert {
        /// The file.
        path: P,
        /// The line after which the text goes; 0 puts it first.
        insert_line: Number,
        /// The text to insert.
        insert_text: String,
    },
    /// Removes a file or a directory with everything under it.
    Delete {
        /// The file or directory.
        path: P,
    },
    /// Moves a file or directory; nothing may be at the new path yet.
    Rename {
        /// What to move.
        old_path: P,
        /// Where it goes.
        new_path: P,
    },
}

/// A command whose paths passed [`validate`](crate::validate).
pub(crate) type Checked = Command<ValidPath>;

/// Parses a tool input given as JSON text (checking its size first).
pub fn parse_text(text: &str) -> Result<Command, InputError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge {
            limit: MAX_INPUT_BYTES,
        });
    }
    let value: Value = crate::json::from_text(text).map_err(|_| InputError::NotJson)?;
    Command::from_value(&value)
}

struct Fields<'a> {
    command: &'static str,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn get(&self, field: &'static str) -> Result<&'a Value, InputError> {
        self.map.get(field).ok_or(InputError::MissingField {
            command: self.command,
            field,
        })
    }

    fn wrong(&self, field: &'static str, expected: &'static str) -> InputError {
        InputError::WrongType {
            command: self.command,
            field,
            expected,
        }
    }

    fn string(&self, field: &'static str) -> Result<String, InputError> {
        match self.get(field)? {
            Value::String(s) => Ok(s.clone()),
            _ => Err(self.wrong(field, "a string")),
        }
    }

    /// A string that may be absent or null, meaning empty (`new_str`).
    fn string_or_empty(&self, field: &'static str) -> Result<String, InputError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.wrong(field, "a string")),
        }
    }

    fn number(&self, field: &'static str) -> Result<Number, InputError> {
        match self.get(field)? {
            Value::Number(n) => Ok(n.clone()),
            _ => Err(self.wrong(field, "a number")),
        }
    }

    fn view_range(&self) -> Result<Option<(i64, i64)>, InputError> {
        match self.map.get("view_range") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => match items.as_slice() {
                [Value::Number(a), Value::Number(b)] => match (a.as_i64(), b.as_i64()) {
                    (Some(a), Some(b)) => Ok(Some((a, b))),
                    _ => Err(InputError::BadViewRange),
                },
                _ => Err(InputError::BadViewRange),
            },
            Some(_) => Err(InputError::BadViewRange),
        }
    }
}

impl Command {
    /// The command a JSON tool input names, with its fields checked for type (paths
    /// are checked when it runs).
    pub fn from_value(value: &Value) -> Result<Command, InputError> {
        let Value::Object(map) = value else {
            return Err(InputError::NotObject);
        };
        let name = match map.get("command") {
            None => return Err(InputError::MissingCommand),
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(InputError::CommandNotString),
        };
        let command = COMMANDS
            .into_iter()
            .find(|c| *c == name)
            .ok_or_else(|| InputError::UnknownCommand(name.into()))?;
        let f = Fields { command, map };
        Ok(match command {
            "view" => Command::View {
                path: f.string("path")?,
                view_range: f.view_range()?,
            },
            "create" => Command::Create {
                path: f.string("path")?,
                file_text: f.string("file_text")?,
            },
            "str_replace" => Command::StrReplace {
                path: f.string("path")?,
                old_str: f.string("old_str")?,
                new_str: f.string_or_empty("new_str")?,
            },
            "insert" => Command::Insert {
                path: f.string("path")?,
                insert_line: f.number("insert_line")?,
                insert_text: f.string("insert_text")?,
            },
            "delete" => Command::Delete {
                path: f.string("path")?,
            },
            _ => Command::Rename {
                old_path: f.string("old_path")?,
                new_path: f.string("new_path")?,
            },
        })
    }

    /// The command as a JSON tool input: [`Command::from_value`] of it is the same
    /// command. For a runtime that passes a command across a boundary as text.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        let mut put = |k: &str, v: Value| {
            map.insert(k.into(), v);
        };
        match self {
            Command::View { path, view_range } => {
                put("command", "view".into());
                put("path", path.as_str().into());
                if let Some((from, to)) = view_range {
                    put(
                        "view_range",
                        Value::Array(alloc::vec![(*from).into(), (*to).into()]),
                    );
                }
            }
            Command::Create { path, file_text } => {
                put("command", "create".into());
                put("path", path.as_str().into());
                put("file_text", file_text.as_str().into());
            }
            Command::StrReplace {
                path,
                old_str,
                new_str,
            } => {
                put("command", "str_replace".into());
                put("path", path.as_str().into());
                put("old_str", old_str.as_str().into());
                put("new_str", new_str.as_str().into());
            }
            Command::Insert {
                path,
                insert_line,
                insert_text,
            } => {
                put("command", "insert".into());
                put("path", path.as_str().into());
                put("insert_line", Value::Number(insert_line.clone()));
                put("insert_text", insert_text.as_str().into());
            }
            Command::Delete { path } => {
                put("command", "delete".into());
                put("path", path.as_str().into());
            }
            Command::Rename { old_path, new_path } => {
                put("command", "rename".into());
                put("old_path", old_path.as_str().into());
                put("new_path", new_path.as_str().into());
            }
        }
        Value::Object(map)
    }

    /// Checks every path, in the order the fields are listed; then that a
    /// `str_replace` has something to replace.
    pub(crate) fn validate_paths(self) -> Result<Checked, ToolError> {
        let checked = self.try_map_paths(|p| path::validate(&p).map_err(ToolError::Path))?;
        if let Command::StrReplace { old_str, .. } = &checked
            && old_str.is_empty()
        {
            return Err(InputError::EmptyOldStr.into());
        }
        Ok(checked)
    }
}

impl<P> Command<P> {
    /// The command with each path rewritten by `f`, in the order the fields are
    /// listed; the first error stops it. The one place that knows which fields of a
    /// command are paths.
    pub(crate) fn try_map_paths<Q, E>(
        self,
        mut f: impl FnMut(P) -> Result<Q, E>,
    ) -> Result<Command<Q>, E> {
        Ok(match self {
            Command::View { path, view_range } => Command::View {
                path: f(path)?,
                view_range,
            },
            Command::Create { path, file_text } => Command::Create {
                path: f(path)?,
                file_text,
            },
            Command::StrReplace {
                path,
                old_str,
                new_str,
            } => Command::StrReplace {
                path: f(path)?,
                old_str,
                new_str,
            },
            Command::Insert {
                path,
                insert_line,
                insert_text,
            } => Command::Insert {
                path: f(path)?,
                insert_line,
                insert_text,
            },
            Command::Delete { path } => Command::Delete { path: f(path)? },
            Command::Rename { old_path, new_path } => Command::Rename {
                old_path: f(old_path)?,
                new_path: f(new_path)?,
            },
        })
    }

    /// The command with each path rewritten by `f`.
    pub(crate) fn map_paths<Q>(self, mut f: impl FnMut(P) -> Q) -> Command<Q> {
        match self.try_map_paths(|p| Ok::<Q, core::convert::Infallible>(f(p))) {
            Ok(cmd) => cmd,
            Err(never) => match never {},
        }
    }
}

impl Checked {
    /// The command's name, as the model sends it.
    pub fn name(&self) -> &'static str {
        match self {
            Checked::View { .. } => "view",
            Checked::Create { .. } => "create",
            Checked::StrReplace { .. } => "str_replace",
            Checked::Insert { .. } => "insert",
            Checked::Delete { .. } => "delete",
            Checked::Rename { .. } => "rename",
        }
    }

    /// Every path the command names (a rename's source first).
    pub fn paths(&self) -> alloc::vec::Vec<&ValidPath> {
        match self {
            Checked::View { path, .. }
            | Checked::Create { path, .. }
            | Checked::StrReplace { path, .. }
            | Checked::Insert { path, .. }
            | Checked::Delete { path } => alloc::vec![path],
            Checked::Rename { old_path, new_path } => alloc::vec![old_path, new_path],
        }
    }

    /// The command again, its paths as checked (a trailing slash dropped), for a
    /// store that checks them itself: checking them again gives this command back.
    pub fn into_command(self) -> Command {
        self.map_paths(|p| String::from(p.as_str()))
    }

    /// The commit's summary: the command's name alone. Never a path or content: a
    /// redaction must be able to forget both, and commits are never rewritten.
    pub fn summary(&self) -> String {
        String::from(self.name())
    }
}

// The tool's definition (`tool.rs`) read against the parser: here, above both, so
// that the definition does not name the parser.
#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::command::tool::MEMORY_TOOL;
    use alloc::vec::Vec;
    use serde_json::json;

    #[test]
    fn the_schema_names_exactly_the_commands_the_parser_takes() {
        let schema: Value = serde_json::from_str(MEMORY_TOOL.input_schema).unwrap();
        let listed: Vec<&str> = schema["properties"]["command"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(listed, COMMANDS);
        for name in COMMANDS {
            let e = Command::from_value(&json!({"command": name}));
            assert!(!matches!(e, Err(InputError::UnknownCommand(_))), "{name}");
        }
        assert!(matches!(
            Command::from_value(&json!({"command": "move"})),
            Err(InputError::UnknownCommand(_))
        ));
    }

    #[test]
    fn every_field_in_the_schema_is_one_the_parser_reads() {
        let schema: Value = serde_json::from_str(MEMORY_TOOL.input_schema).unwrap();
        let props = schema["properties"].as_object().unwrap();
        // A full input of each command: every schema field is read by one of them.
        let inputs = [
            json!({"command": "view", "path": "/memories", "view_range": [1, 2]}),
            json!({"command": "create", "path": "/memories/a", "file_text": ""}),
            json!({"command": "str_replace", "path": "/memories/a", "old_str": "x", "new_str": ""}),
            json!({"command": "insert", "path": "/memories/a", "insert_line": 0, "insert_text": ""}),
            json!({"command": "delete", "path": "/memories/a"}),
            json!({"command": "rename", "old_path": "/memories/a", "new_path": "/memories/b"}),
        ];
        let mut used = alloc::collections::BTreeSet::new();
        for input in &inputs {
            assert!(Command::from_value(input).is_ok(), "{input}");
            used.extend(input.as_object().unwrap().keys().cloned());
        }
        let named: alloc::collections::BTreeSet<_> = props.keys().cloned().collect();
        assert_eq!(named, used);
    }
}
