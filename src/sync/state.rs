//! What both sides last agreed on, per memory: the base of the next three-way
//! merge. Kept in the local store under one key outside the tree (`sync/…`, which
//! neither the model, the API nor gc ever reads), one key per remote store.
//!
//! Read back, it is input like any stored bytes: ids, hashes, paths and counts are
//! checked, and a record that fails is refused as damage rather than trusted.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use super::SyncError;
use super::wire::{is_memory_id, is_sha256, is_store_path, is_version_id};

/// The format's name, first in every record.
const FORMAT: &str = "memdir-sync 1";

/// One memory both sides agreed on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Pair {
    /// The memory's id in the local store.
    pub local: String,
    /// The hash of the content both sides held.
    pub sha: String,
    /// The path both sides held.
    pub path: String,
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

#[derive(Serialize, Deserialize)]
struct Record {
    format: String,
    pairs: BTreeMap<String, Pair>,
}

impl State {
    pub(super) fn encode(&self) -> Vec<u8> {
        let record = Record {
            format: FORMAT.into(),
            pairs: self.pairs.clone(),
        };
        serde_json::to_vec(&record).unwrap_or_default()
    }

    /// The state `bytes` hold, checked; at most `max_pairs` memories.
    pub(super) fn decode(bytes: &[u8], max_pairs: u64) -> Result<State, SyncError> {
        let record: Record = serde_json::from_slice(bytes).map_err(|_| SyncError::DamagedState)?;
        let count = u64::try_from(record.pairs.len()).unwrap_or(u64::MAX);
        let well_formed = |remote: &String, p: &Pair| {
            is_memory_id(remote)
                && is_memory_id(&p.local)
                && is_sha256(&p.sha)
                && is_store_path(&p.path)
                && is_version_id(&p.base)
                && p.pending.as_ref().is_none_or(|q| {
                    is_sha256(&q.merged) && is_sha256(&q.local_was) && is_sha256(&q.remote_was)
                })
        };
        if record.format != FORMAT
            || count > max_pairs
            || !record.pairs.iter().all(|(r, p)| well_formed(r, p))
        {
            return Err(SyncError::DamagedState);
        }
        Ok(State {
            pairs: record.pairs,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use alloc::string::ToString;

    fn pair() -> Pair {
        Pair {
            local: "mem_local1".into(),
            sha: "0".repeat(64),
            path: "/a.md".into(),
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
        bad.path = "no-slash".to_string();
        s.pairs.insert("mem_remote1".into(), bad);
        assert_eq!(State::decode(&s.encode(), 10), Err(SyncError::DamagedState));
        assert_eq!(State::decode(b"{}", 10), Err(SyncError::DamagedState));
    }
}
