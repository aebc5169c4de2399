//! The command layer: the memory tool's six commands from a tool input to the text
//! the model reads. `input` parses a tool call, `plan` decides what a change does
//! to the tree, `engine` runs a command (a view, or a change published in one
//! compare-and-swap), `render` writes every successful answer, `lines` is the line
//! model, `maintain` is whole-memory upkeep (entries, import, expire, gc), and `tool`
//! is the tool's definition for faces that must describe it (its commands, schema). It
//! stands on storage and knows nothing of the API, the toolset or mounts.

pub(crate) mod engine;
pub(crate) mod input;
pub(crate) mod lines;
pub(crate) mod maintain;
pub(crate) mod plan;
pub(crate) mod render;
pub(crate) mod tool;
