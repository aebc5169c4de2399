//! How a tool call parses: a JSON value in, a typed [`Command`] out, or a message
//! naming the command and the field that is wrong. Nothing here touches storage;
//! path rules run right after, in [`Command::validate_paths`].

use alloc::format;
use alloc::string::String;

use serde_json::{Map, Number, Value};

use crate::path::{self, ValidPath};

/// A parsed command whose paths have not been checked yet.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    View {
        path: String,
        view_range: Option<(i64, i64)>,
    },
    Create {
        path: String,
        file_text: String,
    },
    StrReplace {
        path: String,
        old_str: String,
        new_str: String,
    },
    /// `insert_line` stays a JSON number: a float or a negative value is answered by
    /// the insert rule, which names the file's valid range.
    Insert {
        path: String,
        insert_line: Number,
        insert_text: String,
    },
    Delete {
        path: String,
    },
    Rename {
        old_path: String,
        new_path: String,
    },
}

/// A command whose paths passed [`path::validate`].
#[derive(Clone, Debug, PartialEq)]
pub enum Checked {
    View {
        path: ValidPath,
        view_range: Option<(i64, i64)>,
    },
    Create {
        path: ValidPath,
        file_text: String,
    },
    StrReplace {
        path: ValidPath,
        old_str: String,
        new_str: String,
    },
    Insert {
        path: ValidPath,
        insert_line: Number,
        insert_text: String,
    },
    Delete {
        path: ValidPath,
    },
    Rename {
        old_path: ValidPath,
        new_path: ValidPath,
    },
}

pub const COMMANDS: &str = "view, create, str_replace, insert, delete, rename";

pub fn parse_text(text: &str) -> Result<Checked, String> {
    let value: Value = serde_json::from_str(text)
        .map_err(|_| String::from("Invalid tool input: not valid JSON"))?;
    parse(&value)
}

/// Parses and checks every path, in the order the fields are listed.
pub fn parse(value: &Value) -> Result<Checked, String> {
    Command::from_value(value)?.validate_paths()
}

struct Fields<'a> {
    command: &'static str,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn get(&self, field: &str) -> Result<&'a Value, String> {
        match self.map.get(field) {
            Some(v) => Ok(v),
            None => Err(format!(
                "Invalid {} input: missing field \"{field}\"",
                self.command
            )),
        }
    }

    fn wrong(&self, field: &str, what: &str) -> String {
        format!(
            "Invalid {} input: field \"{field}\" must be {what}",
            self.command
        )
    }

    fn string(&self, field: &str) -> Result<String, String> {
        match self.get(field)? {
            Value::String(s) => Ok(s.clone()),
            _ => Err(self.wrong(field, "a string")),
        }
    }

    /// A string that may be absent or null, meaning empty (`new_str`).
    fn string_or_empty(&self, field: &str) -> Result<String, String> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.wrong(field, "a string")),
        }
    }

    fn number(&self, field: &str) -> Result<Number, String> {
        match self.get(field)? {
            Value::Number(n) => Ok(n.clone()),
            _ => Err(self.wrong(field, "a number")),
        }
    }

    fn view_range(&self) -> Result<Option<(i64, i64)>, String> {
        let bad = || {
            String::from(
                "Invalid view input: field \"view_range\" must be an array of two integers",
            )
        };
        match self.map.get("view_range") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => match items.as_slice() {
                [Value::Number(a), Value::Number(b)] => match (a.as_i64(), b.as_i64()) {
                    (Some(a), Some(b)) => Ok(Some((a, b))),
                    _ => Err(bad()),
                },
                _ => Err(bad()),
            },
            Some(_) => Err(bad()),
        }
    }
}

impl Command {
    pub fn from_value(value: &Value) -> Result<Command, String> {
        let Value::Object(map) = value else {
            return Err(
                "Invalid tool input: expected a JSON object with a \"command\" field".into(),
            );
        };
        let name = match map.get("command") {
            None => return Err("Invalid tool input: missing field \"command\"".into()),
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err("Invalid tool input: field \"command\" must be a string".into()),
        };
        let command = match name {
            "view" => "view",
            "create" => "create",
            "str_replace" => "str_replace",
            "insert" => "insert",
            "delete" => "delete",
            "rename" => "rename",
            other => {
                return Err(format!(
                    "Unknown command \"{other}\". Expected one of: {COMMANDS}"
                ));
            }
        };
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

    pub fn validate_paths(self) -> Result<Checked, String> {
        let check = |p: &str| path::validate(p).map_err(|e| format!("{e}"));
        Ok(match self {
            Command::View { path, view_range } => Checked::View {
                path: check(&path)?,
                view_range,
            },
            Command::Create { path, file_text } => Checked::Create {
                path: check(&path)?,
                file_text,
            },
            Command::StrReplace {
                path,
                old_str,
                new_str,
            } => {
                let path = check(&path)?;
                if old_str.is_empty() {
                    return Err(
                        "Invalid str_replace input: field \"old_str\" must not be empty".into(),
                    );
                }
                Checked::StrReplace {
                    path,
                    old_str,
                    new_str,
                }
            }
            Command::Insert {
                path,
                insert_line,
                insert_text,
            } => Checked::Insert {
                path: check(&path)?,
                insert_line,
                insert_text,
            },
            Command::Delete { path } => Checked::Delete {
                path: check(&path)?,
            },
            Command::Rename { old_path, new_path } => Checked::Rename {
                old_path: check(&old_path)?,
                new_path: check(&new_path)?,
            },
        })
    }
}

impl Checked {
    /// A one-line summary for the commit log (no file content).
    pub fn summary(&self) -> String {
        match self {
            Checked::View { path, .. } => format!("view {path}"),
            Checked::Create { path, .. } => format!("create {path}"),
            Checked::StrReplace { path, .. } => format!("str_replace {path}"),
            Checked::Insert { path, .. } => format!("insert {path}"),
            Checked::Delete { path } => format!("delete {path}"),
            Checked::Rename { old_path, new_path } => format!("rename {old_path} {new_path}"),
        }
    }
}
