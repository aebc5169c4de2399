//! The version log: every change of a memory as an immutable record, and the index
//! that finds them.
//!
//! - a record (`rec/<sha256 of its encoding>`) says which memory changed, how
//!   (`created`, `modified`, `deleted`), when, by whom, and the path, hash and size
//!   it left; the content itself is the blob the tree already holds;
//! - the log is an append-only array of slots, one per version, numbered from 1,
//!   stored as a tree of fixed fanout under `log/<sha256>`: a write rewrites the
//!   leaf it appends to, the leaf of the memory's first slot if it moves or deletes
//!   the memory, and the nodes above them; a lookup reads one node per level. A log keeps the fanout it started
//!   with ([`LOG_FANOUT`] now, [`FIRST_LOG_FANOUT`] for a log whose commit names
//!   none), so a store written by an earlier build reads and grows as it was made.
//!   Its nodes are binary (fixed-width hashes and numbers, [`LogNode::encode`]): an
//!   index rewritten on every write, where JSON's hex doubled the bytes hashed (tree
//!   leaves went binary for the same reason); records and commits stay JSON,
//!   readable by hand;
//! - a slot names its record and its blob (so gc and redaction see every blob a
//!   version holds without reading records) and, in the slot of the version that
//!   created a memory, the newest version that created, moved or deleted it, and
//!   its time: a memory's id is that number. That version's record says where the
//!   memory is; its file's tree entry there names any later version, one that
//!   wrote only content (`Child::ver`: such a write rewrites that entry anyway, and
//!   leaves the first slot's leaf alone). The later of the two is the newest, and
//!   a memory's history is followed from it backwards. In a store an earlier build
//!   wrote, no entry names a version and the first slot names every one.
//!
//! The commit names the log's top node, how many versions it holds, and its fanout
//! when that is not the first one ([`LogHead::of_commit`]); a change and its
//! versions are one commit, one compare-and-swap.
//!
//! Retention (`retain`) drops versions: a dropped version's slot names [`DROPPED`]
//! as its record and no blob (a memory's first slot keeps its head and time when its
//! first version goes), and a node whose slots are all empty is [`DROPPED`] in its
//! parent, stored nowhere, so what the log stores is bounded by the versions kept
//! and the memories alive, not by every version ever made.

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::storage::reader::Reader;
use crate::storage::tree::Hash;

pub(crate) const LOG: &str = "log/";
pub(crate) const RECORD: &str = "rec/";
/// Slots of a leaf, children of an inner node, in a log this build starts. A write
/// then encoded, hashed and stored two leaves and the nodes above them: on the bench's
/// workload, 7,841 bytes a `str_replace` at 64 (its file is 10,915), 2,716 at 16,
/// which made writes 13-22% faster. 8 was no faster than 16. (A write of content
/// now rewrites one leaf: see the module's notes.)
pub const LOG_FANOUT: u64 = 16;
/// The fanout of a log whose commit names none: every log written before
/// [`LOG_FANOUT`] was 16.
pub(crate) const FIRST_LOG_FANOUT: u64 = 64;
/// Most versions one log may count (2^53 − 1: exact as a JS number too). A commit
/// claiming more is damaged, so numbering the next version can never wrap.
pub(crate) const MAX_VERSIONS: u64 = (1 << 53) - 1;
/// What a dropped version's slot names as its record, and a pruned part of the log
/// is in its parent: no object hashes to all zeros, so it names none.
pub(crate) const DROPPED: Hash = Hash([0; 32]);
use crate::config::MAX_ACTOR_ID_CHARS;

/// What a version records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Op {
    Created,
    Modified,
    Deleted,
}

impl Op {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Created => "created",
            Op::Modified => "modified",
            Op::Deleted => "deleted",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Op> {
        match name {
            "created" => Some(Op::Created),
            "modified" => Some(Op::Modified),
            "deleted" => Some(Op::Deleted),
            _ => None,
        }
    }
}

/// Who made a change: the SDK's actor objects (read by hand: see the
/// `Deserialize` below).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type")]
pub enum Actor {
    /// A session of an agent (`session_actor`).
    #[serde(rename = "session_actor")]
    Session {
        /// The session's id.
        session_id: String,
    },
    /// A caller with an API key (`api_actor`).
    #[serde(rename = "api_actor")]
    Api {
        /// The key's id, never the key.
        api_key_id: String,
    },
    /// A user (`user_actor`).
    #[serde(rename = "user_actor")]
    User {
        /// The user's id.
        user_id: String,
    },
    /// A service account (`service_account_actor`).
    #[serde(rename = "service_account_actor")]
    ServiceAccount {
        /// The account's id.
        service_account_id: String,
    },
}

/// The id field of each actor type, as the SDK names them.
const ACTOR_FIELDS: [(&str, &str); 4] = [
    ("session_actor", "session_id"),
    ("api_actor", "api_key_id"),
    ("user_actor", "user_id"),
    ("service_account_actor", "service_account_id"),
];

/// An object of exactly `type` and that type's id field, in either order, nothing
/// more. By hand because serde's derive for an internally tagged enum buffers the
/// whole object in its `Content` tree before it looks at the tag, for every record
/// read, and that machinery was the only use of it in the wasm.
impl<'de> Deserialize<'de> for Actor {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Actor, D::Error> {
        struct Object;
        impl<'de> serde::de::Visitor<'de> for Object {
            type Value = Actor;

            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("an actor object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Actor, A::Error> {
                use serde::de::Error;
                let mut kind: Option<String> = None;
                let mut id: Option<(String, String)> = None;
                while let Some(key) = m.next_key::<String>()? {
                    if key == "type" {
                        if kind.is_some() {
                            return Err(Error::duplicate_field("type"));
                        }
                        kind = Some(m.next_value()?);
                    } else if id.is_none() && ACTOR_FIELDS.iter().any(|(_, f)| *f == key) {
                        id = Some((key, m.next_value()?));
                    } else {
                        return Err(Error::custom("an actor holds a field it may not"));
                    }
                }
                let (Some(kind), Some((field, id))) = (kind, id) else {
                    return Err(Error::custom("an actor needs its type and id"));
                };
                match ACTOR_FIELDS
                    .iter()
                    .position(|&pair| pair == (kind.as_str(), field.as_str()))
                {
                    Some(0) => Ok(Actor::Session { session_id: id }),
                    Some(1) => Ok(Actor::Api { api_key_id: id }),
                    Some(2) => Ok(Actor::User { user_id: id }),
                    Some(3) => Ok(Actor::ServiceAccount {
                        service_account_id: id,
                    }),
                    _ => Err(Error::custom("an actor's id is not its type's")),
                }
            }
        }
        d.deserialize_map(Object)
    }
}

impl Actor {
    /// The actor's id, whichever kind it is.
    pub fn id(&self) -> &str {
        match self {
            Actor::Session { session_id: id }
            | Actor::Api { api_key_id: id }
            | Actor::User { user_id: id }
            | Actor::ServiceAccount {
                service_account_id: id,
            } => id,
        }
    }

    /// An id of 1 to [`MAX_ACTOR_ID_CHARS`] characters without control characters.
    pub fn is_valid(&self) -> bool {
        let id = self.id();
        let n = id.chars().count();
        (1..=MAX_ACTOR_ID_CHARS).contains(&n) && !id.chars().any(char::is_control)
    }
}

/// One version, as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Record {
    /// The memory's id (the number of the version that created it).
    pub mem: u64,
    pub op: Op,
    /// When, in ms since the Unix epoch.
    pub at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<Actor>,
    /// The store path the change left (`None` once redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Hash and size of the content (`None` for `deleted`, or once redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The memory's previous version (0: none).
    #[serde(default)]
    pub prev: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted_by: Option<Actor>,
    /// Why a `deleted` version deleted its memory, when its caller said (seed
    /// 002's `memory_delete` reason, for the audit trail); a redaction clears it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Record {
    pub(crate) fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Reads a stored record of version `seq`, or `None` if memdir could not have
    /// written it (a stored record is input).
    pub(crate) fn decode(bytes: &[u8], seq: u64) -> Option<Record> {
        let r: Record = serde_json::from_slice(bytes).ok()?;
        let redacted = r.redacted_at.is_some();
        let content = r.sha.is_some();
        let ok = r.mem != 0
            && r.mem <= seq
            && r.prev < seq
            && (r.op == Op::Created) == (r.mem == seq)
            && r.path.is_some() != redacted
            && r.path.as_deref().is_none_or(crate::path::is_store_path)
            && r.sha.as_deref().is_none_or(|h| Hash::from_hex(h).is_some())
            && r.size.is_some() == content
            && r.size.is_none_or(|s| s <= crate::config::MAX_STORED_SIZE)
            && (r.op != Op::Deleted || !content)
            && (redacted || r.op == Op::Deleted || content)
            && r.redacted_by.is_some() <= redacted
            && r.by.as_ref().is_none_or(Actor::is_valid)
            && r.redacted_by.as_ref().is_none_or(Actor::is_valid)
            && r.reason.as_deref().is_none_or(|why| {
                r.op == Op::Deleted
                    && !redacted
                    && (1..=crate::config::RECORDS_MAX_REASON_CHARS).contains(&why.chars().count())
            });
        ok.then_some(r)
    }
}

/// One version's place in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The version's record (a marker hash once retention dropped it).
    pub record: Hash,
    /// The content this version holds (`None`: deleted, or redacted).
    pub blob: Option<Hash>,
    /// In a memory's first slot: the newest version that created, moved or deleted
    /// it (in a log an earlier build wrote: its newest version).
    pub head: u64,
    /// In a memory's first slot: that version's time (ms since the epoch).
    pub updated: u64,
}

impl Slot {
    /// A slot with nothing left: its version dropped, and no memory indexed there.
    pub const EMPTY: Slot = Slot {
        record: DROPPED,
        blob: None,
        head: 0,
        updated: 0,
    };

    /// True once retention dropped this slot's version (its index, if any, stays).
    pub fn is_dropped(&self) -> bool {
        self.record == DROPPED
    }
}

/// One stored node of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogNode {
    /// A leaf: the slots of consecutive versions.
    Leaf(Vec<Slot>),
    /// An inner node: its children, in order.
    Inner(Vec<Hash>),
}

/// The first version's stored form, JSON with hex hashes (still read): a write
/// re-encodes and hashes a log leaf or two of up to [`LOG_FANOUT`] slots, and in
/// JSON those were more bytes than the content the write changed. Tests also write
/// it, to hold old stores readable.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
#[serde(deny_unknown_fields)]
struct LogWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    l: Option<Vec<(String, String, u64, u64)>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    n: Option<Vec<String>>,
}

/// The binary form's first bytes: a leaf, an inner node (never `{`, so the JSON
/// form stays recognisable).
const LEAF_TAG: &[u8; 2] = b"L1";
const INNER_TAG: &[u8; 2] = b"N1";

impl LogNode {
    /// The binary form: a tag, the count, then per slot the record hash, `0` or `1`
    /// and the blob hash, the head and the time as little-endian u64s; per child of
    /// an inner node, its hash. Fixed widths, so one node has one encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            LogNode::Leaf(slots) => {
                out.reserve(3 + slots.len() * 81);
                out.extend_from_slice(LEAF_TAG);
                out.push(u8::try_from(slots.len()).unwrap_or(u8::MAX));
                for s in slots {
                    out.extend_from_slice(&s.record.0);
                    match &s.blob {
                        Some(b) => {
                            out.push(1);
                            out.extend_from_slice(&b.0);
                        }
                        None => out.push(0),
                    }
                    out.extend_from_slice(&s.head.to_le_bytes());
                    out.extend_from_slice(&s.updated.to_le_bytes());
                }
            }
            LogNode::Inner(kids) => {
                out.reserve(3 + kids.len() * 32);
                out.extend_from_slice(INNER_TAG);
                out.push(u8::try_from(kids.len()).unwrap_or(u8::MAX));
                for h in kids {
                    out.extend_from_slice(&h.0);
                }
            }
        }
        out
    }

    /// Reads a stored node, binary or the older JSON, or `None` if memdir could not
    /// have written it (a stored node is input).
    pub fn decode(bytes: &[u8]) -> Option<LogNode> {
        let mut r = Reader::new(bytes);
        let tag = r.take::<2>()?;
        if tag.first() == Some(&b'{') {
            return Self::decode_json(bytes);
        }
        let count = r.byte()?;
        if count == 0 || u64::from(count) > FIRST_LOG_FANOUT {
            return None;
        }
        let node = match &tag {
            LEAF_TAG => {
                let mut slots = Vec::with_capacity(usize::from(count));
                for _ in 0..count {
                    let record = r.hash()?;
                    let blob = match r.byte()? {
                        0 => None,
                        1 => Some(r.hash()?),
                        _ => return None,
                    };
                    let (head, updated) = (r.u64_le()?, r.u64_le()?);
                    if record == DROPPED && blob.is_some() {
                        return None;
                    }
                    slots.push(Slot {
                        record,
                        blob,
                        head,
                        updated,
                    });
                }
                LogNode::Leaf(slots)
            }
            INNER_TAG => LogNode::Inner((0..count).map(|_| r.hash()).collect::<Option<_>>()?),
            _ => return None,
        };
        r.rest().is_empty().then_some(node)
    }

    fn decode_json(bytes: &[u8]) -> Option<LogNode> {
        let wire: LogWire = serde_json::from_slice(bytes).ok()?;
        match (wire.l, wire.n) {
            (Some(l), None) if !l.is_empty() && l.len() as u64 <= FIRST_LOG_FANOUT => {
                let mut slots = Vec::with_capacity(l.len());
                for (record, blob, head, updated) in l {
                    let blob = match blob.as_str() {
                        "" => None,
                        hex => Some(Hash::from_hex(hex)?),
                    };
                    let record = Hash::from_hex(&record)?;
                    if record == DROPPED && blob.is_some() {
                        return None;
                    }
                    slots.push(Slot {
                        record,
                        blob,
                        head,
                        updated,
                    });
                }
                Some(LogNode::Leaf(slots))
            }
            (None, Some(n)) if !n.is_empty() && n.len() as u64 <= FIRST_LOG_FANOUT => {
                let kids: Option<Vec<Hash>> = n.iter().map(|h| Hash::from_hex(h)).collect();
                Some(LogNode::Inner(kids?))
            }
            _ => None,
        }
    }

    /// The objects this node names, as `(hash, prefix)`: what gc marks and what a
    /// publish writes (a dropped part names none). An iterator, not a list: a
    /// leaf names up to 128, and publishing looks at every new node's.
    pub fn refs(&self) -> impl Iterator<Item = (Hash, &'static str)> + '_ {
        let (kids, slots): (&[Hash], &[Slot]) = match self {
            LogNode::Inner(kids) => (kids, &[]),
            LogNode::Leaf(slots) => (&[], slots),
        };
        let kids = kids.iter().filter(|h| **h != DROPPED).map(|h| (*h, LOG));
        let slots = slots.iter().filter(|s| !s.is_dropped()).flat_map(|s| {
            core::iter::once((s.record, RECORD))
                .chain(s.blob.map(|b| (b, crate::storage::tree::BLOB)))
        });
        kids.chain(slots)
    }
}

/// How many levels of inner nodes a log of `count` slots and `fanout` has above
/// its leaves.
pub fn height(count: u64, fanout: u64) -> u32 {
    let mut h = 0;
    let mut span = fanout;
    while span < count {
        h += 1;
        span = span.saturating_mul(fanout);
    }
    h
}

/// Slots beneath one child of a node at `height` in a log of `fanout` (a leaf's
/// "child" is one slot).
pub(crate) fn child_span(height: u32, fanout: u64) -> u64 {
    fanout.saturating_pow(height)
}

/// The log as one commit names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LogHead {
    pub root: Option<Hash>,
    pub versions: u64,
    pub memories: u64,
    /// Slots of a leaf, children of an inner node: [`LOG_FANOUT`] or
    /// [`FIRST_LOG_FANOUT`], for the log's whole life.
    pub fanout: u64,
}

impl Default for LogHead {
    /// A store without versions: its first version starts a log of [`LOG_FANOUT`].
    fn default() -> LogHead {
        LogHead {
            root: None,
            versions: 0,
            memories: 0,
            fanout: LOG_FANOUT,
        }
    }
}

impl LogHead {
    /// The log a commit names, or `None` if memdir could not have written it: a
    /// log without versions or versions without a log, counts no store could reach
    /// (later arithmetic would wrap), or a fanout named for no log or other than
    /// [`LOG_FANOUT`] (a commit names none for [`FIRST_LOG_FANOUT`]).
    pub(crate) fn of_commit(
        root: Option<Hash>,
        versions: u64,
        memories: u64,
        fanout: Option<u64>,
    ) -> Option<LogHead> {
        let fanout = match (fanout, root) {
            (None, Some(_)) => FIRST_LOG_FANOUT,
            (None, None) => LOG_FANOUT,
            (Some(f), Some(_)) if f == LOG_FANOUT => f,
            (Some(_), _) => return None,
        };
        let fits =
            root.is_some() == (versions > 0) && versions <= MAX_VERSIONS && memories <= versions;
        fits.then_some(LogHead {
            root,
            versions,
            memories,
            fanout,
        })
    }

    /// The fanout as a commit names it: only a log's other than [`FIRST_LOG_FANOUT`].
    pub(crate) fn commit_fanout(&self) -> Option<u64> {
        (self.root.is_some() && self.fanout != FIRST_LOG_FANOUT).then_some(self.fanout)
    }

    /// Levels of inner nodes above the leaves.
    pub(crate) fn height(&self) -> u32 {
        height(self.versions, self.fanout)
    }

    /// True if `node` can be a node of this log: no more slots or children than its
    /// fanout (a stored node is input, and one with more would carry slots no
    /// lookup reaches into every rewrite of it).
    pub(crate) fn fits(&self, node: &LogNode) -> bool {
        let n = match node {
            LogNode::Leaf(slots) => slots.len(),
            LogNode::Inner(kids) => kids.len(),
        };
        n as u64 <= self.fanout
    }
}

/// A version a change is about to record, before its record exists.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub seq: u64,
    pub mem: u64,
    pub op: Op,
    pub path: String,
    /// The content left (`None` for `deleted`).
    pub content: Option<(Hash, u64)>,
    /// The version the memory's file named before this one ([`Child::ver`]; 0:
    /// none), so the version before is found without its first slot naming it.
    ///
    /// [`Child::ver`]: crate::storage::tree::Child::ver
    pub seen: u64,
    /// This version sets where the memory is (a create, a move, a delete), so its
    /// first slot names it; a version that only writes content is named by the
    /// memory's file instead, and its first slot's leaf is left as it was.
    pub route: bool,
}

/// New log objects of one change, by hash, with their encodings.
/// (Their encodings are shared with the store's commit: see [`crate::Store::commit`].)
#[derive(Clone, Debug, Default)]
pub(crate) struct LogObjects {
    pub nodes: BTreeMap<Hash, (Rc<LogNode>, Rc<[u8]>)>,
    pub records: BTreeMap<Hash, (Rc<Record>, Rc<[u8]>)>,
}

impl LogObjects {
    pub(crate) fn add_node(&mut self, node: LogNode) -> Hash {
        let bytes = node.encode();
        let hash = Hash::of(&bytes);
        self.nodes.insert(hash, (Rc::new(node), bytes.into()));
        hash
    }

    pub(crate) fn add_record(&mut self, record: Record) -> Hash {
        let bytes = record.encode();
        let hash = Hash::of(&bytes);
        self.records.insert(hash, (Rc::new(record), bytes.into()));
        hash
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn actors_read_as_serde_wrote_them_and_nothing_else() {
        for a in [
            Actor::Session {
                session_id: "s".into(),
            },
            Actor::Api {
                api_key_id: "k".into(),
            },
            Actor::User {
                user_id: "u".into(),
            },
            Actor::ServiceAccount {
                service_account_id: "x".into(),
            },
        ] {
            let text = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Actor>(&text).unwrap(), a, "{text}");
            let value = serde_json::to_value(&a).unwrap();
            assert_eq!(serde_json::from_value::<Actor>(value).unwrap(), a);
        }
        assert_eq!(
            serde_json::to_string(&Actor::Api {
                api_key_id: "k".into()
            })
            .unwrap(),
            r#"{"type":"api_actor","api_key_id":"k"}"#
        );
        assert_eq!(
            serde_json::from_str::<Actor>(r#"{"user_id":"u","type":"user_actor"}"#).unwrap(),
            Actor::User {
                user_id: "u".into()
            }
        );
        for bad in [
            r#"{"type":"user_actor"}"#,
            r#"{"user_id":"u"}"#,
            r#"{"type":"user_actor","session_id":"u"}"#,
            r#"{"type":"user_actor","user_id":"u","extra":1}"#,
            r#"{"type":"user_actor","user_id":"u","user_id":"v"}"#,
            r#"{"type":"user_actor","type":"user_actor","user_id":"u"}"#,
            r#"{"type":"robot_actor","user_id":"u"}"#,
            r#"{"type":"user_actor","user_id":7}"#,
            r#"{"type":null,"user_id":"u"}"#,
            r#"["user_actor","u"]"#,
            r#""user_actor""#,
            "{}",
        ] {
            assert!(serde_json::from_str::<Actor>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_an_unredacted_delete_holds_a_reason() {
        let deleted = Record {
            mem: 1,
            op: Op::Deleted,
            at: 5,
            by: None,
            path: Some("/records/decision_log/a.md".into()),
            sha: None,
            size: None,
            prev: 1,
            redacted_at: None,
            redacted_by: None,
            reason: Some("stale".into()),
        };
        let bytes = deleted.encode();
        assert!(bytes.ends_with(br#""prev":1,"reason":"stale"}"#));
        assert_eq!(Record::decode(&bytes, 2), Some(deleted.clone()));
        let long = "x".repeat(crate::config::RECORDS_MAX_REASON_CHARS + 1);
        let refused = [
            Record {
                reason: Some(String::new()),
                ..deleted.clone()
            },
            Record {
                reason: Some(long),
                ..deleted.clone()
            },
            Record {
                path: None,
                redacted_at: Some(6),
                ..deleted.clone()
            },
            Record {
                op: Op::Modified,
                sha: Some(Hash::of(b"x").hex()),
                size: Some(1),
                ..deleted.clone()
            },
        ];
        for r in refused {
            assert_eq!(Record::decode(&r.encode(), 2), None, "{r:?}");
        }
        // Every other record is stored as before: no reason, no field.
        let plain = Record {
            reason: None,
            ..deleted
        };
        assert!(!plain.encode().windows(6).any(|w| w == b"reason"));
    }

    #[test]
    fn heights_grow_by_fanout() {
        for (fanout, heights) in [
            (64, [(0, 0), (64, 0), (65, 1), (4096, 1), (4097, 2)]),
            (16, [(0, 0), (16, 0), (17, 1), (256, 1), (257, 2)]),
        ] {
            for (count, h) in heights {
                assert_eq!(height(count, fanout), h, "{count} slots, fanout {fanout}");
            }
        }
    }

    #[test]
    fn a_commit_names_the_fanout_of_a_log_only_when_it_is_the_new_one() {
        let root = Some(Hash::of(b"log"));
        let new = LogHead::of_commit(root, 3, 1, Some(LOG_FANOUT)).unwrap();
        assert_eq!((new.fanout, new.commit_fanout()), (16, Some(16)));
        let old = LogHead::of_commit(root, 3, 1, None).unwrap();
        assert_eq!((old.fanout, old.commit_fanout()), (64, None));
        // No log yet: the first version starts one of the new fanout.
        let none = LogHead::of_commit(None, 0, 0, None).unwrap();
        assert_eq!((none, none.commit_fanout()), (LogHead::default(), None));
        // What memdir never writes: a fanout named without a log, spelled out for
        // the old one, or of any other size; and the counts' own rules.
        for (root, versions, memories, fanout) in [
            (None, 0, 0, Some(16)),
            (root, 3, 1, Some(64)),
            (root, 3, 1, Some(1)),
            (root, 3, 1, Some(0)),
            (root, 3, 1, Some(32)),
            (root, 0, 0, None),
            (None, 3, 0, None),
            (root, 3, 4, None),
            (root, MAX_VERSIONS + 1, 0, None),
        ] {
            assert_eq!(LogHead::of_commit(root, versions, memories, fanout), None);
        }
    }

    #[test]
    fn a_log_refuses_a_node_wider_than_its_fanout() {
        let slot = |i: u8| Slot {
            record: Hash::of(&[i]),
            blob: None,
            head: 0,
            updated: 0,
        };
        let new = LogHead::default();
        let old = LogHead::of_commit(Some(Hash::of(b"log")), 1, 0, None).unwrap();
        let leaf = |n: u8| LogNode::Leaf((0..n).map(slot).collect());
        let inner = |n: u8| LogNode::Inner((0..n).map(|i| Hash::of(&[i])).collect());
        for node in [leaf(16), inner(16), leaf(1)] {
            assert!(new.fits(&node) && old.fits(&node));
        }
        for node in [leaf(17), inner(17), leaf(64)] {
            assert!(!new.fits(&node) && old.fits(&node));
        }
    }

    #[test]
    fn log_nodes_round_trip_and_refuse_what_memdir_never_writes() {
        let s = Slot {
            record: Hash::of(b"r"),
            blob: Some(Hash::of(b"b")),
            head: 3,
            updated: 9,
        };
        let leaf = LogNode::Leaf(alloc::vec![s]);
        assert_eq!(LogNode::decode(&leaf.encode()), Some(leaf));
        assert_eq!(LogNode::decode(b"{\"l\":[]}"), None);
        assert_eq!(LogNode::decode(b"{\"n\":[\"zz\"]}"), None);
        assert_eq!(LogNode::decode(b"{\"l\":[],\"n\":[]}"), None);
    }

    #[test]
    fn binary_nodes_round_trip_and_refuse_what_memdir_never_writes() {
        let slot = |i: u64| Slot {
            record: Hash::of(&i.to_le_bytes()),
            blob: i.is_multiple_of(2).then(|| Hash::of(&[i as u8; 3])),
            head: i * 7,
            updated: if i == 2 { u64::MAX } else { i },
        };
        let full = LogNode::Leaf((0..FIRST_LOG_FANOUT).map(slot).collect());
        let bytes = full.encode();
        assert_eq!(&bytes[..3], b"L1\x40");
        assert_eq!(bytes.len(), 3 + 64 * 49 + 32 * 32);
        assert_eq!(LogNode::decode(&bytes), Some(full));
        let inner = LogNode::Inner((0..3u8).map(|i| Hash::of(&[i])).collect());
        assert_eq!(LogNode::decode(&inner.encode()), Some(inner.clone()));

        let one = LogNode::Leaf(alloc::vec![slot(0)]).encode();
        let refused: [&[u8]; 7] = [
            b"",
            b"L1\x00",                                       // no slots
            &one[..one.len() - 1],                           // cut short
            &[one.as_slice(), b"x"].concat(),                // trailing bytes
            &[&one[..35], &[2], &one[36..]].concat(),        // a blob flag other than 0 or 1
            b"Q1\x01",                                       // an unknown tag
            &[b"N1\x41".as_slice(), &[0; 65 * 32]].concat(), // over the fanout
        ];
        for bad in refused {
            assert_eq!(LogNode::decode(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_first_versions_json_nodes_still_read() {
        let s = Slot {
            record: Hash::of(b"r"),
            blob: None,
            head: 3,
            updated: 9,
        };
        let wire = LogWire {
            l: Some(alloc::vec![(s.record.hex(), String::new(), 3, 9)]),
            n: None,
        };
        let json = serde_json::to_vec(&wire).unwrap();
        assert_eq!(LogNode::decode(&json), Some(LogNode::Leaf(alloc::vec![s])));
        let wire = LogWire {
            l: None,
            n: Some(alloc::vec![s.record.hex()]),
        };
        let json = serde_json::to_vec(&wire).unwrap();
        assert_eq!(
            LogNode::decode(&json),
            Some(LogNode::Inner(alloc::vec![s.record]))
        );
    }
}
