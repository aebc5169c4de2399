//! Pages of a list: the `limit` a request may ask for, and page tokens. A token
//! names the query it belongs to (a fingerprint of the operation, the store and
//! every filter) and where the next page starts, so a token from another query,
//! list or store is refused rather than silently misread.

use alloc::string::String;
use alloc::vec::Vec;

use super::body::Query;
use super::error::ApiError;
use crate::storage::tree::Hash;

use crate::config::{DEFAULT_LIMIT, MAX_LIMIT, MAX_LIMIT_FULL};

/// A fingerprint of a query: `parts` hashed, 16 hex characters.
pub(crate) fn fingerprint(parts: &[&str]) -> String {
    let mut joined = Vec::new();
    for p in parts {
        joined.extend_from_slice(p.as_bytes());
        joined.push(0);
    }
    let hex = Hash::of(&joined).hex();
    hex.get(..16).unwrap_or_default().into()
}

/// The token for the page that starts after `position`.
pub(crate) fn token(fingerprint: &str, position: &str) -> String {
    let mut t = String::from(fingerprint);
    t.push('.');
    t.push_str(&hex::encode(position.as_bytes()));
    t
}

/// A list request's `limit` and, when it asks for a later page, the position
/// that page starts after.
pub(crate) struct PageRequest {
    pub limit: usize,
    pub after: Option<String>,
}

pub(crate) fn read(
    query: &Query<'_>,
    fingerprint: &str,
    full: bool,
) -> Result<PageRequest, ApiError> {
    let max = if full { MAX_LIMIT_FULL } else { MAX_LIMIT };
    let limit = query
        .int("limit", 1, MAX_LIMIT)?
        .unwrap_or(DEFAULT_LIMIT)
        .min(max);
    let after = match query.str("page") {
        None | Some("") => None,
        Some(t) => {
            let position = t
                .split_once('.')
                .filter(|(fp, _)| *fp == fingerprint)
                .and_then(|(_, pos)| hex::decode(pos).ok())
                .and_then(|b| String::from_utf8(b).ok());
            match position {
                Some(p) => Some(p),
                None => return Err(ApiError::bad_page_token()),
            }
        }
    };
    Ok(PageRequest {
        limit: usize::try_from(limit).unwrap_or(20),
        after,
    })
}
