//! The six tools: each one's name, the sentence that tells the model what it does,
//! and its input as JSON Schema text. Every face (JS `memoryStoreTools`, the MCP
//! server) sends these texts as they are, and [`check`] holds every input to them,
//! so the schema a model is shown is the rule its input is judged by.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Deserialize;
use serde_json::Value;

use super::error::ToolsetError;

/// One tool of the toolset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool {
    /// The tool's name, as the model calls it.
    pub name: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// JSON Schema (an object schema), as JSON text.
    pub input_schema: &'static str,
    /// True if the tool never changes the store (an MCP client's `readOnlyHint`).
    pub read_only: bool,
}

/// `tools` as every face hands definitions over (the npm package's `toolsetTools()`
/// and `recordTools()`, the component's `toolset-tools`): the JSON text of
/// `[{"name", "description", "input_schema", "read_only"}]`, each schema an object.
pub fn definitions_json(tools: &[Tool]) -> alloc::string::String {
    let tools: alloc::vec::Vec<serde_json::Value> = tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "description": t.description,
                "input_schema": crate::json::from_text::<serde_json::Value>(t.input_schema)
                    .unwrap_or_default(),
                "read_only": t.read_only,
            })
        })
        .collect();
    serde_json::to_string(&tools).unwrap_or_default()
}

/// The memory-store toolset, in the order docs/toolset.md lists it.
pub const TOOLS: [Tool; 6] = [
    Tool {
        name: "memory_list",
        description: "List the documents in the memory store, optionally only those under a path prefix such as /notes/.",
        input_schema: r#"{"type":"object","properties":{"path_prefix":{"type":"string","description":"Only documents under this directory, e.g. /notes/ (default: / for the whole store)."},"depth":{"type":"integer","minimum":1,"description":"How many levels below path_prefix to show; deeper documents are summed up as their directory, ending in /. Default: every level."},"page":{"type":"string","description":"The page token an earlier memory_list answer gave, to get the next page (with the same path_prefix and depth)."}},"additionalProperties":false}"#,
        read_only: true,
    },
    Tool {
        name: "memory_search",
        description: "Search the content of every document in the memory store for a text, ignoring case, and show the matching lines.",
        input_schema: r#"{"type":"object","properties":{"query":{"type":"string","description":"The text to look for; case does not matter."},"path_prefix":{"type":"string","description":"Only documents under this directory, e.g. /notes/ (default: / for the whole store)."},"page":{"type":"string","description":"The page token an earlier memory_search answer gave, to get the next page (with the same query, path_prefix, mode and min_score)."},"mode":{"type":"string","enum":["lexical","semantic","hybrid"],"description":"How to rank: lexical (by the query's words), semantic (by meaning, finding documents in other words or languages) or hybrid (both). Default: hybrid when the memory has an embedder, else lexical; semantic and hybrid need one."},"min_score":{"type":"number","description":"Semantic and hybrid only: leave out documents found by meaning whose similarity (a cosine, -1 to 1) is below this. What a good value is depends on the embedder's model; default: none."}},"required":["query"],"additionalProperties":false}"#,
        read_only: true,
    },
    Tool {
        name: "memory_read",
        description: "Read a document of the memory store: its whole content and the content_sha256 that memory_edit can check.",
        input_schema: r#"{"type":"object","properties":{"path":{"type":"string","description":"The document, e.g. /notes/a.md."}},"required":["path"],"additionalProperties":false}"#,
        read_only: true,
    },
    Tool {
        name: "memory_write",
        description: "Create a document at a path in the memory store, or replace the whole content of the one already there.",
        input_schema: r#"{"type":"object","properties":{"path":{"type":"string","description":"The document, e.g. /notes/a.md; missing directories are made."},"content":{"type":"string","description":"The document's whole new content."},"create_only":{"type":"boolean","description":"If true, write only when no document is at path yet (default: false, overwrite)."}},"required":["path","content"],"additionalProperties":false}"#,
        read_only: false,
    },
    Tool {
        name: "memory_edit",
        description: "Edit a document of the memory store by replacing one text that appears exactly once in it with another.",
        input_schema: r#"{"type":"object","properties":{"path":{"type":"string","description":"The document, e.g. /notes/a.md."},"old_str":{"type":"string","minLength":1,"description":"The text to replace; it must appear exactly once in the document."},"new_str":{"type":"string","description":"The text to put in its place (may be empty)."},"content_sha256":{"type":"string","description":"If given, edit only if the document's content still has this hash (from memory_read), so a change made since is not overwritten."}},"required":["path","old_str","new_str"],"additionalProperties":false}"#,
        read_only: false,
    },
    Tool {
        name: "memory_delete",
        description: "Delete a document from the memory store.",
        input_schema: r#"{"type":"object","properties":{"path":{"type":"string","description":"The document, e.g. /notes/a.md."},"content_sha256":{"type":"string","description":"If given, delete only if the document's content still has this hash (from memory_read)."}},"additionalProperties":false,"required":["path"]}"#,
        read_only: false,
    },
];

/// The tool called `name`.
pub(crate) fn tool(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The part of JSON Schema the tools use: an object of typed properties. The
/// validator below is written for exactly this part (a general JSON Schema crate
/// would not build without std, and would judge inputs in its own words).
#[derive(Deserialize)]
struct Schema {
    properties: BTreeMap<String, Property>,
    #[serde(default)]
    required: Vec<String>,
}

#[derive(Deserialize)]
struct Property {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, rename = "minLength")]
    min_length: Option<usize>,
    #[serde(default)]
    minimum: Option<u64>,
}

/// Holds `input` to `tool`'s schema. `null` is taken as absent: models send it for
/// an optional field they mean to leave out.
pub(crate) fn check(tool: &Tool, input: &Value) -> Result<(), ToolsetError> {
    let t = tool.name;
    // The schemas are constants, parsed by the tests; a failure here is memdir's.
    let schema: Schema =
        crate::json::from_text(tool.input_schema).map_err(|_| ToolsetError::Internal)?;
    let Value::Object(fields) = input else {
        return Err(ToolsetError::input_not_object(t, input));
    };
    if let Some(k) = fields.keys().find(|k| !schema.properties.contains_key(*k)) {
        let names: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
        return Err(ToolsetError::unknown_field(t, k, &names));
    }
    for name in &schema.required {
        if fields.get(name).is_none_or(Value::is_null) {
            return Err(ToolsetError::required(t, name));
        }
    }
    for (name, p) in &schema.properties {
        let Some(v) = fields.get(name).filter(|v| !v.is_null()) else {
            continue;
        };
        match (p.kind.as_str(), v) {
            ("string", Value::String(s)) => {
                if let Some(min) = p.min_length
                    && s.chars().count() < min
                {
                    return Err(ToolsetError::empty(t, name));
                }
            }
            ("boolean", Value::Bool(_)) => {}
            ("integer", Value::Number(n)) if n.as_u64().is_some() => {
                let n = n.as_u64().unwrap_or_default();
                if let Some(min) = p.minimum
                    && n < min
                {
                    return Err(ToolsetError::below(t, name, min, n));
                }
            }
            ("integer", _) => return Err(ToolsetError::not_whole(t, name, v)),
            // The range is the tool's own to judge, in its words (min_score's).
            ("number", Value::Number(_)) => {}
            (want, _) => return Err(ToolsetError::wrong_type(t, name, want, v)),
        }
    }
    Ok(())
}
