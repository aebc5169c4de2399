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

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const HEAD: &str = "head";
pub const BLOB: &str = "blob/";
pub const TREE: &str = "tree/";
pub const COMMIT: &str = "commit/";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hash(pub [u8; 32]);

impl Hash {
    pub fn of(bytes: &[u8]) -> Hash {
        Hash(Sha256::digest(bytes).into())
    }

    pub fn hex(&self) -> String {
        let mut s = String::with_capacity(64);
        for b in self.0 {
            s.extend(char::from_digit(u32::from(b >> 4), 16));
            s.extend(char::from_digit(u32::from(b & 15), 16));
        }
        s
    }

    pub fn from_hex(s: &str) -> Option<Hash> {
        let bytes = s.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            let hi = char::from(*pair.first()?).to_digit(16)?;
            let lo = char::from(*pair.get(1)?).to_digit(16)?;
            *o = (hi * 16 + lo) as u8;
        }
        Some(Hash(out))
    }

    pub fn key(&self, prefix: &str) -> String {
        let mut k = String::with_capacity(prefix.len() + 64);
        k.push_str(prefix);
        k.push_str(&self.hex());
        k
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
}

/// A directory's entry for one child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Child {
    pub kind: Kind,
    pub hash: Hash,
    /// The file's bytes, or the sum of all file bytes beneath the directory.
    pub size: u64,
    /// When it was last written, in ms since the Unix epoch: for a directory, the
    /// last change at or beneath it (as a directory's mtime moves when an entry is
    /// added or removed). The expiry sweep skips or drops whole subtrees by it.
    pub written: u64,
}

/// An immutable directory node. Children are kept in byte order of their names,
/// which is also the order views list them in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub children: BTreeMap<String, Child>,
}

/// The wire form of a node: `{"e":[[name, "f"|"d", hash, size, written], ...]}`.
/// JSON keeps stores inspectable by hand; the sorted map makes it canonical.
#[derive(Serialize)]
struct NodeWire<'a> {
    e: Vec<(&'a str, &'a str, &'a str, u64, u64)>,
}

/// Names may hold escapes, so decoding owns its strings.
#[derive(Deserialize)]
struct NodeWireOwned {
    e: Vec<(String, String, String, u64, u64)>,
}

impl Node {
    pub fn size(&self) -> u64 {
        self.children.values().map(|c| c.size).sum()
    }

    /// The latest write beneath this node.
    pub fn written(&self) -> u64 {
        self.children.values().map(|c| c.written).max().unwrap_or(0)
    }

    pub fn encode(&self) -> Vec<u8> {
        let hexes: Vec<String> = self.children.values().map(|c| c.hash.hex()).collect();
        let e = self
            .children
            .iter()
            .zip(&hexes)
            .map(|((name, c), h)| {
                let kind = match c.kind {
                    Kind::File => "f",
                    Kind::Dir => "d",
                };
                (name.as_str(), kind, h.as_str(), c.size, c.written)
            })
            .collect();
        serde_json::to_vec(&NodeWire { e }).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Option<Node> {
        let wire: NodeWireOwned = serde_json::from_slice(bytes).ok()?;
        let mut children = BTreeMap::new();
        for (name, kind, hash, size, written) in wire.e {
            let kind = match kind.as_str() {
                "f" => Kind::File,
                "d" => Kind::Dir,
                _ => return None,
            };
            children.insert(
                name,
                Child {
                    kind,
                    hash: Hash::from_hex(&hash)?,
                    size,
                    written,
                },
            );
        }
        Some(Node { children })
    }
}

/// One published version of the whole tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    pub root: String,
    pub parent: Option<String>,
    /// Milliseconds since the Unix epoch, from the runtime's clock.
    pub time: u64,
    pub actor: String,
    pub command: String,
}

impl Commit {
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Option<Commit> {
        serde_json::from_slice(bytes).ok()
    }

    pub fn root_hash(&self) -> Option<Hash> {
        Hash::from_hex(&self.root)
    }

    pub fn parent_hash(&self) -> Option<Hash> {
        self.parent.as_deref().and_then(Hash::from_hex)
    }
}

#[cfg(test)]
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
            },
        );
        n.children.insert(
            "a\"é".into(),
            Child {
                kind: Kind::Dir,
                hash: Hash::of(b"y"),
                size: 7,
                written: 9,
            },
        );
        let bytes = n.encode();
        assert_eq!(Node::decode(&bytes), Some(n.clone()));
        assert_eq!(Node::decode(&bytes).map(|m| m.encode()), Some(bytes));
        assert_eq!(n.size(), 8);
    }

    #[test]
    fn hex_round_trips() {
        let h = Hash::of(b"memdir");
        assert_eq!(Hash::from_hex(&h.hex()), Some(h));
        assert_eq!(Hash::from_hex("zz"), None);
    }
}
