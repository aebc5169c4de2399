//! Vectors as derived data: one per (fingerprint, text), kept in the store beside
//! the index, outside the version history, and made lazily.
//!
//! - Key: `vec/<content sha256>/<fingerprint key>` (the text's blob hash, and
//!   [`Fingerprint::key`]): identical texts share one vector, a redaction deletes
//!   every vector of the erased text by listing `vec/<its sha256>/`, and gc deletes
//!   those of texts it collects and of fingerprints other than the embedder's.
//! - Value: `MDVE`, format 1, the dimensions (u32 little-endian), the scale (f32
//!   little-endian), then one signed byte per dimension.
//!
//! Quantisation: the embedder's vector is scaled to unit length, then each
//! component is stored as `round(x / scale)` with `scale = max|x| / 127`
//! (symmetric, per vector): a quarter of float32's bytes, and cosines within about
//! 0.01 of float32's (the benchmark prints recall against float32). A query is
//! quantised the same way and scored against each vector by an integer dot
//! product (which compilers vectorise, SIMD where the build allows) divided by
//! both vectors' quantised lengths: an exact scan, no approximate index.
//!
//! Writes never call the embedder: a search, recall or `reindex` first reads the
//! vectors of texts live in the index (which itself first catches up to the head)
//! and embeds up to [`EMBED_WORK`](crate::config::EMBED_WORK) of the texts that have none, in batches of
//! [`EMBED_BATCH`]; the rest are counted as pending. Only texts live in the tree
//! are ever candidates, and each hit is checked against the tree before it is
//! answered, so a vector left behind (another writer's, or a store's that searches
//! vectors itself) is never a stale hit.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{EMBED_BATCH, VECTOR_CANDIDATES, VECTOR_MAX_BYTES};
use crate::error::ToolError;
use crate::search::embed::{EmbedKind, Fingerprint, check_vectors, document_text};
use crate::search::error::SearchError;
use crate::storage::Engine;
use crate::storage::tree::{Child, Hash};
use crate::store::{Store, list_all};

/// The prefix of every vector's key.
pub(crate) const PREFIX: &str = "vec/";
const MAGIC: &[u8; 4] = b"MDVE";
const FORMAT: u8 = 1;
/// Bytes a held vector takes beyond its dimensions (scale, length, hash, map
/// entry), for the memory bound.
const HELD_OVERHEAD: usize = 8;

/// The key of the vector of the text `hash` by the fingerprint key `fp`.
pub(crate) fn key(hash: &Hash, fp: &str) -> String {
    alloc::format!("{PREFIX}{}/{fp}", hash.hex())
}

/// The text hash and fingerprint key a vector's key names.
pub(crate) fn parse_key(key: &str) -> Option<(Hash, &str)> {
    let rest = key.strip_prefix(PREFIX)?;
    let (hex, fp) = rest.split_once('/')?;
    if hex.len() != 64 || fp.is_empty() {
        return None;
    }
    let mut h = [0u8; 32];
    for (i, out) in h.iter_mut().enumerate() {
        let pair = hex.get(2 * i..2 * i + 2)?;
        *out = u8::from_str_radix(pair, 16).ok()?;
    }
    Some((Hash(h), fp))
}

/// A vector as kept: int8 components, their scale, and its quantised length.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Quantised {
    pub scale: f32,
    pub q: Box<[i8]>,
    /// `sqrt(sum q²)`: the integer dot product over both lengths is the cosine.
    pub norm: f32,
}

impl Quantised {
    /// `v` (finite, not all zeros) quantised (see the module doc).
    pub(crate) fn of(v: &[f32]) -> Quantised {
        let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        let q: Box<[i8]> = v
            .iter()
            .map(|x| libm::roundf(x / scale).clamp(-127.0, 127.0) as i8)
            .collect();
        Quantised::from_parts(scale, q)
    }

    fn from_parts(scale: f32, q: Box<[i8]>) -> Quantised {
        let sq: i64 = q.iter().map(|x| i64::from(*x) * i64::from(*x)).sum();
        Quantised {
            scale,
            q,
            norm: libm::sqrtf(sq as f32),
        }
    }

    /// The stored form (see the module doc).
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(13 + self.q.len());
        out.extend_from_slice(MAGIC);
        out.push(FORMAT);
        out.extend_from_slice(&(self.q.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.scale.to_le_bytes());
        out.extend(self.q.iter().map(|x| x.to_le_bytes()[0]));
        out
    }

    /// The vector in `bytes`, of `dims` dimensions; `None` if it is not one
    /// (then it is made again).
    pub(crate) fn decode(bytes: &[u8], dims: usize) -> Option<Quantised> {
        let head = bytes.get(..13)?;
        if head.get(..4)? != MAGIC || *head.get(4)? != FORMAT {
            return None;
        }
        let n = u32::from_le_bytes(head.get(5..9)?.try_into().ok()?) as usize;
        let scale = f32::from_le_bytes(head.get(9..13)?.try_into().ok()?);
        let body = bytes.get(13..)?;
        if n != dims || body.len() != dims || !scale.is_finite() || scale <= 0.0 {
            return None;
        }
        let q: Box<[i8]> = body.iter().map(|b| i8::from_le_bytes([*b])).collect();
        let v = Quantised::from_parts(scale, q);
        (v.norm > 0.0).then_some(v)
    }

    /// The cosine of this vector and `other` (same dimensions).
    pub(crate) fn cosine(&self, other: &Quantised) -> f64 {
        let dot = dot_i8(&self.q, &other.q);
        let n = f64::from(self.norm) * f64::from(other.norm);
        if n > 0.0 { dot as f64 / n } else { 0.0 }
    }
}

/// The integer dot product, in blocks of 16 with i32 lanes so the compiler
/// vectorises it (wasm simd128, SSE/NEON) where the target allows.
fn dot_i8(a: &[i8], b: &[i8]) -> i64 {
    let mut lanes = [0i32; 16];
    let mut ca = a.chunks_exact(16);
    let mut cb = b.chunks_exact(16);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for ((l, p), q) in lanes.iter_mut().zip(x).zip(y) {
            *l += i32::from(*p) * i32::from(*q);
        }
    }
    let tail: i64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(p, q)| i64::from(*p) * i64::from(*q))
        .sum();
    lanes.iter().map(|l| i64::from(*l)).sum::<i64>() + tail
}

/// The vectors between calls: the fingerprint they are of, and each live text's
/// vector (`None`: stored, but held by a store that searches them itself).
pub(crate) struct Vectors {
    pub fp: Fingerprint,
    pub key: String,
    pub held: BTreeMap<Hash, Option<Rc<Quantised>>>,
    /// The tree every live text of which has its vector held (`None`: not yet):
    /// a search at that tree again reads and embeds nothing.
    pub complete: Option<Hash>,
}

/// How far the vectors of the embedder's fingerprint are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorStatus {
    /// The fingerprint (see [`Fingerprint::text`]).
    pub fingerprint: String,
    /// Distinct live texts with a vector.
    pub indexed: u64,
    /// Distinct live texts waiting for one.
    pub pending: u64,
}

impl<S: Store> Engine<S> {
    fn take_vectors(&self, fp: &Fingerprint) -> Option<Vectors> {
        let taken = self.vector_slot().borrow_mut().take()?;
        taken
            .downcast::<Vectors>()
            .ok()
            .map(|b| *b)
            .filter(|v| v.fp == *fp)
    }

    /// Puts the vectors back in their slot for the next call.
    pub(crate) fn keep_vectors_state(&self, v: Vectors) {
        self.keep_vectors(v);
    }

    fn keep_vectors(&self, v: Vectors) {
        *self.vector_slot().borrow_mut() = Some(Box::new(v));
    }

    /// The vectors of the texts `docs` (store path and text hash, live in the
    /// tree `root`): read from the store, and up to `budget` texts that have none
    /// embedded; how many still have none. Only the embedder's fingerprint.
    pub(crate) async fn vectors_for(
        &self,
        docs: &[(Rc<str>, Hash)],
        root: Hash,
        budget: usize,
    ) -> Result<(Vectors, u64), SearchError> {
        let embedder = self.embedder().ok_or(SearchError::NoEmbedder)?.clone();
        let fp = Fingerprint::of(&*embedder).map_err(SearchError::Embed)?;
        let external = self.store().searches_vectors();
        let cached = self.take_vectors(&fp);
        if let Some(s) = cached.as_ref()
            && s.complete == Some(root)
        {
            // Nothing written since every live text's vector was read: the same
            // tree, so the same texts (and the bound was met then).
            return Ok((cached.into_iter().next().ok_or(SearchError::NoEmbedder)?, 0));
        }
        let live: BTreeMap<Hash, &Rc<str>> = docs.iter().map(|(p, h)| (*h, p)).collect();
        let need = live.len().saturating_mul(fp.dims + HELD_OVERHEAD);
        if !external && need > VECTOR_MAX_BYTES {
            return Err(SearchError::TooManyVectors {
                texts: live.len(),
                dims: fp.dims,
            });
        }
        let mut state = match cached {
            Some(s) => s,
            None => Vectors {
                key: fp.key(),
                fp: fp.clone(),
                held: BTreeMap::new(),
                complete: None,
            },
        };
        state.complete = None;
        // Texts no longer live are let go: memory holds the live tree's only.
        state.held.retain(|h, _| live.contains_key(h));
        let result = self.fill(&mut state, &live, root, budget, external).await;
        let pending = live.len().saturating_sub(state.held.len()) as u64;
        match result {
            Ok(()) => {
                if pending == 0 {
                    state.complete = Some(root);
                }
                Ok((state, pending))
            }
            Err(e) => {
                self.keep_vectors(state);
                Err(e)
            }
        }
    }

    async fn fill(
        &self,
        state: &mut Vectors,
        live: &BTreeMap<Hash, &Rc<str>>,
        root: Hash,
        budget: usize,
        external: bool,
    ) -> Result<(), SearchError> {
        let mut missing: Vec<(Hash, Rc<str>)> = Vec::new();
        for (hash, path) in live {
            if state.held.contains_key(hash) {
                continue;
            }
            if budget > 0 && missing.len() >= budget {
                // This round's texts to embed are found: reading on would cost a
                // read per text still waiting, every round (the next rounds read them).
                break;
            }
            match self
                .store()
                .get(&key(hash, &state.key))
                .await
                .map_err(ToolError::from)?
            {
                Some(bytes) => match Quantised::decode(&bytes, state.fp.dims) {
                    Some(v) => {
                        state.held.insert(*hash, (!external).then(|| Rc::new(v)));
                    }
                    // Damaged or of another build: made again and replaced.
                    None => missing.push((*hash, (*path).clone())),
                },
                None => missing.push((*hash, (*path).clone())),
            }
        }
        missing.truncate(budget);
        for batch in missing.chunks(EMBED_BATCH) {
            let mut texts: Vec<String> = Vec::with_capacity(batch.len());
            let mut hashes: Vec<Hash> = Vec::with_capacity(batch.len());
            for (hash, path) in batch {
                // The index reflects `root` for these (unless a catch-up was cut
                // short, when the file may differ: then it waits).
                let Some(child) = self.file_at_root(root, path).await? else {
                    continue;
                };
                if child.hash != *hash {
                    continue;
                }
                let text = self.blob(&child).await?;
                texts.push(document_text(&text));
                hashes.push(*hash);
            }
            if texts.is_empty() {
                continue;
            }
            let embedder = self.embedder().ok_or(SearchError::NoEmbedder)?.clone();
            let answer = embedder
                .embed(&texts, EmbedKind::Document)
                .await
                .map_err(SearchError::Embed)?;
            let vectors =
                check_vectors(answer, texts.len(), state.fp.dims).map_err(SearchError::Embed)?;
            for (hash, v) in hashes.iter().zip(vectors) {
                let q = Quantised::of(&v);
                self.store()
                    .set(&key(hash, &state.key), &q.encode())
                    .await
                    .map_err(ToolError::from)?;
                state.held.insert(*hash, (!external).then(|| Rc::new(q)));
            }
        }
        Ok(())
    }

    /// The file at `path` in the tree `root` (for the vectors' texts).
    async fn file_at_root(&self, root: Hash, path: &str) -> Result<Option<Child>, ToolError> {
        self.file_at(root, path).await
    }

    /// The cosines of `texts[0]` with each other text, all embedded as documents
    /// in one call (at most [`EMBED_BATCH`] texts; the rest are not compared), in
    /// float32: seed 002's near-duplicate test.
    pub(crate) async fn document_cosines(&self, texts: &[String]) -> Result<Vec<f64>, SearchError> {
        let embedder = self.embedder().ok_or(SearchError::NoEmbedder)?.clone();
        let dims = Fingerprint::of(&*embedder)
            .map_err(SearchError::Embed)?
            .dims;
        let texts: Vec<String> = texts
            .iter()
            .take(EMBED_BATCH)
            .map(|t| document_text(t))
            .collect();
        let answer = embedder
            .embed(&texts, EmbedKind::Document)
            .await
            .map_err(SearchError::Embed)?;
        let v = check_vectors(answer, texts.len(), dims).map_err(SearchError::Embed)?;
        let Some((first, rest)) = v.split_first() else {
            return Ok(Vec::new());
        };
        Ok(rest
            .iter()
            .map(|o| {
                first
                    .iter()
                    .zip(o)
                    .map(|(a, b)| f64::from(*a) * f64::from(*b))
                    .sum()
            })
            .collect())
    }

    /// The query `query` embedded and quantised.
    pub(crate) async fn query_vector(&self, query: &str) -> Result<Quantised, SearchError> {
        let embedder = self.embedder().ok_or(SearchError::NoEmbedder)?.clone();
        let dims = Fingerprint::of(&*embedder)
            .map_err(SearchError::Embed)?
            .dims;
        let texts = alloc::vec![String::from(query)];
        let answer = embedder
            .embed(&texts, EmbedKind::Query)
            .await
            .map_err(SearchError::Embed)?;
        let mut v = check_vectors(answer, 1, dims).map_err(SearchError::Embed)?;
        let v = v
            .pop()
            .ok_or(SearchError::Embed(crate::search::EmbedError::Count {
                asked: 1,
                got: 0,
            }))?;
        Ok(Quantised::of(&v))
    }

    /// Each of `docs` (live texts under the searched directory) with its cosine
    /// to `query`, best first (equal scores by path): by the store when it
    /// searches vectors itself, else by the exact scan.
    pub(crate) async fn semantic_list(
        &self,
        state: &Vectors,
        query: &Quantised,
        docs: &[(Rc<str>, Hash)],
    ) -> Result<Vec<(f64, Rc<str>, Hash)>, SearchError> {
        let mut out: Vec<(f64, Rc<str>, Hash)> = Vec::new();
        if self.store().searches_vectors() {
            let unit: Vec<f32> = query
                .q
                .iter()
                .map(|x| f32::from(*x) / query.norm.max(f32::MIN_POSITIVE))
                .collect();
            let found = self
                .store()
                .nearest(&state.key, &unit, VECTOR_CANDIDATES)
                .await
                .map_err(ToolError::from)?;
            if let Some(found) = found {
                let scores: BTreeMap<Hash, f64> = found
                    .into_iter()
                    .filter(|(_, s)| s.is_finite())
                    .map(|(h, s)| (Hash(h), f64::from(s)))
                    .collect();
                for (path, hash) in docs {
                    if let Some(s) = scores.get(hash) {
                        out.push((*s, path.clone(), *hash));
                    }
                }
            }
        } else {
            for (path, hash) in docs {
                if let Some(Some(v)) = state.held.get(hash) {
                    out.push((v.cosine(query), path.clone(), *hash));
                }
            }
        }
        let order = |a: &(f64, Rc<str>, Hash), b: &(f64, Rc<str>, Hash)| {
            crate::search::rank_order((a.0, &a.1), (b.0, &b.1))
        };
        // The best VECTOR_CANDIDATES only, found without sorting every text.
        if out.len() > VECTOR_CANDIDATES {
            out.select_nth_unstable_by(VECTOR_CANDIDATES, order);
            out.truncate(VECTOR_CANDIDATES);
        }
        out.sort_by(order);
        Ok(out)
    }

    /// Deletes every vector of the text `hash`, whatever its fingerprint (a
    /// redaction's erase), and forgets it in memory.
    pub(crate) async fn erase_vectors(&self, hash: &Hash) -> Result<(), ToolError> {
        let prefix = alloc::format!("{PREFIX}{}/", hash.hex());
        for k in list_all(self.store(), &prefix).await? {
            self.store().delete(&k).await?;
        }
        if let Some(any) = self.vector_slot().borrow_mut().as_mut()
            && let Some(v) = any.downcast_mut::<Vectors>()
        {
            v.held.remove(hash);
        }
        Ok(())
    }

    /// Whether gc collects the vector at `key_`: one of a text it collects (`held`
    /// answers false for its hash), one whose key is not a vector's, and, with an embedder, of every other fingerprint. Without one a
    /// fingerprint is never judged stale (a CLI without `--embedder` keeps them).
    pub(crate) fn stale_vector(&self, key_: &str, held: impl Fn(&Hash) -> bool) -> bool {
        let Some((hash, fp)) = parse_key(key_) else {
            return true;
        };
        if !held(&hash) {
            return true;
        }
        match self.embedder().map(|e| Fingerprint::of(&**e)) {
            Some(Ok(current)) => current.key() != fp,
            _ => false,
        }
    }
}
