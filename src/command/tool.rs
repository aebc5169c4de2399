//! The memory tool as a model is shown it where it cannot be passed in as
//! `memory_20250818` (an MCP server's tool list): its name, title, description and
//! input schema (whose command enum a test holds to [`COMMANDS`](crate::COMMANDS), the one list,
//! kept in `error.rs`). Every face reads them from here (the wasm glue's
//! `memoryTool`, then JS `COMMANDS` and `memdir mcp`).

/// The commands that never change a store. They take part in no compare-and-swap
/// race, so a runtime runs them outside a store directory's turn, which only keeps
/// writers fair.
pub const READ_ONLY_COMMANDS: [&str; 1] = ["view"];

/// The memory tool as one tool definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryTool {
    /// The tool's name, as the model calls it (`memory`).
    pub name: &'static str,
    /// Its title, for a client's display.
    pub title: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// JSON Schema (an object schema), as JSON text: `memory_20250818`'s input as
    /// the API documents it, flattened into one object (the Messages API refuses
    /// `oneOf` at the top of a tool's schema, and MCP clients pass it on to it).
    /// Descriptive only: every input goes to the parser, which is the judge of it.
    pub input_schema: &'static str,
}

/// The memory tool's definition.
pub const MEMORY_TOOL: MemoryTool = MemoryTool {
    name: "memory",
    title: "Memory",
    description: "Your memory directory, /memories, kept across conversations: view it before anything else, and record progress as you go. \
view lists a directory two levels deep or shows a file with line numbers; create writes a new file; \
str_replace replaces text that appears exactly once; insert adds text after a line; delete removes a file or directory; \
rename moves one. Every command takes effect entirely or not at all.",
    input_schema: r#"{"type":"object","properties":{"command":{"type":"string","enum":["view","create","str_replace","insert","delete","rename"],"description":"The command to run."},"path":{"type":"string","description":"view, create, str_replace, insert, delete: the file or directory, /memories or a path under it."},"view_range":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2,"description":"view, optional: [start, end], the lines of a file to show, 1-based and inclusive; end -1 means the last line."},"file_text":{"type":"string","description":"create: the content of the new file."},"old_str":{"type":"string","description":"str_replace: the text to replace; it must appear exactly once in the file."},"new_str":{"type":"string","description":"str_replace: the text to put in its place."},"insert_line":{"type":"integer","minimum":0,"description":"insert: the line after which the text goes; 0 puts it first."},"insert_text":{"type":"string","description":"insert: the text to insert."},"old_path":{"type":"string","description":"rename: the file or directory to move."},"new_path":{"type":"string","description":"rename: where it goes; nothing may be there yet."}},"required":["command"]}"#,
};

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::error::COMMANDS;

    #[test]
    fn read_only_commands_are_commands() {
        assert!(READ_ONLY_COMMANDS.iter().all(|c| COMMANDS.contains(c)));
    }
}
