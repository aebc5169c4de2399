//! The text of every successful answer of the toolset, as the model reads it (its
//! failures are [`super::error::ToolsetError`], whose `Display` is their text).

use alloc::format;
use alloc::string::String;

use serde_json::Value;

use super::at;
use crate::number::Thousands;
use crate::storage::tree::Hash;

/// `1 byte`, `12 bytes`, `1,234 bytes`.
pub(super) fn bytes(n: u64) -> String {
    if n == 1 {
        String::from("1 byte")
    } else {
        format!("{} bytes", Thousands(n))
    }
}

/// `(12 bytes, content_sha256 …)` of an API memory object.
pub(super) fn stamp(memory: &Value) -> String {
    format!(
        "({}, content_sha256 {})",
        bytes(
            at(memory, "content_size_bytes")
                .as_u64()
                .unwrap_or_default()
        ),
        at(memory, "content_sha256").as_str().unwrap_or_default()
    )
}

/// The answer to a write that stored `memory` (the API's object) for `asked`.
pub(super) fn written(
    verb: &str,
    shown: &str,
    asked: &str,
    before: Option<Hash>,
    memory: &Value,
) -> String {
    let sha = at(memory, "content_sha256").as_str().unwrap_or_default();
    if before.is_some_and(|h| h.hex() == sha) {
        return format!(
            "{shown} already holds this content {}; nothing changed.",
            stamp(memory)
        );
    }
    let mut out = format!("{verb} {shown} {}.", stamp(memory));
    if Hash::of(asked.as_bytes()).hex() != sha {
        // The store's secret policy redacted the content before keeping it.
        out.push_str(" Text that looked like a credential was redacted before it was stored.");
    }
    out
}

/// A listing with nothing in it.
pub(super) fn no_documents(shown: &str) -> String {
    format!("No documents under {shown}.")
}

/// A listing's first line; a row per directory and document follows.
pub(super) fn documents(shown: &str) -> String {
    format!("Documents under {shown}:")
}

pub(super) fn directory_row(out: &mut String, path: &str) {
    out.push_str(&format!("\n{path} (directory)"));
}

pub(super) fn document_row(out: &mut String, path: &str, size: u64) {
    out.push_str(&format!("\n{path} ({})", bytes(size)));
}

/// The last line of a listing that has another page.
pub(super) fn more_documents(out: &mut String, next: &str) {
    out.push_str(&format!(
        "\nMore: call memory_list again with the same path_prefix and depth and page {next:?}."
    ));
}

/// A search's first line: how many documents on this page (`hits`) match
/// `query`, `more` when another page follows. Each document follows, best first,
/// with its score and its best matching lines.
pub(super) fn found(hits: usize, more: bool, shown: &str, query: &str) -> String {
    match (hits, more) {
        (0, false) => format!("No document under {shown} matches {query:?}."),
        (0, true) => format!("No document in this part of {shown} matches {query:?}."),
        (1, _) => format!("1 document under {shown} matches {query:?}:"),
        (n, _) => format!(
            "{} documents under {shown} match {query:?}, best first:",
            Thousands(n as u64)
        ),
    }
}

/// A found document's line: its path and its score (as every text answer shows
/// one; 0 when the query had no words and was looked for as text).
pub(super) fn found_document(shown: &str, score: f64) -> String {
    format!("{shown} (score {})", crate::search::score_text(score))
}

/// The last line of a search of every store when some have more than the merged
/// page shows: which, to be searched alone.
pub(crate) fn more_in_stores(stores: &[String]) -> String {
    format!(
        "\nMore in {}: call memory_search again with the same query and one of those as path_prefix.",
        stores.join(", ")
    )
}

/// The last line of a search that has another page.
pub(super) fn more_found(out: &mut String, next: &str) {
    out.push_str(&format!(
        "\nMore: call memory_search again with the same query, path_prefix, mode and min_score and page {next:?}."
    ));
}

/// A document as `memory_read` shows it.
pub(super) fn document(shown: &str, size: u64, hash: &Hash, content: &str) -> String {
    format!(
        "{shown} ({}, content_sha256 {}):\n{content}",
        bytes(size),
        hash.hex()
    )
}

pub(super) fn deleted(shown: &str) -> String {
    format!("Deleted {shown}.")
}
