//! The stored data model: a content-addressed tree with one mutable head.
//!
//! - a file's content is a blob under `blob/<sha256 of the content>`;
//! - a directory is an immutable node under `tree/<sha256 of its encoding>` listing
//!   each child's name, kind, hash and the bytes beneath it (so views print sizes
//!   without walking);
//! - a commit under `commit/<sha256>` names the root node, its parent, the time, the
//!   actor and the command;
//! - `head` holds the hex hash of the latest commit and is only ever moved by
//!   compare-and-swap.
//!
//! Everything but the head is written to fresh keys nobody reads until the head
//! points at it, which is what makes every command all-or-nothing on any backend.

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};

use crate::storage::entries::{Entries, Name};
use crate::storage::{node_binary, node_json};

pub(crate) const HEAD: &str = "head";
pub(crate) const BLOB: &str = "blob/";
pub(crate) const TREE: &str = "tree/";
pub(crate) const COMMIT: &str = "commit/";

// The content hash and a directory's entry live below this file (`hash.rs`,
// `child.rs`), where the entry lists and node codecs it uses can name them without
// naming the tree; the data model exports them here, as it always has.
pub(crate) use crate::storage::child::{Child, Kind};
pub(crate) use crate::storage::hash::{Hash, Hex};

/// Most entries one stored leaf holds: a directory with more is split across
/// branches by the hash of its names, so a write into a directory of any size
/// rewrites at most one leaf and a branch per level (each at most
/// `LEAF_MAX` or [`FANOUT`] entries), never the whole directory.
pub(crate) const LEAF_MAX: usize = 128;
/// Slots of a branch: the next 4 bits of SHA-256 of the name.
pub(crate) const FANOUT: u8 = 16;
/// Deepest branch: SHA-256 has 64 nibbles.
pub(crate) const MAX_BRANCH_DEPTH: u8 = 63;
use crate::config::MAX_STORED_SIZE;

/// A directory's entries, however it is stored. Children are kept in byte order of
/// their names, which is also the order views list them in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Node {
    pub children: Entries,
}

/// One stored tree object: all of a directory's entries (a leaf), or one level of
/// a large directory split by name hash (a branch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stored {
    Leaf(Rc<Node>),
    /// Boxed: its slots are an array of [`FANOUT`] parts.
    Branch(Box<Branch>),
}

/// A large directory's entries, split by nibble `depth` of SHA-256 of each name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Branch {
    pub depth: u8,
    pub slots: Slots,
}

/// A branch's parts by nibble: at most [`FANOUT`], in an array (a B-tree of them
/// compiled its own insert, removal and walks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slots([Option<Part>; FANOUT as usize]);

impl Slots {
    pub(crate) fn get(&self, k: u8) -> Option<&Part> {
        self.0.get(usize::from(k))?.as_ref()
    }

    /// Sets slot `k` (a nibble, below [`FANOUT`]); the part it held, if any.
    pub(crate) fn insert(&mut self, k: u8, part: Part) -> Option<Part> {
        self.0.get_mut(usize::from(k))?.replace(part)
    }

    pub(crate) fn remove(&mut self, k: u8) -> Option<Part> {
        self.0.get_mut(usize::from(k))?.take()
    }

    /// The parts with their nibbles, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u8, &Part)> {
        (0u8..)
            .zip(&self.0)
            .filter_map(|(k, p)| Some((k, p.as_ref()?)))
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &Part> {
        self.0.iter().flatten()
    }
}

/// The part of a directory under one nibble: a leaf or a deeper branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub hash: Hash,
    pub size: u64,
    pub written: u64,
    /// Entries beneath (direct children of the directory only).
    pub count: u64,
}

/// The JSON form of a leaf (which earlier builds wrote; this one writes
/// [`node_binary`]'s): `{"e":[[name, "f"|"d", hash, size, written], ...]}`, a file
/// with a memory id adding `mem, created`; of a branch, the form every build writes:
/// `{"b":depth,"s":[[nibble, hash, size, written, count], ...]}`. Sorted maps make
/// both canonical.
#[cfg(test)]
#[derive(Serialize)]
struct LeafWire<'a> {
    e: Vec<LeafOut<'a>>,
}

#[cfg(test)]
#[derive(Serialize)]
#[serde(untagged)]
enum LeafOut<'a> {
    Plain(&'a str, &'a str, &'a str, u64, u64),
    Memory(&'a str, &'a str, &'a str, u64, u64, u64, u64),
}

#[derive(Serialize)]
struct BranchWire<'a> {
    b: u8,
    s: Vec<(u8, &'a str, u64, u64, u64)>,
}

/// A leaf's entry as stored: name, kind, hash, size, written, and for a file with
/// a memory id, mem and created.
enum LeafEntry {
    Plain(String, String, String, u64, u64),
    Memory(String, String, String, u64, u64, u64, u64),
}

/// An array of exactly 5 or 7 elements of those types: what `#[serde(untagged)]`
/// over the two tuples accepted, read in one pass. Untagged buffered every entry of
/// every leaf read into serde's `Content` and tried each shape in turn, and linked
/// that machinery into every build.
impl<'de> Deserialize<'de> for LeafEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LeafEntry, D::Error> {
        struct Entry;
        impl<'de> serde::de::Visitor<'de> for Entry {
            type Value = LeafEntry;

            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a leaf entry of 5 or 7 elements")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<LeafEntry, A::Error> {
                let short = || serde::de::Error::invalid_length(5, &self);
                let name = s.next_element()?.ok_or_else(short)?;
                let kind = s.next_element()?.ok_or_else(short)?;
                let hash = s.next_element()?.ok_or_else(short)?;
                let size = s.next_element()?.ok_or_else(short)?;
                let written = s.next_element()?.ok_or_else(short)?;
                let Some(mem) = s.next_element()? else {
                    return Ok(LeafEntry::Plain(name, kind, hash, size, written));
                };
                let created = s.next_element()?.ok_or_else(short)?;
                if s.next_element::<u64>()?.is_some() {
                    return Err(short());
                }
                Ok(LeafEntry::Memory(
                    name, kind, hash, size, written, mem, created,
                ))
            }
        }
        d.deserialize_seq(Entry)
    }
}
/// A branch's slot as stored: nibble, hash, size, written, count.
type BranchSlot = (u8, String, u64, u64, u64);

/// Names may hold escapes, so decoding owns its strings.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireOwned {
    #[serde(default)]
    e: Option<Vec<LeafEntry>>,
    #[serde(default)]
    b: Option<u8>,
    #[serde(default)]
    s: Option<Vec<BranchSlot>>,
}

/// `a + b`, or `None` past [`MAX_STORED_SIZE`].
pub(crate) fn add_size(a: u64, b: u64) -> Option<u64> {
    a.checked_add(b).filter(|&t| t <= MAX_STORED_SIZE)
}

impl Node {
    /// The bytes of all files beneath (saturating; stored sizes are checked on
    /// decoding, so only a directory built in memory could reach the cap).
    pub(crate) fn size(&self) -> u64 {
        self.children
            .values()
            .fold(0u64, |t, c| t.saturating_add(c.size))
    }

    /// The latest write beneath this node.
    pub(crate) fn written(&self) -> u64 {
        self.children.values().map(|c| c.written).max().unwrap_or(0)
    }

    /// The leaf as this build stores it: its binary form ([`node_binary`] says why).
    pub(crate) fn encode(&self) -> Vec<u8> {
        node_binary::encode(&self.children)
    }

    /// The leaf's JSON, the form earlier builds wrote (still read), written directly
    /// ([`crate::storage::node_json`] says why); a test holds it equal to serializing
    /// [`LeafWire`]. Tests write it to make old stores, and to edit nodes by hand.
    pub(crate) fn encode_json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.children.len() * 128);
        out.extend_from_slice(b"{\"e\":[");
        for (i, (name, c)) in self.children.iter().enumerate() {
            node_json::separate(&mut out, i);
            out.push(b'[');
            node_json::string(&mut out, name);
            out.extend_from_slice(match c.kind {
                Kind::File => b",\"f\",",
                Kind::Dir => b",\"d\",",
            });
            node_json::hash(&mut out, c.hash.hex_str().as_str());
            out.push(b',');
            node_json::number(&mut out, c.size);
            out.push(b',');
            node_json::number(&mut out, c.written);
            if c.kind == Kind::File && c.mem != 0 {
                out.push(b',');
                node_json::number(&mut out, c.mem);
                out.push(b',');
                node_json::number(&mut out, c.created);
            }
            out.push(b']');
        }
        out.extend_from_slice(b"]}");
        out
    }
}

impl Branch {
    pub(crate) fn size(&self) -> u64 {
        self.slots
            .values()
            .fold(0u64, |t, s| t.saturating_add(s.size))
    }

    pub(crate) fn written(&self) -> u64 {
        self.slots.values().map(|s| s.written).max().unwrap_or(0)
    }

    pub(crate) fn count(&self) -> u64 {
        self.slots
            .values()
            .fold(0u64, |t, s| t.saturating_add(s.count))
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let hexes: Vec<Hex> = self.slots.values().map(|s| s.hash.hex_str()).collect();
        let s = self
            .slots
            .iter()
            .zip(&hexes)
            .map(|((k, s), h)| (k, h.as_str(), s.size, s.written, s.count))
            .collect();
        serde_json::to_vec(&BranchWire { b: self.depth, s }).unwrap_or_default()
    }
}

impl Stored {
    /// The objects this one names: tree nodes (`TREE` keys) and blobs (`BLOB` keys),
    /// as `(hash, is_tree)`. What a walk of stored objects follows (gc's marking,
    /// a commit's writes).
    pub(crate) fn refs(&self) -> Vec<(Hash, bool)> {
        match self {
            Stored::Branch(b) => b.slots.values().map(|s| (s.hash, true)).collect(),
            Stored::Leaf(node) => node
                .children
                .values()
                .map(|c| (c.hash, c.kind == Kind::Dir))
                .collect(),
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        match self {
            Stored::Leaf(n) => n.encode(),
            Stored::Branch(b) => b.encode(),
        }
    }

    /// The JSON form (a branch has no other): what earlier builds wrote.
    pub(crate) fn encode_json(&self) -> Vec<u8> {
        match self {
            Stored::Leaf(n) => n.encode_json(),
            Stored::Branch(b) => b.encode(),
        }
    }

    pub(crate) fn size(&self) -> u64 {
        match self {
            Stored::Leaf(n) => n.size(),
            Stored::Branch(b) => b.size(),
        }
    }

    pub(crate) fn count(&self) -> u64 {
        match self {
            Stored::Leaf(n) => n.children.len() as u64,
            Stored::Branch(b) => b.count(),
        }
    }

    /// Reads a stored tree object, in either form, or `None` if it is not one memdir
    /// could have written: every name must pass the path rules (a stored tree is
    /// input, and a name like `..` or one holding a newline must never reach a
    /// listing or a filesystem), names are unique, sizes add up without passing
    /// [`MAX_STORED_SIZE`], and a branch's depth and nibbles are in range.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Stored> {
        if bytes.starts_with(node_binary::TAG) {
            return leaf(node_binary::decode(bytes)?);
        }
        let wire: WireOwned = serde_json::from_slice(bytes).ok()?;
        match (wire.e, wire.b, wire.s) {
            (Some(e), None, None) => {
                let mut entries = Vec::with_capacity(e.len());
                for entry in e {
                    let (name, kind, hash, size, written, mem, created) = match entry {
                        LeafEntry::Plain(n, k, h, s, w) => (n, k, h, s, w, 0, 0),
                        LeafEntry::Memory(n, k, h, s, w, m, c) if k == "f" && m != 0 => {
                            (n, k, h, s, w, m, c)
                        }
                        LeafEntry::Memory(..) => return None,
                    };
                    let kind = match kind.as_str() {
                        "f" => Kind::File,
                        "d" => Kind::Dir,
                        _ => return None,
                    };
                    let child = Child {
                        kind,
                        hash: Hash::from_hex(&hash)?,
                        size,
                        written,
                        mem,
                        created,
                        ver: 0,
                    };
                    entries.push((Name::from(name), child));
                }
                leaf(Entries::from_unsorted(entries).ok()?)
            }
            (None, Some(depth), Some(s)) => {
                if depth > MAX_BRANCH_DEPTH || s.is_empty() {
                    return None;
                }
                let mut slots = Slots::default();
                let mut total = 0u64;
                for (k, hash, size, written, count) in s {
                    if k >= FANOUT || count == 0 {
                        return None;
                    }
                    total = add_size(total, size)?;
                    let slot = Part {
                        hash: Hash::from_hex(&hash)?,
                        size,
                        written,
                        count,
                    };
                    if slots.insert(k, slot).is_some() {
                        return None;
                    }
                }
                Some(Stored::Branch(Box::new(Branch { depth, slots })))
            }
            _ => None,
        }
    }
}

/// A leaf of `children` (unique names, as [`Entries`] holds them), read from
/// either form, if they keep the rules of every stored leaf: names that pass the
/// path rules, sizes that add up.
fn leaf(children: Entries) -> Option<Stored> {
    let mut total = 0u64;
    for (name, child) in &children {
        if !crate::path::is_valid_name(name) {
            return None;
        }
        total = add_size(total, child.size)?;
    }
    Some(Stored::Leaf(Rc::new(Node { children })))
}

/// Nibble `depth` of SHA-256 of `name`: which slot of a branch at that depth the
/// name belongs to.
pub(crate) fn nibble(name: &str, depth: u8) -> u8 {
    Hash::of(name.as_bytes()).nibble(depth)
}

/// One published version of the whole tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Commit {
    pub root: String,
    pub parent: Option<String>,
    /// Milliseconds since the Unix epoch, from the runtime's clock.
    pub time: u64,
    pub actor: String,
    pub command: String,
    /// The version log's top node (absent before the first version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// Versions in the log.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub versions: u64,
    /// Memories alive (files with an id).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub memories: u64,
    /// The log's fanout, when it is not the first one's (see `LogHead::of_commit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_fanout: Option<u64>,
    /// The store's own record (name, description, …), once it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<crate::storage::meta::StoreMeta>,
    /// A commit that starts history again (it names no parent: a redaction that
    /// deleted leaves of older trees) names here the head it followed. gc never
    /// follows it; a later redaction does, to find the older trees still stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Commit {
    pub(crate) fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub(crate) fn decode(bytes: &[u8]) -> Option<Commit> {
        let c: Commit = serde_json::from_slice(bytes).ok()?;
        // A store is input: a record memdir could not have written is damage.
        if [&c.log, &c.cut]
            .iter()
            .any(|h| h.as_deref().is_some_and(|h| Hash::from_hex(h).is_none()))
            || c.store.as_ref().is_some_and(|m| m.check().is_err())
            || c.memories > c.versions
        {
            return None;
        }
        Some(c)
    }

    pub(crate) fn log_hash(&self) -> Option<Hash> {
        self.log.as_deref().and_then(Hash::from_hex)
    }

    pub(crate) fn root_hash(&self) -> Option<Hash> {
        Hash::from_hex(&self.root)
    }

    pub(crate) fn parent_hash(&self) -> Option<Hash> {
        self.parent.as_deref().and_then(Hash::from_hex)
    }

    /// The head before a commit that starts history again (see [`Commit::cut`]).
    pub(crate) fn cut_hash(&self) -> Option<Hash> {
        self.cut.as_deref().and_then(Hash::from_hex)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn node_round_trips_canonically() {
        let mut n = Node::default();
        n.children.insert(
            "b".into(),
            Child {
                kind: Kind::File,
                hash: Hash::of(b"x"),
                size: 1,
                written: 5,
                mem: 3,
                created: 4,
                ver: 0,
            },
        );
        n.children
            .insert("a\"é".into(), Child::plain(Kind::Dir, Hash::of(b"y"), 7, 9));
        // Either form reads as the same node, and re-encodes as it was.
        for bytes in [n.encode(), n.encode_json()] {
            assert_eq!(
                Stored::decode(&bytes),
                Some(Stored::Leaf(Rc::new(n.clone())))
            );
        }
        let bytes = n.encode();
        assert_eq!(bytes.get(..3), Some(&b"T1\x02"[..]));
        assert_eq!(Stored::decode(&bytes).map(|m| m.encode()), Some(bytes));
        let json = n.encode_json();
        assert_eq!(Stored::decode(&json).map(|m| m.encode_json()), Some(json));
        assert_eq!(n.size(), 8);
    }

    /// The leaf as serde writes [`LeafWire`]: the oracle of the hand-written encoder.
    fn serde_encoding(n: &Node) -> Vec<u8> {
        let hexes: Vec<String> = n.children.values().map(|c| c.hash.hex()).collect();
        let e = n
            .children
            .iter()
            .zip(&hexes)
            .map(|((name, c), h)| match c.kind {
                Kind::File if c.mem != 0 => {
                    LeafOut::Memory(name, "f", h, c.size, c.written, c.mem, c.created)
                }
                Kind::File => LeafOut::Plain(name, "f", h, c.size, c.written),
                Kind::Dir => LeafOut::Plain(name, "d", h, c.size, c.written),
            })
            .collect();
        serde_json::to_vec(&LeafWire { e }).unwrap()
    }

    #[test]
    fn the_hand_written_leaf_encoding_is_serdes() {
        let mut n = Node::default();
        assert_eq!(n.encode_json(), serde_encoding(&n));
        let names = [
            "plain.md",
            "quote\"d",
            "back\\slash",
            "tab\there",
            "ünï €",
            "\u{1}ctl",
            "\u{7f}del",
        ];
        for (i, name) in names.iter().enumerate() {
            let i = i as u64;
            let mut c = Child::plain(
                if i.is_multiple_of(3) {
                    Kind::Dir
                } else {
                    Kind::File
                },
                Hash::of(name.as_bytes()),
                i,
                u64::MAX - i,
            );
            if i % 2 == 1 {
                c.mem = i + 1;
                c.created = i * 1000;
            }
            n.children.insert((*name).into(), c);
        }
        assert_eq!(n.encode_json(), serde_encoding(&n));
    }

    #[test]
    fn stored_nodes_that_memdir_could_not_have_written_are_refused() {
        let h = Hash::of(b"x").hex();
        let leaf = |name: &str, size: u64| {
            serde_json::to_vec(&serde_json::json!({"e": [[name, "f", h, size, 0]]})).unwrap()
        };
        // The binary form of the same leaf: the same rules.
        let binary = |name: &str, size: u64| {
            let mut n = Node::default();
            n.children.insert(
                name.into(),
                Child::plain(Kind::File, Hash::of(b"x"), size, 0),
            );
            n.encode()
        };
        assert!(Stored::decode(&leaf("ok.md", 1)).is_some());
        assert!(Stored::decode(&binary("ok.md", 1)).is_some());
        for bad in [
            "..",
            ".",
            "",
            "a/b",
            "a\nb",
            "a\tb",
            "../../x.txt",
            "e\u{301}",
        ] {
            assert_eq!(Stored::decode(&leaf(bad, 1)), None, "{bad:?}");
            assert_eq!(Stored::decode(&binary(bad, 1)), None, "{bad:?}");
        }
        assert_eq!(Stored::decode(&leaf("big", u64::MAX)), None);
        assert_eq!(Stored::decode(&binary("big", u64::MAX)), None);
        let two =
            serde_json::json!({"e": [["a", "f", h, MAX_STORED_SIZE, 0], ["b", "f", h, 1, 0]]});
        assert_eq!(
            Stored::decode(&serde_json::to_vec(&two).unwrap()),
            None,
            "sizes that add past the cap"
        );
        let dup = serde_json::json!({"e": [["a", "f", h, 1, 0], ["a", "f", h, 1, 0]]});
        assert_eq!(
            Stored::decode(&serde_json::to_vec(&dup).unwrap()),
            None,
            "a name twice"
        );
        let branch = |depth: u8, k: u8| {
            serde_json::to_vec(&serde_json::json!({"b": depth, "s": [[k, h, 1, 0, 1]]})).unwrap()
        };
        assert!(Stored::decode(&branch(0, 15)).is_some());
        assert_eq!(Stored::decode(&branch(0, 16)), None);
        assert_eq!(Stored::decode(&branch(64, 0)), None);
        assert_eq!(
            Stored::decode(b"{\"e\":[],\"b\":0}"),
            None,
            "both forms at once"
        );
    }

    #[test]
    fn hex_round_trips() {
        let h = Hash::of(b"memdir");
        assert_eq!(Hash::from_hex(&h.hex()), Some(h));
        assert_eq!(Hash::from_hex("zz"), None);
    }
}
