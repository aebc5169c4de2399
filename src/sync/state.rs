//! What both sides last agreed on, per memory: the base of the next three-way
//! merge. Kept in the local store under one key outside the tree (`sync/…`, which
//! neither the model, the API nor gc ever reads), one key per remote store.
//!
//! Read back, it is input like any stored bytes: ids, hashes and counts are checked,
//! and a record that fails is refused as damage rather than trusted.
//!
//! A pair keeps the SHA-256 of the path both sides held, never the path: sync only
//! asks whether a side's path is still that one, and a path kept here would outlive
//! a redaction of the version that named it (docs/memory-stores.md: a redacted path
//! is in no stored byte). Records of format 1 kept the path; they are read, and the
//! next record written is of format 2.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::SyncError;
use super::wire::{is_memory_id, is_sha256, is_store_path, is_version_id, sha256_hex};

/// The format's name, first in every record written.
const FORMAT: &str = "memdir-sync 2";
/// The earlier format, read: the same pairs holding each path itself.
const FORMAT_1: &str = "memdir-sync 1";

/// One memory both sides agreed on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Pair {
    /// The memory's id in the local store.
    pub local: String,
    /// The hash of the content both sides held.
    pub sha: String,
    /// The SHA-256 (hex) of the path both sides held (see the module's doc).
    #[serde(rename = "path_sha256")]
    pub path_sha: String,
    /// The local version holding that content: the base's text.
    pub base: String,
    /// A merge being written: its hash and what each side held before it, so a
    /// run that stopped between the two writes finishes it instead of merging the
    /// merge again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Pending>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Pending {
    pub merged: String,
    pub local_was: String,
    pub remote_was: String,
    /// Whether the merge kept both texts of an overlap (for the summary).
    #[serde(default)]
    pub conflict: bool,
}

/// Every agreed memory, by its id in the remote store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct State {
    pub pairs: BTreeMap<String, Pair>,
}

#[derive(Serialize)]
struct Record<'a> {
    format: &'a str,
    pairs: &'a BTreeMap<String, Pair>,
}

/// A record as read: a pair of format 1 names its path, one of format 2 its hash.
#[derive(Deserialize)]
struct Stored {
    format: String,
    pairs: BTreeMap<String, StoredPair>,
}

#[derive(Deserialize)]
struct StoredPair {
    local: String,
    sha: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    path_sha256: Option<String>,
    base: String,
    #[serde(default)]
    pending: Option<Pending>,
}

impl State {
    pub(super) fn encode(&self) -> Vec<u8> {
        let record = Record {
            format: FORMAT,
            pairs: &self.pairs,
        };
        serde_json::to_vec(&record).unwrap_or_default()
    }

    /// The state `bytes` hold, checked; at most `max_pairs` memories.
    pub(super) fn decode(bytes: &[u8], max_pairs: u64) -> Result<State, SyncError> {
        let record: Stored = serde_json::from_slice(bytes).map_err(|_| SyncError::DamagedState)?;
        let first = match record.format.as_str() {
            FORMAT => false,
            FORMAT_1 => true,
            _ => return Err(SyncError::DamagedState),
        };
        let count = u64::try_from(record.pairs.len()).unwrap_or(u64::MAX);
        if count > max_pairs {
            return Err(SyncError::DamagedState);
        }
        let mut pairs = BTreeMap::new();
        for (remote, p) in record.pairs {
            // Format 1 names the path, format 2 its hash; never both, never neither.
            let path_sha = match (first, p.path, p.path_sha256) {
                (true, Some(path), None) if is_store_path(&path) => path_sha256(&path),
                (false, None, Some(h)) if is_sha256(&h) => h,
                _ => return Err(SyncError::DamagedState),
            };
            let well_formed = is_memory_id(&remote)
                && is_memory_id(&p.local)
                && is_sha256(&p.sha)
                && is_version_id(&p.base)
                && p.pending.as_ref().is_none_or(|q| {
                    is_sha256(&q.merged) && is_sha256(&q.local_was) && is_sha256(&q.remote_was)
                });
            if !well_formed {
                return Err(SyncError::DamagedState);
            }
            let pair = Pair {
                local: p.local,
                sha: p.sha,
                path_sha,
                base: p.base,
                pending: p.pending,
            };
            pairs.insert(remote, pair);
        }
        Ok(State { pairs })
    }
}

/// What a pair keeps of a path.
pub(super) fn path_sha256(path: &str) -> String {
    sha256_hex(path)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use alloc::format;
    use alloc::string::ToString;

    fn pair() -> Pair {
        Pair {
            local: "mem_local1".into(),
            sha: "0".repeat(64),
            path_sha: path_sha256("/a.md"),
            base: "memver_1".into(),
            pending: None,
        }
    }

    #[test]
    fn a_state_reads_back_as_written() {
        let mut s = State::default();
        s.pairs.insert("mem_remote1".into(), pair());
        assert_eq!(State::decode(&s.encode(), 10).unwrap(), s);
    }

    #[test]
    fn a_bad_field_or_too_many_pairs_is_damage() {
        let mut s = State::default();
        s.pairs.insert("mem_remote1".into(), pair());
        assert_eq!(State::decode(&s.encode(), 0), Err(SyncError::DamagedState));
        let mut bad = pair();
        bad.path_sha = "/a.md".to_string();
        s.pairs.insert("mem_remote1".into(), bad);
        assert_eq!(State::decode(&s.encode(), 10), Err(SyncError::DamagedState));
        assert_eq!(State::decode(b"{}", 10), Err(SyncError::DamagedState));
    }

    #[test]
    fn a_record_holds_no_path_and_one_of_format_1_reads_as_its_hash() {
        let mut s = State::default();
        s.pairs.insert("mem_remote1".into(), pair());
        let bytes = String::from_utf8(s.encode()).unwrap();
        assert!(!bytes.contains("/a.md"), "{bytes}");
        let sha = "0".repeat(64);
        let old = |path: &str| {
            format!(
                r#"{{"format":"memdir-sync 1","pairs":{{"mem_remote1":{{"local":"mem_local1","sha":"{sha}","path":"{path}","base":"memver_1"}}}}}}"#
            )
        };
        assert_eq!(State::decode(old("/a.md").as_bytes(), 10).unwrap(), s);
        // Its path is checked as before; a format-2 hash in a format-1 record is not one.
        assert_eq!(
            State::decode(old("no-slash").as_bytes(), 10),
            Err(SyncError::DamagedState)
        );
        let mixed = bytes.replace("memdir-sync 2", "memdir-sync 1");
        assert_eq!(
            State::decode(mixed.as_bytes(), 10),
            Err(SyncError::DamagedState)
        );
    }
}
