//! Every way a search can fail, as one enum whose `Display` is the text a caller
//! reads. A stored index is never a reason: a damaged one is rebuilt.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::config::{MAX_QUERY_CHARS, SEARCH_MAX_LIMIT};
use crate::error::ToolError;
use crate::search::index::query_terms;

/// Why a search answered nothing.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SearchError {
    /// The query has no characters, or only spaces.
    EmptyQuery,
    /// The query is longer than [`MAX_QUERY_CHARS`]; how long it is.
    QueryTooLong(usize),
    /// The query holds no word to look for (only punctuation or symbols).
    NoWords,
    /// `limit` is not a whole number from 1 to [`SEARCH_MAX_LIMIT`]: what was given.
    Limit(String),
    /// An option is not of its type: which, and what it must be.
    Option {
        /// The option.
        name: &'static str,
        /// What it must be.
        must: &'static str,
    },
    /// The store failed, or holds a damaged tree, while searching.
    Store(ToolError),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::EmptyQuery => {
                f.write_str("The search query is empty: give the words to look for.")
            }
            SearchError::QueryTooLong(n) => write!(
                f,
                "The search query is {n} characters long; the most is {MAX_QUERY_CHARS}."
            ),
            SearchError::NoWords => f.write_str(
                "The search query holds no words to look for (only punctuation or symbols).",
            ),
            SearchError::Limit(v) => write!(
                f,
                "limit must be a whole number from 1 to {SEARCH_MAX_LIMIT}, not {v}."
            ),
            SearchError::Option { name, must } => write!(f, "{name} must be {must}."),
            SearchError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl From<ToolError> for SearchError {
    fn from(e: ToolError) -> Self {
        SearchError::Store(e)
    }
}

/// The terms of `query`, or why it cannot be searched for.
pub(crate) fn check_query(query: &str) -> Result<Vec<String>, SearchError> {
    let n = query.chars().count();
    if query.trim().is_empty() {
        return Err(SearchError::EmptyQuery);
    }
    if n > MAX_QUERY_CHARS {
        return Err(SearchError::QueryTooLong(n));
    }
    let terms = query_terms(query);
    if terms.is_empty() {
        return Err(SearchError::NoWords);
    }
    Ok(terms)
}
