//! JSON text in. Every parse of text goes through serde_json's slice reader, the
//! one that reads stored bytes: with `from_str` beside it, serde_json's whole parser
//! (and each type's `Deserialize` over it) was compiled twice, once per reader. A
//! `&str` is valid UTF-8, so the answers are the same as `from_str`'s.

use serde::Deserialize;

/// `serde_json::from_str`, through the slice reader.
pub fn from_text<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    serde_json::from_slice(text.as_bytes())
}
