//! What a store file holds: a pack of one or more keys' values, its index read
//! from the file's first bytes, and which keys a delete must rewrite first.

use alloc::string::String;
use alloc::vec::Vec;

use super::error::DirError;

// PACK: "MDP1", u32 count, then per entry u16 key length, the key (UTF-8), u32
// value length; then the values in the same order. All little-endian.
const MAGIC: [u8; 4] = *b"MDP1";

/// The index of a pack (everything before the values) for keys with values of
/// these lengths; the values follow it in the same order.
pub fn pack_index<'a>(
    entries: impl IntoIterator<Item = (&'a str, u64)>,
) -> Result<Vec<u8>, DirError> {
    let mut out = Vec::from(MAGIC);
    out.extend_from_slice(&[0; 4]);
    let mut count: u32 = 0;
    for (key, len) in entries {
        let klen = u16::try_from(key.len()).map_err(|_| DirError::KeyTooLong)?;
        let vlen = u32::try_from(len).map_err(|_| DirError::ValueTooLarge)?;
        out.extend_from_slice(&klen.to_le_bytes());
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(&vlen.to_le_bytes());
        count = count.checked_add(1).ok_or(DirError::ValueTooLarge)?;
    }
    if let Some(c) = out.get_mut(4..8) {
        c.copy_from_slice(&count.to_le_bytes());
    }
    Ok(out)
}

/// A whole pack of these keys and values.
pub fn pack(entries: &[(&str, &[u8])]) -> Result<Vec<u8>, DirError> {
    let mut out = pack_index(entries.iter().map(|(k, v)| (*k, v.len() as u64)))?;
    for (_, v) in entries {
        out.extend_from_slice(v);
    }
    Ok(out)
}

/// Where a key's value lies in a pack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locate {
    /// Read at least this many bytes from the start and ask again.
    Need(u64),
    /// The value is `len` bytes at `offset`.
    Found {
        /// Where the value starts, counted from the start of the pack.
        offset: u64,
        /// The value's length in bytes.
        len: u64,
    },
}

/// How far a walk over a pack's index got.
enum Walk {
    /// Read at least this many bytes from the start and walk again.
    Need(u64),
    /// The whole index was walked; the values start at this offset.
    Done(u64),
}

/// Walks the index of a pack of `size` bytes from `head`, its first bytes,
/// calling `visit(key, offset among the values, length)` for each entry. A pack
/// whose index and size disagree, or whose index is larger than any value memdir
/// writes ([`crate::config::MAX_VALUE_BYTES`]), is damaged: no reader is ever asked
/// to hold more.
fn walk(head: &[u8], size: u64, mut visit: impl FnMut(&[u8], u64, u64)) -> Result<Walk, DirError> {
    let bad = DirError::DamagedFile;
    let cap = crate::config::MAX_VALUE_BYTES as u64;
    let at = |i: u64, n: usize| -> Result<Result<&[u8], u64>, DirError> {
        let end = i + n as u64;
        if end > size {
            return Err(bad);
        }
        Ok(
            match usize::try_from(i)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(i, e)| head.get(i..e))
            {
                Some(s) => Ok(s),
                None => Err(end),
            },
        )
    };
    macro_rules! take {
        ($i:expr, $n:expr) => {
            match at($i, $n)? {
                Ok(s) => s,
                Err(end) if end > cap => return Err(bad),
                Err(end) => {
                    return Ok(Walk::Need(
                        end.max(head.len() as u64 * 2).min(size).min(cap),
                    ))
                }
            }
        };
    }
    let top = take!(0, 8);
    if top.get(..4) != Some(&MAGIC[..]) {
        return Err(bad);
    }
    let count = u64::from(u32::from_le_bytes(
        top.get(4..8).and_then(|s| s.try_into().ok()).ok_or(bad)?,
    ));
    if 8 + count * 6 > size {
        return Err(bad);
    }
    let (mut i, mut offset) = (8u64, 0u64);
    for _ in 0..count {
        let kl = take!(i, 2);
        let klen = u16::from_le_bytes(kl.try_into().map_err(|_| bad)?) as usize;
        let k = take!(i + 2, klen);
        let vl = take!(i + 2 + klen as u64, 4);
        let vlen = u64::from(u32::from_le_bytes(vl.try_into().map_err(|_| bad)?));
        visit(k, offset, vlen);
        offset += vlen;
        i += 6 + klen as u64;
    }
    if i + offset != size {
        return Err(bad);
    }
    Ok(Walk::Done(i))
}

/// Finds `key`'s value in a pack of `size` bytes from `head`, the pack's first
/// bytes (the index; a pack may hold a whole import, so a reader need not read
/// the values it does not want). A pack that does not hold the key, or whose
/// index and size disagree, is damaged; so is one whose index or wanted value is
/// larger than any value memdir writes ([`crate::config::MAX_VALUE_BYTES`]): no
/// reader is ever asked to hold more.
pub fn locate(head: &[u8], size: u64, key: &str) -> Result<Locate, DirError> {
    let mut found = None;
    let walked = walk(head, size, |k, offset, len| {
        if found.is_none() && k == key.as_bytes() {
            found = Some((offset, len));
        }
    })?;
    match (walked, found) {
        (Walk::Need(n), _) => Ok(Locate::Need(n)),
        (Walk::Done(at), Some((offset, len))) if len <= crate::config::MAX_VALUE_BYTES as u64 => {
            Ok(Locate::Found {
                offset: at + offset,
                len,
            })
        }
        _ => Err(DirError::DamagedFile),
    }
}

/// Which keys a delete must rewrite first, from one pack's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mates {
    /// Read at least this many bytes from the start and ask again.
    Need(u64),
    /// The pack's other keys, each once, in index order.
    Keys(Vec<String>),
}

/// The other keys of a pack (`size` bytes, `head` its first bytes) when it holds
/// `key`; none when it does not, or holds `key` alone.
///
/// A pack's bytes live on under every name linked to it (or under each copy, on a
/// filesystem without hard links), so unlinking `key`'s name alone would leave its
/// value on the disk. A delete of `key` therefore first asks this of `key`'s own
/// file, and then, holding each mate's lock, of that mate's file: when the mate's
/// file still holds `key` (the same pack, or a copy of it), the mate is rewritten
/// as a pack of its own value only; then `key`'s name is unlinked. Each rewrite
/// keeps the mate's value byte for byte, so a reader sees the old pack or the new
/// one with the same value. A key that another key's pack holds but whose name
/// links elsewhere does not arise: a commit leaves out of its pack every object
/// whose name already holds the same value ([`crate::store::Store::commit`]'s
/// objects are content-addressed), so a value is packed once.
pub fn mates(head: &[u8], size: u64, key: &str) -> Result<Mates, DirError> {
    let (mut keys, mut holds) = (Vec::<String>::new(), false);
    let mut utf8 = true;
    let walked = walk(head, size, |k, _, _| {
        if k == key.as_bytes() {
            holds = true;
        } else if let Ok(k) = core::str::from_utf8(k) {
            if !keys.iter().any(|have| have == k) {
                keys.push(k.into());
            }
        } else {
            utf8 = false;
        }
    })?;
    match walked {
        Walk::Need(n) => Ok(Mates::Need(n)),
        Walk::Done(_) if !utf8 => Err(DirError::DamagedFile),
        Walk::Done(_) if !holds => Ok(Mates::Keys(Vec::new())),
        Walk::Done(_) => Ok(Mates::Keys(keys)),
    }
}

/// `key`'s value in a whole pack held in memory.
pub fn pack_value<'a>(bytes: &'a [u8], key: &str) -> Result<&'a [u8], DirError> {
    match locate(bytes, bytes.len() as u64, key)? {
        Locate::Found { offset, len } => bytes
            .get(offset as usize..(offset + len) as usize)
            .ok_or(DirError::DamagedFile),
        Locate::Need(_) => Err(DirError::DamagedFile),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_claiming_a_value_past_the_cap_is_damaged_before_anything_is_read() {
        let mut head = Vec::from(&MAGIC[..]);
        head.extend_from_slice(&1u32.to_le_bytes());
        head.extend_from_slice(&4u16.to_le_bytes());
        head.extend_from_slice(b"head");
        head.extend_from_slice(&(1u32 << 30).to_le_bytes());
        let size = head.len() as u64 + (1 << 30);
        assert_eq!(locate(&head, size, "head"), Err(DirError::DamagedFile));
        // A reader is never asked for more than the cap, however large the pack.
        let mut many = Vec::from(&MAGIC[..]);
        many.extend_from_slice(&u32::MAX.to_le_bytes());
        many.resize(crate::config::MAX_VALUE_BYTES / 2 + 1, 0);
        let asked = locate(&many, 8 + u64::from(u32::MAX) * 300, "head");
        assert_eq!(
            asked,
            Ok(Locate::Need(crate::config::MAX_VALUE_BYTES as u64))
        );
    }

    #[test]
    fn packs_round_trip_and_damage_is_caught() {
        let p = pack(&[("blob/1", b"one"), ("head", b"")]).unwrap_or_default();
        assert_eq!(pack_value(&p, "blob/1"), Ok(&b"one"[..]));
        assert_eq!(pack_value(&p, "head"), Ok(&b""[..]));
        assert_eq!(pack_value(&p, "other"), Err(DirError::DamagedFile));
        assert_eq!(
            pack_value(p.get(..p.len() - 1).unwrap_or_default(), "head"),
            Err(DirError::DamagedFile)
        );
        assert_eq!(
            pack_value(b"MDP1\xff\xff\xff\xff", "head"),
            Err(DirError::DamagedFile)
        );
        assert_eq!(pack_value(b"junk", "head"), Err(DirError::DamagedFile));
        // A reader holding only the start is told how much more to read.
        assert_eq!(
            locate(p.get(..10).unwrap_or_default(), p.len() as u64, "head"),
            Ok(Locate::Need(20))
        );
        assert_eq!(
            locate(&p, p.len() as u64, "blob/1"),
            Ok(Locate::Found { offset: 30, len: 3 })
        );
    }

    #[test]
    fn a_delete_rewrites_the_mates_of_its_pack_and_only_those() {
        let p = pack(&[
            ("blob/1", b"one"),
            ("head", b"h"),
            ("tree/2", b"two"),
            ("head", b"again"),
        ])
        .unwrap_or_default();
        let size = p.len() as u64;
        assert_eq!(
            mates(&p, size, "blob/1"),
            Ok(Mates::Keys(alloc::vec!["head".into(), "tree/2".into()]))
        );
        assert_eq!(
            mates(&p, size, "tree/2"),
            Ok(Mates::Keys(alloc::vec!["blob/1".into(), "head".into()]))
        );
        // A pack not holding the key has nothing of it to rewrite, nor has one
        // holding it alone.
        assert_eq!(mates(&p, size, "blob/9"), Ok(Mates::Keys(Vec::new())));
        let alone = pack(&[("blob/1", b"one")]).unwrap_or_default();
        assert_eq!(
            mates(&alone, alone.len() as u64, "blob/1"),
            Ok(Mates::Keys(Vec::new()))
        );
        // Only the index is read, and a short head asks for more.
        assert_eq!(
            mates(p.get(..10).unwrap_or_default(), size, "blob/1"),
            Ok(Mates::Need(20))
        );
        assert_eq!(
            mates(p.get(..p.len() - 1).unwrap_or_default(), size - 1, "blob/1"),
            Err(DirError::DamagedFile)
        );
        assert_eq!(mates(b"junk", 4, "blob/1"), Err(DirError::DamagedFile));
        let mut both = pack_index([("a", 0), ("\u{e9}", 0)]).unwrap_or_default();
        if let Some(b) = both.get_mut(17) {
            *b = 0xff; // the second key's first byte: no longer UTF-8
        }
        assert_eq!(
            mates(&both, both.len() as u64, "a"),
            Err(DirError::DamagedFile)
        );
    }
}
