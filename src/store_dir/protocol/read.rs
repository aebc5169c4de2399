//! Reading a store directory: a key's value out of its pack, a pack's mates, the
//! keys listed, and the sweep of stale temporaries. Straight through, no waits.

use alloc::string::String;
use alloc::vec::Vec;

use super::{DirIo, Error, IoKind};
use crate::store_dir::{self as dir, Locate, Mates};

/// Exactly `len` bytes at `offset`; a short file is a damaged one.
fn read_exact<I: DirIo>(
    io: &mut I,
    f: &I::File,
    offset: u64,
    len: u64,
) -> Result<Vec<u8>, Error<I::Error>> {
    let bytes = io.read_at(f, offset, len).map_err(Error::Io)?;
    if (bytes.len() as u64) < len {
        return Err(Error::Damaged);
    }
    Ok(bytes)
}

/// `key`'s value in the pack open at `f` (`size` bytes), reading only its index
/// and that value: a pack may hold a whole import.
pub(super) fn value_in<I: DirIo>(
    io: &mut I,
    f: &I::File,
    size: u64,
    key: &str,
) -> Result<Vec<u8>, Error<I::Error>> {
    let mut head = read_exact(io, f, 0, size.min(4096))?;
    loop {
        match dir::locate(&head, size, key)? {
            Locate::Need(n) => head = read_exact(io, f, 0, n)?,
            Locate::Found { offset, len } => {
                // A small pack is read whole with its index: no second read.
                let within = usize::try_from(offset)
                    .ok()
                    .zip(usize::try_from(offset + len).ok())
                    .and_then(|(from, to)| head.get(from..to));
                return match within {
                    Some(v) => Ok(Vec::from(v)),
                    None => read_exact(io, f, offset, len),
                };
            }
        }
    }
}

/// The other keys of the pack open at `f` when it holds `key` ([`dir::mates`]);
/// none for a damaged file, whose keys cannot be known.
pub(super) fn mates_in<I: DirIo>(
    io: &mut I,
    f: &I::File,
    size: u64,
    key: &str,
) -> Result<Vec<String>, Error<I::Error>> {
    let mut head = match read_exact(io, f, 0, size.min(4096)) {
        Err(Error::Damaged) => return Ok(Vec::new()),
        r => r?,
    };
    loop {
        match dir::mates(&head, size, key) {
            Ok(Mates::Need(n)) => {
                head = match read_exact(io, f, 0, n) {
                    Err(Error::Damaged) => return Ok(Vec::new()),
                    r => r?,
                }
            }
            Ok(Mates::Keys(keys)) => return Ok(keys),
            Err(_) => return Ok(Vec::new()),
        }
    }
}

/// The value of `key`, or `None` when absent; never through a symlink.
pub fn read_value<I: DirIo>(io: &mut I, key: &str) -> Result<Option<Vec<u8>>, Error<I::Error>> {
    let name = dir::file_name(key)?;
    let opened = match io.open(&name) {
        Ok(o) => o,
        Err(e) if I::kind(&e) == IoKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::Io(e)),
    };
    let r = if opened.regular {
        value_in(io, &opened.file, opened.size, key).map(Some)
    } else {
        Err(Error::NotAFile)
    };
    io.close(opened.file);
    r
}

/// A store directory's keys, listed a page at a time.
///
/// A directory can only be read whole, so a listing keeps the keys it read for
/// the pages after its first: a paged listing of n keys (gc's, a key-value
/// guest's) reads the directory once, not n / page times. A page with a cursor
/// is cut from the kept keys while they are of its prefix and younger than
/// [`crate::config::STORE_DIR_LISTING_KEEP_MS`]; a first page, another prefix or an older
/// listing reads the directory again. So the pages after the first show the
/// directory as that read found it, which a listing in pages never promised
/// otherwise. The keys are let go at the listing's last page and at
/// [`Listing::forget`], which a store calls after each change it makes, so its own
/// changes show in the pages that follow.
#[derive(Debug, Default)]
pub struct Listing {
    kept: Option<Kept>,
}

#[derive(Debug)]
struct Kept {
    prefix: String,
    /// Every key of the prefix the directory held after `after`, ascending.
    keys: Vec<String>,
    after: Option<String>,
    at_ms: u64,
}

impl Listing {
    /// The keys starting with `prefix`, strictly after `after`, ascending, at most
    /// `limit`.
    pub fn page<I: DirIo>(
        &mut self,
        io: &mut I,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, Error<I::Error>> {
        let now = io.now_ms();
        if let (Some(after), Some(kept)) = (after, &self.kept)
            && kept.prefix == prefix
            && kept.after.as_deref().is_none_or(|a| after >= a)
            && now.saturating_sub(kept.at_ms) <= crate::config::STORE_DIR_LISTING_KEEP_MS
        {
            let from = kept.keys.partition_point(|k| k.as_str() <= after);
            let rest = kept.keys.get(from..).unwrap_or_default();
            let page: Vec<String> = rest.iter().take(limit).cloned().collect();
            if page.len() == rest.len() {
                self.kept = None;
            }
            return Ok(page);
        }
        self.kept = None;
        let names = io.list().map_err(Error::Io)?;
        let keys = dir::list_keys(names.iter().map(String::as_str), prefix, after, usize::MAX);
        if keys.len() <= limit {
            return Ok(keys);
        }
        // All kept, the page's own too: a caller that asks for one key over its
        // page size, to know whether another page follows, ends its page one key
        // before this one's end.
        let page = keys.get(..limit).unwrap_or_default().to_vec();
        self.kept = Some(Kept {
            prefix: String::from(prefix),
            keys,
            after: after.map(String::from),
            at_ms: now,
        });
        Ok(page)
    }

    /// Lets the kept keys go: the next page reads the directory.
    pub fn forget(&mut self) {
        self.kept = None;
    }
}

/// Removes the temporary files among `names` (the directory as listed) that a
/// crashed writer left long ago. Opening passes its own listing: the directory is
/// read once, and a temporary made since then is young anyway.
pub fn sweep_temporaries<I: DirIo>(io: &mut I, names: &[String]) {
    sweep_temporaries_older_than(io, names, crate::config::TMP_STALE_MS);
}

/// Removes the temporary files among `names` older than `age_ms`: for a caller
/// that holds the directory's turn and knows none that old is a live writer's
/// (a re-encryption removing what the runs killed before it left, which may hold
/// values it was moving in clear).
pub fn sweep_temporaries_older_than<I: DirIo>(io: &mut I, names: &[String], age_ms: u64) {
    for name in names {
        if name.starts_with(dir::TMP_PREFIX) && io.age_ms(name).is_ok_and(|a| a > age_ms) {
            let _ = io.unlink(name);
        }
    }
}
