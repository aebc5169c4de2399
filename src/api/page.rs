//! Pages of a list: the `limit` a request may ask for, and page tokens. A token
//! names the query it belongs to (a fingerprint of the operation, the store and
//! every filter) and where the next page starts, so a token from another query,
//! list or store is refused rather than silently misread.

use alloc::string::String;
use alloc::vec::Vec;

use super::body::Query;
use super::error::{ApiError, invalid};
use crate::tree::Hash;

/// Items per page when the request gives no `limit`, and the most it may ask for.
pub const DEFAULT_LIMIT: u64 = 20;
pub const MAX_LIMIT: u64 = 100;
/// The most items per page when each carries its content (`view=full`).
pub const MAX_LIMIT_FULL: u64 = 20;

/// A fingerprint of a query: `parts` hashed, 16 hex characters.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut joined = Vec::new();
    for p in parts {
        joined.extend_from_slice(p.as_bytes());
        joined.push(0);
    }
    let hex = Hash::of(&joined).hex();
    hex.get(..16).unwrap_or_default().into()
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.extend(char::from_digit(u32::from(b >> 4), 16));
        s.extend(char::from_digit(u32::from(b & 15), 16));
    }
    s
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    s.as_bytes()
        .chunks_exact(2)
        .map(|p| {
            let hi = char::from(*p.first()?).to_digit(16)?;
            let lo = char::from(*p.get(1)?).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

/// The token for the page that starts after `position`.
pub fn token(fingerprint: &str, position: &str) -> String {
    let mut t = String::from(fingerprint);
    t.push('.');
    t.push_str(&hex(position.as_bytes()));
    t
}

/// A list request's `limit` and, when it asks for a later page, the position
/// that page starts after.
pub struct PageRequest {
    pub limit: usize,
    pub after: Option<String>,
}

pub fn read(query: &Query<'_>, fingerprint: &str, full: bool) -> Result<PageRequest, ApiError> {
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
                .and_then(|(_, pos)| unhex(pos))
                .and_then(|b| String::from_utf8(b).ok());
            match position {
                Some(p) => Some(p),
                None => return invalid!("page is not a page token of this list and query"),
            }
        }
    };
    Ok(PageRequest {
        limit: usize::try_from(limit).unwrap_or(20),
        after,
    })
}
