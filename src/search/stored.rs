//! The index as stored: a table under [`MANIFEST`] naming the tree it reflects
//! and one piece ("chunk") per bucket of memories, each under its own SHA-256 at
//! [`CHUNK`]. A memory's bucket is its path's SHA-256, modulo the bucket count (a
//! power of two), so a change rewrites the chunk of each memory it touches and the
//! table, never the whole index.
//!
//! Both forms are binary, canonical and read like any stored value: every field
//! checked, a chunk against its hash and its bucket, so damage is found and the
//! index rebuilt, never trusted.
//!
//! The table: `MDIX`, format 1, the tokenizer's version, the root it reflects, a
//! flag (1: a catch-up towards another root stopped part way: that root, then the
//! last path it reached, as LEB128 length and UTF-8), the bucket count (LEB128),
//! then per bucket a flag (1: a chunk, then its 32-byte hash).
//!
//! A chunk: `MDIC`, format 1, its bucket (LEB128), its terms (count, then each as
//! length and UTF-8, strictly ascending), its memories (count, then each: path as
//! length and UTF-8, strictly ascending by path; content hash; its terms' count,
//! then each term's number in the chunk's list, strictly ascending, and its
//! weighted frequency, at least 1).

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{SEARCH_MAX_DOC_TERMS, SEARCH_MAX_TERM_CHARS};
use crate::search::index::{Counted, Index};
use crate::search::tokens::TOKENIZER_VERSION;
use crate::storage::reader::Reader;
use crate::storage::tree::Hash;

/// The key of the index's table.
pub(crate) const MANIFEST: &str = "index/head";
/// The prefix of the index's chunks.
pub(crate) const CHUNK: &str = "index/chunk/";

const MANIFEST_MAGIC: &[u8; 4] = b"MDIX";
const CHUNK_MAGIC: &[u8; 4] = b"MDIC";
const FORMAT: u8 = 1;
/// Most buckets a table may name (a million memories at 64 a chunk).
const MAX_BUCKETS: u64 = 1 << 14;

/// What the table says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub root: Hash,
    /// A catch-up towards this root stopped after this path: every path up to it
    /// is as that root has it, the rest as `root` has them.
    pub pending: Option<(Hash, String)>,
    /// Each bucket's chunk (`None`: no memory falls in it).
    pub chunks: Vec<Option<Hash>>,
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

impl Manifest {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(48 + 33 * self.chunks.len());
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
        put_leb(&mut out, self.chunks.len() as u64);
        for c in &self.chunks {
            match c {
                None => out.push(0),
                Some(h) => {
                    out.push(1);
                    out.extend_from_slice(&h.0);
                }
            }
        }
        out
    }

    /// The table in `bytes`; `None` if it is not one this build wrote with these
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
        let n = r.leb128()?;
        if n == 0 || n > MAX_BUCKETS || !n.is_power_of_two() {
            return None;
        }
        let mut chunks = Vec::with_capacity(n as usize);
        for _ in 0..n {
            chunks.push(match r.byte()? {
                0 => None,
                1 => Some(r.hash()?),
                _ => return None,
            });
        }
        r.rest().is_empty().then_some(Manifest {
            root,
            pending,
            chunks,
        })
    }
}

/// The chunk of bucket `bucket`: the indexed memories whose paths fall in it.
pub(crate) fn encode_chunk(index: &Index, bucket: usize, paths: &[Rc<str>]) -> Vec<u8> {
    // The chunk's own term list: every term its memories hold, ascending.
    let mut terms: BTreeMap<&str, u64> = BTreeMap::new();
    let docs: Vec<_> = paths.iter().filter_map(|p| index.doc_at(p)).collect();
    for d in &docs {
        for (t, _) in d.terms.iter() {
            if let Some(name) = index.term_name(*t) {
                terms.insert(name, 0);
            }
        }
    }
    for (n, v) in terms.values_mut().enumerate() {
        *v = n as u64;
    }
    let mut out = Vec::new();
    out.extend_from_slice(CHUNK_MAGIC);
    out.push(FORMAT);
    put_leb(&mut out, bucket as u64);
    put_leb(&mut out, terms.len() as u64);
    for t in terms.keys() {
        put_str(&mut out, t);
    }
    put_leb(&mut out, docs.len() as u64);
    for d in &docs {
        put_str(&mut out, &d.path);
        out.extend_from_slice(&d.hash.0);
        let mut own: Vec<(u64, u32)> = d
            .terms
            .iter()
            .filter_map(|(t, tf)| Some((*terms.get(&**index.term_name(*t)?)?, *tf)))
            .collect();
        own.sort_unstable();
        put_leb(&mut out, own.len() as u64);
        for (t, tf) in own {
            put_leb(&mut out, t);
            put_leb(&mut out, u64::from(tf));
        }
    }
    out
}

/// One memory as a chunk holds it.
pub(crate) struct ChunkDoc {
    pub path: Rc<str>,
    pub hash: Hash,
    pub counts: Counted,
}

/// The memories of the chunk `bytes` of bucket `bucket` of `buckets`; `None` if it
/// is not a well-formed chunk of that bucket.
pub(crate) fn decode_chunk(bytes: &[u8], bucket: usize, buckets: usize) -> Option<Vec<ChunkDoc>> {
    let mut r = Reader::new(bytes);
    if &r.take::<4>()? != CHUNK_MAGIC || r.byte()? != FORMAT {
        return None;
    }
    if r.leb128()? != bucket as u64 {
        return None;
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
    let mut docs: Vec<ChunkDoc> = Vec::with_capacity(ndocs);
    for _ in 0..ndocs {
        let path = read_str(&mut r, crate::config::MAX_STORE_PATH_BYTES)?;
        if !path.starts_with('/')
            || docs.last().is_some_and(|last| &*last.path >= path)
            || bucket_of(path, buckets) != bucket
        {
            return None;
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
        docs.push(ChunkDoc {
            path: Rc::from(path),
            hash,
            counts,
        });
    }
    r.rest().is_empty().then_some(docs)
}
