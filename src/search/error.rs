//! Every way a search can fail, as one enum whose `Display` is the text a caller
//! reads. A stored index is never a reason: a damaged one is rebuilt.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::config::{MAX_QUERY_CHARS, SEARCH_MAX_LIMIT, VECTOR_MAX_BYTES};
use crate::error::ToolError;
use crate::search::embed::EmbedError;
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
    /// Semantic or hybrid search was asked of a store opened without an embedder.
    NoEmbedder,
    /// The embedder's answer was refused (see [`EmbedError`]).
    Embed(EmbedError),
    /// The live texts' vectors would pass the exact scan's memory bound
    /// ([`VECTOR_MAX_BYTES`]): how many texts, of how many dimensions.
    TooManyVectors {
        /// Distinct live texts.
        texts: usize,
        /// The embedder's dimensions.
        dims: usize,
    },
    /// `mode` is not `'lexical'`, `'semantic'` or `'hybrid'`.
    Mode,
    /// `min_score` is not a number from -1 to 1.
    MinScore,
    /// `min_score` was given to a lexical search (it is a cosine).
    MinScoreLexical,
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
            SearchError::NoEmbedder => f.write_str(
                "Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'.",
            ),
            SearchError::Embed(e) => write!(f, "{e}"),
            SearchError::TooManyVectors { texts, dims } => write!(
                f,
                "Semantic search would hold {texts} vectors of {dims} dimensions in memory, above the exact scan's bound of {} MB: keep this store in PostgreSQL (the npm package's postgresStore searches vectors in the database with pgvector), or search with mode 'lexical'.",
                VECTOR_MAX_BYTES >> 20
            ),
            SearchError::Mode => {
                f.write_str("mode must be 'lexical', 'semantic' or 'hybrid'.")
            }
            SearchError::MinScore => f.write_str(
                "min_score must be a number from -1 to 1 (a cosine; what a good one is depends on the embedder's model).",
            ),
            SearchError::MinScoreLexical => f.write_str(
                "min_score applies to semantic and hybrid search (it is a cosine); a lexical search takes none.",
            ),
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
