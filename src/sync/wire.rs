//! The calls a sync makes, in the engine's request form (`{op, id, query, body}`,
//! what `Engine::api` takes), and what it accepts back. Only routes and fields the
//! Memory Stores API documents, so the same calls go to memdir and to the hosted
//! service; [`http`] spells one as the HTTP request a host sends.
//!
//! Every answer is input: a memory's id, path, hash and version id must be
//! well-formed, a content must hash to the hash claimed for it and fit the API's
//! limit, and a page holds no more than was asked for.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Value, json};

use crate::config::{Limits, MAX_STORE_PATH_BYTES, SYNC_MAX_TOKEN_BYTES, SYNC_PAGE};

/// The beta the Memory Stores API's routes require.
pub const BETA: &str = "agent-memory-2026-07-22";
/// The API version every request names.
pub const API_VERSION: &str = "2023-06-01";
/// Where the remote is when a host names none: Anthropic's API.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// A memory as a list or a write answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Its id (`mem_…`).
    pub id: String,
    /// Its path in the store.
    pub path: String,
    /// Its content's `content_sha256`.
    pub sha: String,
    /// Its newest version's id (`memver_…`).
    pub version: String,
}

fn is_id(s: &str, prefix: &str) -> bool {
    s.len() <= 128
        && s.strip_prefix(prefix).is_some_and(|rest| {
            !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

/// Whether `s` can be a memory id: `mem_` then letters, digits or `_`. An answer
/// with anything else is refused as not the API's.
pub fn is_memory_id(s: &str) -> bool {
    is_id(s, "mem_")
}

/// Whether `s` can be a version id (`memver_…`), as [`is_memory_id`].
pub fn is_version_id(s: &str) -> bool {
    is_id(s, "memver_")
}

/// Whether `s` is lowercase hex SHA-256, as the API gives `content_sha256`.
pub fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `s` can be a store path the remote gave: absolute, bounded, with no
/// control character.
pub fn is_store_path(s: &str) -> bool {
    s.starts_with('/') && s.len() <= MAX_STORE_PATH_BYTES && !s.chars().any(char::is_control)
}

/// The lowercase hex SHA-256 of `text`, as the API gives `content_sha256`.
pub fn sha256_hex(text: &str) -> String {
    crate::storage::tree::Hash::of(text.as_bytes()).hex()
}

/// The operation listing the remote's memories, one page (from `page`).
pub fn list(page: Option<&str>) -> Value {
    let mut query = json!({"limit": SYNC_PAGE.to_string()});
    if let (Some(p), Some(q)) = (page, query.as_object_mut()) {
        q.insert("page".into(), Value::String(p.into()));
    }
    json!({"op": "memory.list", "query": query})
}

/// The operation reading one memory, content included.
pub fn retrieve(id: &str) -> Value {
    json!({"op": "memory.retrieve", "id": id, "query": {"view": "full"}})
}

/// The operation reading one version, content included.
pub fn version(id: &str) -> Value {
    json!({"op": "version.retrieve", "id": id, "query": {"view": "full"}})
}

/// The operation creating a memory.
pub fn create(path: &str, content: &str) -> Value {
    json!({"op": "memory.create", "body": json!({"path": path, "content": content}).to_string()})
}

/// An update of `id`'s content and/or path, only if its content still hashes to
/// `expected`.
pub fn update(id: &str, content: Option<&str>, path: Option<&str>, expected: &str) -> Value {
    let mut body = json!({"precondition": {"type": "content_sha256", "content_sha256": expected}});
    if let Some(b) = body.as_object_mut() {
        if let Some(c) = content {
            b.insert("content".into(), Value::String(c.into()));
        }
        if let Some(p) = path {
            b.insert("path".into(), Value::String(p.into()));
        }
    }
    json!({"op": "memory.update", "id": id, "body": body.to_string()})
}

/// A delete of `id`, only if its content still hashes to `expected`.
pub fn delete(id: &str, expected: &str) -> Value {
    json!({"op": "memory.delete", "id": id, "query": {"expected_content_sha256": expected}})
}

/// A memory object's fields, checked.
pub fn memory(body: &Value) -> Option<Info> {
    let field = |name: &str| body.get(name).and_then(Value::as_str);
    if body.get("type").and_then(Value::as_str) != Some("memory") {
        return None;
    }
    let info = Info {
        id: field("id")?.into(),
        path: field("path")?.into(),
        sha: field("content_sha256")?.into(),
        version: field("memory_version_id")?.into(),
    };
    (is_memory_id(&info.id)
        && is_store_path(&info.path)
        && is_sha256(&info.sha)
        && is_version_id(&info.version))
    .then_some(info)
}

/// The content a full memory or version object holds, if it hashes to `sha` and
/// fits the API's limit.
pub fn content(body: &Value, sha: &str) -> Option<String> {
    let text = body.get("content").and_then(Value::as_str)?;
    (text.len() <= Limits::default().max_file_bytes && sha256_hex(text) == sha).then(|| text.into())
}

/// A list page: its memories (any `memory_prefix` marker skipped) and the next
/// page's token.
pub fn page(body: &Value) -> Option<(Vec<Info>, Option<String>)> {
    let data = body.get("data")?.as_array()?;
    if data.len() as u64 > SYNC_PAGE {
        return None;
    }
    let mut out = Vec::with_capacity(data.len());
    for item in data {
        match item.get("type").and_then(Value::as_str) {
            Some("memory_prefix") => {}
            _ => out.push(memory(item)?),
        }
    }
    let next = match body.get("next_page") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) if !t.is_empty() && t.len() <= SYNC_MAX_TOKEN_BYTES => {
            Some(t.clone())
        }
        Some(_) => return None,
    };
    Some((out, next))
}

/// An HTTP request of the Memory Stores API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Http {
    /// `GET`, `POST` or `DELETE`.
    pub method: &'static str,
    /// The path and query, e.g. `/v1/memory_stores/memstore_…/memories?limit=100`.
    pub target: String,
    /// The JSON body, for a write.
    pub body: Option<String>,
}

/// `request` (one of this module's) as the HTTP request for store `store`.
pub fn http(request: &Value, store: &str) -> Option<Http> {
    let op = request.get("op")?.as_str()?;
    let id = request.get("id").and_then(Value::as_str);
    let mut query = String::new();
    if let Some(q) = request.get("query").and_then(Value::as_object) {
        for (k, v) in q {
            query.push(if query.is_empty() { '?' } else { '&' });
            query.push_str(&encode(k));
            query.push('=');
            query.push_str(&encode(v.as_str()?));
        }
    }
    let body = request
        .get("body")
        .and_then(Value::as_str)
        .map(String::from);
    let store = encode(store);
    let (method, target) = match (op, id) {
        ("memory.list", None) => ("GET", format!("/v1/memory_stores/{store}/memories")),
        ("memory.create", None) => ("POST", format!("/v1/memory_stores/{store}/memories")),
        ("memory.retrieve", Some(id)) => (
            "GET",
            format!("/v1/memory_stores/{store}/memories/{}", encode(id)),
        ),
        ("memory.update", Some(id)) => (
            "POST",
            format!("/v1/memory_stores/{store}/memories/{}", encode(id)),
        ),
        ("memory.delete", Some(id)) => (
            "DELETE",
            format!("/v1/memory_stores/{store}/memories/{}", encode(id)),
        ),
        ("version.retrieve", Some(id)) => (
            "GET",
            format!("/v1/memory_stores/{store}/memory_versions/{}", encode(id)),
        ),
        _ => return None,
    };
    Some(Http {
        method,
        target: format!("{target}{query}"),
        body,
    })
}

/// Percent-encodes everything but the unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn requests_are_the_documented_routes() {
        let h = http(&list(Some("t/1")), "memstore_a").unwrap();
        assert_eq!(
            (h.method, h.target.as_str()),
            (
                "GET",
                "/v1/memory_stores/memstore_a/memories?limit=100&page=t%2F1"
            )
        );
        let h = http(&delete("mem_1", &"a".repeat(64)), "memstore_a").unwrap();
        assert_eq!(h.method, "DELETE");
        assert_eq!(
            h.target,
            format!(
                "/v1/memory_stores/memstore_a/memories/mem_1?expected_content_sha256={}",
                "a".repeat(64)
            )
        );
        let h = http(
            &update("mem_1", Some("x"), None, &"b".repeat(64)),
            "memstore_a",
        )
        .unwrap();
        assert_eq!(h.method, "POST");
        assert_eq!(
            serde_json::from_str::<Value>(h.body.as_deref().unwrap()).unwrap(),
            json!({"content": "x", "precondition": {"type": "content_sha256", "content_sha256": "b".repeat(64)}})
        );
    }

    #[test]
    fn a_content_must_hash_to_its_claim() {
        let sha = sha256_hex("hello");
        assert_eq!(
            content(&json!({"content": "hello"}), &sha),
            Some("hello".into())
        );
        assert_eq!(content(&json!({"content": "hellO"}), &sha), None);
    }

    #[test]
    fn a_page_with_a_bad_memory_is_refused_whole() {
        let good = json!({"type": "memory", "id": "mem_1", "path": "/a", "content_sha256": "0".repeat(64), "memory_version_id": "memver_1"});
        assert_eq!(
            page(&json!({"data": [good.clone()], "next_page": null}))
                .unwrap()
                .0
                .len(),
            1
        );
        let mut bad = good;
        bad["path"] = json!("../etc");
        assert_eq!(page(&json!({"data": [bad], "next_page": null})), None);
    }
}
