//! The index as stored: a base and the changes since it, so that bringing the
//! index up to a write costs about what the write changed.
//!
//! - the head of the index, under [`MANIFEST`]: the tree it reflects, the base's
//!   table, and the deltas since the base, oldest first;
//! - the base's table: one chunk per bucket of memories (a memory's bucket is its
//!   path's SHA-256 modulo the bucket count, a power of two);
//! - chunks and deltas: memories with their terms; a delta also says which paths
//!   are gone.
//!
//! Everything but the head lives under [`CHUNK`] at its own SHA-256, so a value
//! is checked against its name when read. A catch-up writes one small delta;
//! deltas merge as a binary counter does (a new delta takes in every older one
//! no more than twice its size), so there are at most about log2 of the changes
//! since the base, and each change is rewritten a logarithmic number of times;
//! once the changes since the base reach a share of the index
//! ([`SEARCH_DELTA_SHARE`](crate::config::SEARCH_DELTA_SHARE)), they are folded in: the chunks of the buckets they
//! touched are rewritten, and the deltas go. A fold also follows a redaction, so
//! no stored value keeps the erased text's terms (a deleted memory's stay until
//! the next fold, as its text stays in the version history until retention).
//!
//! Every form is binary, canonical and read like any stored value: every field
//! checked, so damage is found and the index rebuilt, never trusted.
//!
//! The head: `MDIX`, format 1, the tokenizer's version, the root it reflects, a
//! flag (1: a catch-up towards another root stopped part way: that root, then the
//! last path it reached, as LEB128 length and UTF-8), a flag (1: a base, then its
//! table's hash), the number of deltas (LEB128) and each one's hash.
//!
//! The table: `MDIT`, format 1, the bucket count (LEB128), then per bucket a flag
//! (1: a chunk, then its hash).
//!
//! A chunk (`MDIC`, format 1, its bucket as LEB128) or a delta (`MDID`, format 1):
//! its terms (count, then each as length and UTF-8, strictly ascending), its
//! entries (count, then each: path as length and UTF-8, strictly ascending by
//! path; a flag, 1: a memory (a chunk's entries all are), 0: gone; for a memory its
//! content hash, its terms' count, then each term's number in the list, strictly
//! ascending, and its weighted frequency, at least 1).

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{SEARCH_MAX_DOC_TERMS, SEARCH_MAX_TERM_CHARS};
use crate::search::index::{Counted, Index};
use crate::search::tokens::TOKENIZER_VERSION;
use crate::storage::reader::Reader;
use crate::storage::tree::Hash;

/// The key of the index's head.
pub(crate) const MANIFEST: &str = "index/head";
/// The prefix of the index's other values (tables, chunks, deltas), each under
/// its SHA-256.
pub(crate) const CHUNK: &str = "index/chunk/";

const MANIFEST_MAGIC: &[u8; 4] = b"MDIX";
const TABLE_MAGIC: &[u8; 4] = b"MDIT";
const CHUNK_MAGIC: &[u8; 4] = b"MDIC";
const DELTA_MAGIC: &[u8; 4] = b"MDID";
/// Most deltas a head may name: merged as a binary counter, they number about
/// log2 of the changes since the base.
const MAX_DELTAS: u64 = 64;
const FORMAT: u8 = 1;
/// Most buckets a table may name (a million memories at 64 a chunk).
const MAX_BUCKETS: u64 = 1 << 14;

/// What the head of the index says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub root: Hash,
    /// A catch-up towards this root stopped after this path: every path up to it
    /// is as that root has it, the rest as `root` has them.
    pub pending: Option<(Hash, String)>,
    /// The base's table (`None`: no base yet).
    pub table: Option<Hash>,
    /// The deltas since the base, oldest first.
    pub deltas: Vec<Hash>,
}

fn put_leb(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_leb(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn read_str<'a>(r: &mut Reader<'a>, max: usize) -> Option<&'a str> {
    let n = usize::try_from(r.leb128()?).ok()?;
    if n > max {
        return None;
    }
    core::str::from_utf8(r.bytes(n)?).ok()
}

/// The bucket of the memory at store path `path`, of `buckets` (a power of two).
pub(crate) fn bucket_of(path: &str, buckets: usize) -> usize {
    let h = Hash::of(path.as_bytes()).0;
    let n = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) as usize;
    n & buckets.saturating_sub(1)
}

fn put_hash_opt(out: &mut Vec<u8>, h: Option<&Hash>) {
    match h {
        None => out.push(0),
        Some(h) => {
            out.push(1);
            out.extend_from_slice(&h.0);
        }
    }
}

fn read_hash_opt(r: &mut Reader<'_>) -> Option<Option<Hash>> {
    match r.byte()? {
        0 => Some(None),
        1 => Some(Some(r.hash()?)),
        _ => None,
    }
}

impl Manifest {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(80 + 32 * self.deltas.len());
        out.extend_from_slice(MANIFEST_MAGIC);
        out.push(FORMAT);
        out.push(TOKENIZER_VERSION);
        out.extend_from_slice(&self.root.0);
        match &self.pending {
            None => out.push(0),
            Some((target, after)) => {
                out.push(1);
                out.extend_from_slice(&target.0);
                put_str(&mut out, after);
            }
        }
        put_hash_opt(&mut out, self.table.as_ref());
        put_leb(&mut out, self.deltas.len() as u64);
        for d in &self.deltas {
            out.extend_from_slice(&d.0);
        }
        out
    }

    /// The head in `bytes`; `None` if it is not one this build wrote with these
    /// tokenizer rules (the index is then rebuilt).
    pub(crate) fn decode(bytes: &[u8]) -> Option<Manifest> {
        let mut r = Reader::new(bytes);
        if &r.take::<4>()? != MANIFEST_MAGIC || r.byte()? != FORMAT {
            return None;
        }
        if r.byte()? != TOKENIZER_VERSION {
            return None;
        }
        let root = r.hash()?;
        let pending = match r.byte()? {
            0 => None,
            1 => {
                let target = r.hash()?;
                let after = read_str(&mut r, crate::config::MAX_STORE_PATH_BYTES)?;
                Some((target, String::from(after)))
            }
            _ => return None,
        };
        let table = read_hash_opt(&mut r)?;
        let n = r.leb128()?;
        if n > MAX_DELTAS {
            return None;
        }
        let mut deltas = Vec::with_capacity(n as usize);
        for _ in 0..n {
            deltas.push(r.hash()?);
        }
        r.rest().is_empty().then_some(Manifest {
            root,
            pending,
            table,
            deltas,
        })
    }
}

/// The base's table: each bucket's chunk (`None`: no memory falls in it).
pub(crate) fn encode_table(chunks: &[Option<Hash>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + 33 * chunks.len());
    out.extend_from_slice(TABLE_MAGIC);
    out.push(FORMAT);
    put_leb(&mut out, chunks.len() as u64);
    for c in chunks {
        put_hash_opt(&mut out, c.as_ref());
    }
    out
}

pub(crate) fn decode_table(bytes: &[u8]) -> Option<Vec<Option<Hash>>> {
    let mut r = Reader::new(bytes);
    if &r.take::<4>()? != TABLE_MAGIC || r.byte()? != FORMAT {
        return None;
    }
    let n = r.leb128()?;
    if n == 0 || n > MAX_BUCKETS || !n.is_power_of_two() {
        return None;
    }
    let mut chunks = Vec::with_capacity(n as usize);
    for _ in 0..n {
        chunks.push(read_hash_opt(&mut r)?);
    }
    r.rest().is_empty().then_some(chunks)
}

/// Which of the two forms of memories a value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entries {
    /// A base chunk of this bucket, of this many: memories only.
    Chunk { bucket: usize, buckets: usize },
    /// A delta: memories and paths gone.
    Delta,
}

/// The value of `kind` holding each of `paths` as the index has it now: a
/// memory, or (a delta only) gone.
pub(crate) fn encode_entries(index: &Index, kind: Entries, paths: &[Rc<str>]) -> Vec<u8> {
    let docs: Vec<_> = paths.iter().map(|p| (p, index.doc_at(p))).collect();
    // The value's own term list: every term its memories hold, by name; then each
    // index term id's number in it (ids compared as integers, names sorted once).
    let mut ids: Vec<u32> = docs
        .iter()
        .filter_map(|(_, d)| *d)
        .flat_map(|d| d.terms.iter().map(|(t, _)| *t))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut named: Vec<(&str, u32)> = ids
        .iter()
        .filter_map(|t| Some((&**index.term_name(*t)?, *t)))
        .collect();
    named.sort_unstable();
    let mut local: Vec<(u32, u64)> = named
        .iter()
        .enumerate()
        .map(|(n, (_, t))| (*t, n as u64))
        .collect();
    local.sort_unstable();
    let number = |t: u32| {
        local
            .binary_search_by_key(&t, |(id, _)| *id)
            .ok()
            .and_then(|at| local.get(at))
            .map(|(_, n)| *n)
    };
    let mut out = Vec::new();
    match kind {
        Entries::Chunk { bucket, .. } => {
            out.extend_from_slice(CHUNK_MAGIC);
            out.push(FORMAT);
            put_leb(&mut out, bucket as u64);
        }
        Entries::Delta => {
            out.extend_from_slice(DELTA_MAGIC);
            out.push(FORMAT);
        }
    }
    put_leb(&mut out, named.len() as u64);
    for (t, _) in &named {
        put_str(&mut out, t);
    }
    put_leb(&mut out, docs.len() as u64);
    let mut own: Vec<(u64, u32)> = Vec::new();
    for (path, doc) in &docs {
        put_str(&mut out, path);
        let Some(d) = doc else {
            out.push(0);
            continue;
        };
        out.push(1);
        out.extend_from_slice(&d.hash.0);
        own.clear();
        own.extend(
            d.terms
                .iter()
                .filter_map(|(t, tf)| Some((number(*t)?, *tf))),
        );
        own.sort_unstable();
        put_leb(&mut out, own.len() as u64);
        for (t, tf) in &own {
            put_leb(&mut out, *t);
            put_leb(&mut out, u64::from(*tf));
        }
    }
    out
}

/// One entry of a chunk or delta: a path, and its memory (`None`: gone).
pub(crate) struct Entry {
    pub path: Rc<str>,
    pub doc: Option<(Hash, Counted)>,
}

/// The entries of the value `bytes` of `kind`; `None` if it is not well formed
/// (a chunk holding a path of another bucket, or one gone, included).
pub(crate) fn decode_entries(bytes: &[u8], kind: Entries) -> Option<Vec<Entry>> {
    let mut r = Reader::new(bytes);
    let magic = r.take::<4>()?;
    if r.byte()? != FORMAT {
        return None;
    }
    match kind {
        Entries::Chunk { bucket, .. } => {
            if &magic != CHUNK_MAGIC || r.leb128()? != bucket as u64 {
                return None;
            }
        }
        Entries::Delta => {
            if &magic != DELTA_MAGIC {
                return None;
            }
        }
    }
    let nterms = usize::try_from(r.leb128()?).ok()?;
    if nterms > bytes.len() {
        return None;
    }
    let mut terms: Vec<&str> = Vec::with_capacity(nterms);
    for _ in 0..nterms {
        let t = read_str(&mut r, SEARCH_MAX_TERM_CHARS * 4)?;
        if t.is_empty() || terms.last().is_some_and(|last| *last >= t) {
            return None;
        }
        terms.push(t);
    }
    let ndocs = usize::try_from(r.leb128()?).ok()?;
    if ndocs > bytes.len() {
        return None;
    }
    let mut docs: Vec<Entry> = Vec::with_capacity(ndocs);
    for _ in 0..ndocs {
        let path = read_str(&mut r, crate::config::MAX_STORE_PATH_BYTES)?;
        if !path.starts_with('/') || docs.last().is_some_and(|last| &*last.path >= path) {
            return None;
        }
        if let Entries::Chunk { bucket, buckets } = kind
            && bucket_of(path, buckets) != bucket
        {
            return None;
        }
        match (r.byte()?, kind) {
            (1, _) => {}
            (0, Entries::Delta) => {
                docs.push(Entry {
                    path: Rc::from(path),
                    doc: None,
                });
                continue;
            }
            _ => return None,
        }
        let hash = r.hash()?;
        let n = usize::try_from(r.leb128()?).ok()?;
        if n > SEARCH_MAX_DOC_TERMS {
            return None;
        }
        let mut counts = Counted::new();
        let mut last: Option<u64> = None;
        for _ in 0..n {
            let t = r.leb128()?;
            let tf = u32::try_from(r.leb128()?).ok()?;
            if tf == 0 || last.is_some_and(|l| l >= t) {
                return None;
            }
            last = Some(t);
            let name = terms.get(usize::try_from(t).ok()?)?;
            counts.insert(String::from(*name), tf);
        }
        docs.push(Entry {
            path: Rc::from(path),
            doc: Some((hash, counts)),
        });
    }
    r.rest().is_empty().then_some(docs)
}
