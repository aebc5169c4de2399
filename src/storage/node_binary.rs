//! The binary form of a tree leaf: the form this build writes (the JSON form of
//! `node_json`, which builds before it wrote, is still read). Every write encodes,
//! hashes and stores the leaf of each directory on its path; in JSON a child's hash
//! was 66 characters of hex and each time 13 digits, so those leaves were most of
//! what a write hashed besides its content: 5,669 bytes a `str_replace` on the
//! bench's workload, 2,670 in this form, and writes 11-24% faster.
//!
//! Layout: the tag [`TAG`], the number of entries, then per entry its name (its
//! length, then its UTF-8 bytes), a flags byte ([`DIR`]; [`MEMORY`]: a file with a
//! memory id, followed after the size and time by the id and the memory's creation
//! time; [`VERSION`] with it: then by the version that wrote the file, which earlier
//! builds never wrote), the hash's 32 bytes, the size and the written time. Numbers are LEB128 in
//! their shortest form and names strictly ascending by bytes, so one leaf has one
//! encoding; [`decode`] refuses anything else. Branches stay JSON: only directories
//! of more than `LEAF_MAX` entries have them.

use alloc::vec::Vec;

use crate::storage::child::{Child, Kind};
use crate::storage::entries::{Entries, Name};
use crate::storage::reader::Reader;

/// The binary form's first bytes (never `{`, so the JSON form stays recognisable).
pub(crate) const TAG: &[u8; 2] = b"T1";
/// Flags: the child is a directory.
const DIR: u8 = 1;
/// Flags: the child is a file with a memory id (and its creation time).
const MEMORY: u8 = 2;
/// Flags, with [`MEMORY`]: the file names the memory's version that wrote it
/// ([`Child::ver`]), after the creation time. Builds before it never set it.
const VERSION: u8 = 4;
const VERSIONED: u8 = MEMORY | VERSION;
/// The fewest bytes an entry takes: a one-byte name and one-byte numbers.
const SHORTEST_ENTRY: usize = 1 + 1 + 1 + 32 + 1 + 1;

fn number(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The leaf holding `children`.
pub(crate) fn encode(children: &Entries) -> Vec<u8> {
    // An entry is at most 50 bytes besides its name: sized once, never grown.
    let names: usize = children.iter().map(|(name, _)| name.len()).sum();
    let mut out = Vec::with_capacity(TAG.len() + 10 + names + children.len() * 52);
    out.extend_from_slice(TAG);
    number(&mut out, children.len() as u64);
    for (name, c) in children {
        number(&mut out, name.len() as u64);
        out.extend_from_slice(name.as_bytes());
        let memory = c.kind == Kind::File && c.mem != 0;
        let dir = if c.kind == Kind::Dir { DIR } else { 0 };
        let version = memory && c.ver != 0;
        out.push(dir | if memory { MEMORY } else { 0 } | if version { VERSION } else { 0 });
        out.extend_from_slice(&c.hash.0);
        number(&mut out, c.size);
        number(&mut out, c.written);
        if memory {
            number(&mut out, c.mem);
            number(&mut out, c.created);
        }
        if version {
            number(&mut out, c.ver);
        }
    }
    out
}

/// The entries of a leaf in the binary form (`bytes` starting with [`TAG`]), in
/// order, or `None` if memdir could not have written them. The rules every stored
/// leaf keeps whatever its form (names, sizes) are the caller's.
pub(crate) fn decode(bytes: &[u8]) -> Option<Entries> {
    let mut r = Reader::new(bytes.strip_prefix(TAG)?);
    let count = usize::try_from(r.leb128()?).ok()?;
    // A claimed count is input: room for no more entries than the bytes can hold.
    let mut entries = Entries::with_capacity(count.min(r.rest().len() / SHORTEST_ENTRY));
    for _ in 0..count {
        let len = usize::try_from(r.leb128()?).ok()?;
        let name = core::str::from_utf8(r.bytes(len)?).ok()?;
        let flags = r.byte()?;
        let kind = match flags {
            0 | MEMORY | VERSIONED => Kind::File,
            DIR => Kind::Dir,
            _ => return None,
        };
        let hash = r.hash()?;
        let mut child = Child::plain(kind, hash, r.leb128()?, r.leb128()?);
        if flags & MEMORY != 0 {
            child.mem = r.leb128()?;
            child.created = r.leb128()?;
            if child.mem == 0 {
                return None;
            }
        }
        if flags == VERSIONED {
            // A memory's version is never older than the version that made it.
            child.ver = r.leb128()?;
            if child.ver < child.mem {
                return None;
            }
        }
        // Strictly ascending, or refused.
        entries.push_last(Name::from(name), child).ok()?;
    }
    r.rest().is_empty().then_some(entries)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::storage::hash::Hash;

    fn child(kind: Kind, i: u8, mem: u64) -> Child {
        Child {
            kind,
            hash: Hash::of(&[i]),
            size: u64::from(i) * 1000,
            written: 1_795_000_000_000 + u64::from(i),
            mem,
            created: if mem == 0 { 0 } else { 1_794_000_000_000 },
            ver: 0,
        }
    }

    fn leaf() -> Entries {
        let mut m = Entries::new();
        m.insert("a.md".into(), child(Kind::File, 1, 7));
        m.insert("dir".into(), child(Kind::Dir, 2, 0));
        m.insert("plain".into(), child(Kind::File, 3, 0));
        m.insert("ünï €".into(), child(Kind::File, 4, u64::MAX));
        m.insert(
            "written.md".into(),
            Child {
                ver: 300,
                ..child(Kind::File, 5, 9)
            },
        );
        m
    }

    #[test]
    fn leaves_round_trip() {
        for m in [Entries::new(), leaf()] {
            let bytes = encode(&m);
            assert_eq!(decode(&bytes), Some(m));
        }
        assert_eq!(encode(&Entries::new()), b"T1\x00");
    }

    #[test]
    fn numbers_are_leb128_in_their_shortest_form() {
        for (n, bytes) in [
            (0u64, &[0u8][..]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (300, &[0xac, 0x02]),
            (
                u64::MAX,
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            ),
        ] {
            let mut out = Vec::new();
            number(&mut out, n);
            assert_eq!(out, bytes, "{n}");
            assert_eq!(Reader::new(bytes).leb128(), Some(n));
        }
        let refused: [&[u8]; 5] = [
            &[0x80, 0x00],                                                 // 0, spelled long
            &[0xff, 0x00],                                                 // 127, spelled long
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], // past 64 bits
            &[0x80; 11],                                                   // no end
            &[0x80],                                                       // cut short
        ];
        for bad in refused {
            assert_eq!(Reader::new(bad).leb128(), None, "{bad:?}");
        }
    }

    #[test]
    fn leaves_memdir_could_not_have_written_are_refused() {
        let good = encode(&leaf());
        assert!(decode(&good).is_some());
        // The first entry, `a.md` (a file with a memory): its length at 3, its
        // flags at 8, its hash from 9.
        assert_eq!((good[3], &good[4..8], good[8]), (4, &b"a.md"[..], MEMORY));
        let with = |at: usize, b: u8| {
            let mut v = good.clone();
            v[at] = b;
            v
        };
        let swapped = {
            let mut m = leaf();
            let d = m.remove("dir").unwrap();
            let mut bytes = encode(&m);
            // `dir` again, appended after `ünï €` and counted: out of order.
            bytes[2] += 1;
            let mut tail = Entries::new();
            tail.set("dir", d);
            bytes.extend_from_slice(&encode(&tail)[3..]);
            bytes
        };
        let twice = {
            let mut bytes = encode(&leaf());
            bytes[2] += 1;
            let mut tail = Entries::new();
            tail.set("ünï €", child(Kind::File, 4, u64::MAX));
            bytes.extend_from_slice(&encode(&tail)[3..]);
            bytes
        };
        let no_id = {
            let mut m = Entries::new();
            m.set("a", child(Kind::File, 1, 0));
            let mut bytes = encode(&m);
            bytes[4] = MEMORY; // flags say a memory follows: its id is 0 and then nothing
            bytes.extend_from_slice(&[0, 0]);
            bytes
        };
        // `written.md`: a memory naming its version (300, two bytes after its
        // hash, size 5000, time, id 9 and creation time).
        let name = good.windows(10).position(|w| w == b"written.md").unwrap();
        let at = name + 10;
        assert_eq!(good[at], VERSIONED);
        let ver = at + 1 + 32 + 2 + 6 + 1 + 6;
        assert_eq!(&good[ver..ver + 2], &[0xac, 0x02]);
        let older = {
            // Version 8 of memory 9: older than the memory.
            let mut v = good.clone();
            v.splice(ver..ver + 2, [8]);
            v
        };
        let refused: [(&str, Vec<u8>); 13] = [
            ("a version older than its memory", older),
            ("a version flag without a memory", with(at, VERSION)),
            ("a directory naming a version", with(at, DIR | VERSIONED)),
            ("no tag", good[2..].to_vec()),
            ("another tag", [b"T2", &good[2..]].concat()),
            ("cut short", good[..good.len() - 1].to_vec()),
            ("trailing bytes", [good.as_slice(), b"x"].concat()),
            ("a count past the entries", with(2, 6)),
            ("unknown flags", with(8, 4)),
            ("a directory with a memory id", with(8, DIR | MEMORY)),
            ("names out of order", swapped),
            ("a name twice", twice),
            ("a memory id of 0", no_id),
        ];
        for (what, bad) in refused {
            assert_eq!(decode(&bad), None, "{what}");
        }
        let mut not_utf8 = Entries::new();
        not_utf8.set("ab", child(Kind::File, 1, 0));
        let mut bytes = encode(&not_utf8);
        bytes[4] = 0xff;
        assert_eq!(decode(&bytes), None, "a name that is not UTF-8");
    }

    #[test]
    fn a_claimed_count_reserves_no_more_than_the_bytes_hold() {
        // 2^62 entries claimed over none: refused without a huge allocation.
        let mut bytes = b"T1".to_vec();
        number(&mut bytes, 1 << 62);
        assert_eq!(decode(&bytes), None);
    }
}
