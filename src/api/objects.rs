//! The JSON objects the API answers with, shaped as the SDK's types
//! (`BetaManagedAgentsMemory`, `…MemoryPrefix`, `…MemoryVersion`).

use alloc::string::String;

use serde_json::{Value, json};

use super::rules;
use crate::storage::tree::Child;
use crate::storage::versions::{Record, Slot};
use crate::time::format_ms;

/// Which store the objects belong to: its id and the tag its ids carry.
pub(crate) struct StoreIds {
    pub store_id: String,
    pub tag: String,
}

impl StoreIds {
    pub(crate) fn memory_id(&self, mem: u64) -> String {
        rules::id("mem", &self.tag, mem)
    }

    pub(crate) fn version_id(&self, seq: u64) -> String {
        rules::id("memver", &self.tag, seq)
    }

    /// A memory: its file, and its newest version and that version's time (as
    /// `head` and `updated` of its first slot, where a log of an earlier build kept
    /// them; see `history::log::latest`).
    pub(crate) fn memory(
        &self,
        path: &str,
        file: &Child,
        first: &Slot,
        content: Option<&str>,
    ) -> Value {
        json!({
            "type": "memory",
            "id": self.memory_id(file.mem),
            "memory_store_id": self.store_id,
            "path": path,
            "content_sha256": file.hash.hex(),
            "content_size_bytes": file.size,
            "created_at": format_ms(file.created),
            "updated_at": format_ms(first.updated),
            "memory_version_id": self.version_id(first.head),
            "content": content,
        })
    }

    pub(crate) fn prefix(path: &str) -> Value {
        json!({"type": "memory_prefix", "path": path})
    }

    pub(crate) fn version(&self, seq: u64, r: &Record, content: Option<&str>) -> Value {
        let mut v = json!({
            "type": "memory_version",
            "id": self.version_id(seq),
            "memory_id": self.memory_id(r.mem),
            "memory_store_id": self.store_id,
            "operation": r.op.name(),
            "created_at": format_ms(r.at),
            "created_by": r.by,
            "path": r.path,
            "content_sha256": r.sha,
            "content_size_bytes": r.size,
            "content": content,
            "redacted_at": r.redacted_at.map(format_ms),
            "redacted_by": r.redacted_by,
        });
        // Only a delete that gave a reason (seed 002's `memory_delete`) has one: every
        // other version's object is the SDK's, unchanged.
        if let (Some(why), Some(map)) = (&r.reason, v.as_object_mut()) {
            map.insert("reason".into(), Value::from(why.as_str()));
        }
        v
    }
}
