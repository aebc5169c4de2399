//! The index in memory: every live memory's terms (its text's and, weighted, its
//! path's), the postings of every term, and BM25 ranking over them.
//!
//! Ranking is BM25 with two fields (BM25F): a memory's frequency of a term is its
//! count in the text plus [`SEARCH_PATH_WEIGHT`] times its count in the path, and
//! its length is the sum of those frequencies. A term `t` with document frequency
//! `df` among `n` memories weighs `idf = ln(1 + (n - df + 0.5) / (df + 0.5))`
//! (Lucene's, never negative), and a memory of length `dl` scores for it
//! `idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))` with
//! [`SEARCH_BM25_K1`] and [`SEARCH_BM25_B`].
//!
//! A query term counts once however often the query repeats it. It matches the
//! indexed term equal to it, and, when it has at least [`SEARCH_PART_MIN_CHARS`]
//! characters or is one CJK character, up to [`SEARCH_MAX_PARTS`] indexed terms
//! that begin with it and as many that end with it, each at
//! [`SEARCH_PART_WEIGHT`] times its own BM25 score; a memory scores for the query
//! term the best of these. Its score is the sum over the query's terms. Equal
//! scores are ordered by path, so every answer is deterministic.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{
    SEARCH_BM25_B, SEARCH_BM25_K1, SEARCH_MAX_DOC_TERMS, SEARCH_MAX_PARTS, SEARCH_MAX_POSTINGS,
    SEARCH_MAX_QUERY_TERMS, SEARCH_PART_MIN_CHARS, SEARCH_PART_WEIGHT, SEARCH_PATH_WEIGHT,
};
use crate::search::tokens::{each_path_term, each_term, is_cjk};
use crate::storage::tree::Hash;

pub(crate) type DocId = u32;
type TermId = u32;

/// Scores by memory during one query: ids are the index's own, never input.
type Scores = hashbrown::HashMap<DocId, f64, foldhash::fast::FixedState>;

/// One indexed memory.
pub(crate) struct Doc {
    pub path: Rc<str>,
    /// Its content's hash when indexed: the tree's entry must still name it.
    pub hash: Hash,
    /// Its weighted length: the sum of `terms`' frequencies.
    pub len: u64,
    /// Its distinct terms with their weighted frequencies.
    pub terms: Box<[(TermId, u32)]>,
}

/// A memory's weighted term frequencies, before they are given term ids.
pub(crate) type Counted = BTreeMap<String, u32>;

/// The terms of the memory at store path `path` with text `text`, counted: the
/// text's once each, the path's [`SEARCH_PATH_WEIGHT`] times, at most
/// [`SEARCH_MAX_DOC_TERMS`] distinct (the first met).
pub(crate) fn count_terms(path: &str, text: &str) -> Counted {
    let mut counts = Counted::new();
    let mut add = |t: &str, w: u32| {
        if let Some(n) = counts.get_mut(t) {
            *n = n.saturating_add(w);
        } else if counts.len() < SEARCH_MAX_DOC_TERMS {
            counts.insert(String::from(t), w);
        }
    };
    each_path_term(path, &mut |t| add(t, SEARCH_PATH_WEIGHT));
    each_term(text, &mut |t| add(t, 1));
    counts
}

/// BM25's weight of a term held by `df` of `n` memories.
pub(crate) fn idf(n: f64, df: f64) -> f64 {
    libm::log(1.0 + (n - df + 0.5) / (df + 0.5))
}

/// BM25's score for a term of weight `idf` met `tf` times in a memory of length
/// `dl`, where memories average `avgdl`.
pub(crate) fn bm25(idf: f64, tf: f64, dl: f64, avgdl: f64) -> f64 {
    let norm = SEARCH_BM25_K1 * (1.0 - SEARCH_BM25_B + SEARCH_BM25_B * dl / avgdl);
    idf * tf * (SEARCH_BM25_K1 + 1.0) / (tf + norm)
}

/// The order of every ranked answer, whichever face merges it: best score
/// first, equal scores by path.
pub fn rank_order(a: (f64, &str), b: (f64, &str)) -> core::cmp::Ordering {
    b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1))
}

/// A query, tokenized once: its distinct terms in order, at most
/// [`SEARCH_MAX_QUERY_TERMS`].
pub(crate) fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    each_term(query, &mut |t| {
        if out.len() < SEARCH_MAX_QUERY_TERMS && !out.iter().any(|o| o == t) {
            out.push(String::from(t));
        }
    });
    out
}

/// Whether a query term also matches indexed terms it begins or ends.
fn matches_parts(term: &str) -> bool {
    let mut chars = term.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => is_cjk(c),
        _ => term.chars().count() >= SEARCH_PART_MIN_CHARS,
    }
}

/// The inverted index of a store's live memories.
#[derive(Default)]
pub(crate) struct Index {
    /// Every term held by a live memory, in order (prefix matches are a range).
    ids: BTreeMap<Rc<str>, TermId>,
    /// Every such term reversed, for the terms a query term ends.
    reversed: BTreeMap<String, TermId>,
    names: Vec<Option<Rc<str>>>,
    free_terms: Vec<TermId>,
    postings: Vec<Vec<(DocId, u32)>>,
    docs: Vec<Option<Doc>>,
    free_docs: Vec<DocId>,
    /// Every live memory by path, in order (a path prefix is a range).
    paths: BTreeMap<Rc<str>, DocId>,
    total_len: u64,
}

/// A term a query term matches, with its weight.
struct Candidate {
    of: usize,
    term: TermId,
    weight: f64,
}

impl Index {
    /// Memories indexed.
    pub(crate) fn len(&self) -> usize {
        self.paths.len()
    }

    /// The memory indexed at `path`.
    pub(crate) fn doc_at(&self, path: &str) -> Option<&Doc> {
        let id = *self.paths.get(path)?;
        self.doc(id)
    }

    pub(crate) fn doc(&self, id: DocId) -> Option<&Doc> {
        self.docs.get(id as usize)?.as_ref()
    }

    /// Every indexed memory, by path.
    pub(crate) fn docs(&self) -> impl Iterator<Item = &Doc> {
        self.paths.values().filter_map(|id| self.doc(*id))
    }

    pub(crate) fn term_name(&self, id: TermId) -> Option<&Rc<str>> {
        self.names.get(id as usize)?.as_ref()
    }

    fn term_id(&mut self, term: &str) -> TermId {
        if let Some(id) = self.ids.get(term) {
            return *id;
        }
        let name: Rc<str> = Rc::from(term);
        let id = match self.free_terms.pop() {
            Some(id) => {
                if let Some(slot) = self.names.get_mut(id as usize) {
                    *slot = Some(name.clone());
                }
                id
            }
            None => {
                self.names.push(Some(name.clone()));
                self.postings.push(Vec::new());
                (self.names.len() - 1) as TermId
            }
        };
        self.ids.insert(name, id);
        self.reversed.insert(term.chars().rev().collect(), id);
        id
    }

    /// Indexes the memory at `path` (replacing what was indexed there).
    pub(crate) fn insert(&mut self, path: Rc<str>, hash: Hash, counts: &Counted) {
        self.remove(&path);
        let mut terms = Vec::with_capacity(counts.len());
        let mut len = 0u64;
        for (term, tf) in counts {
            terms.push((self.term_id(term), *tf));
            len += u64::from(*tf);
        }
        let id = match self.free_docs.pop() {
            Some(id) => id,
            None => {
                self.docs.push(None);
                (self.docs.len() - 1) as DocId
            }
        };
        for (term, tf) in &terms {
            if let Some(list) = self.postings.get_mut(*term as usize) {
                list.push((id, *tf));
            }
        }
        self.total_len += len;
        self.paths.insert(path.clone(), id);
        if let Some(slot) = self.docs.get_mut(id as usize) {
            *slot = Some(Doc {
                path,
                hash,
                len,
                terms: terms.into_boxed_slice(),
            });
        }
    }

    /// Forgets the memory at `path`; whether there was one. A term no memory holds
    /// any more leaves the dictionary.
    pub(crate) fn remove(&mut self, path: &str) -> bool {
        let Some(id) = self.paths.remove(path) else {
            return false;
        };
        let Some(doc) = self.docs.get_mut(id as usize).and_then(Option::take) else {
            return false;
        };
        self.total_len = self.total_len.saturating_sub(doc.len);
        for (term, _) in doc.terms.iter() {
            let Some(list) = self.postings.get_mut(*term as usize) else {
                continue;
            };
            if let Some(at) = list.iter().position(|(d, _)| *d == id) {
                list.swap_remove(at);
            }
            if list.is_empty()
                && let Some(name) = self.names.get_mut(*term as usize).and_then(Option::take)
            {
                self.ids.remove(&*name);
                self.reversed
                    .remove(&name.chars().rev().collect::<String>());
                self.free_terms.push(*term);
            }
        }
        self.free_docs.push(id);
        true
    }

    /// The terms a query term matches, with their weights (see the module's rule).
    fn candidates(&self, of: usize, term: &str, out: &mut Vec<Candidate>) {
        let start = out.len();
        if let Some(id) = self.ids.get(term) {
            out.push(Candidate {
                of,
                term: *id,
                weight: 1.0,
            });
        }
        if !matches_parts(term) {
            return;
        }
        let add = |id: TermId, out: &mut Vec<Candidate>| {
            let seen = out
                .get(start..)
                .is_some_and(|c| c.iter().any(|c| c.term == id));
            if !seen {
                out.push(Candidate {
                    of,
                    term: id,
                    weight: SEARCH_PART_WEIGHT,
                });
            }
        };
        for (name, id) in self
            .ids
            .range::<str, _>((
                core::ops::Bound::Excluded(term),
                core::ops::Bound::Unbounded,
            ))
            .take_while(|(name, _)| name.starts_with(term))
            .take(SEARCH_MAX_PARTS)
        {
            let _ = name;
            add(*id, out);
        }
        let rev: String = term.chars().rev().collect();
        for (_, id) in self
            .reversed
            .range::<str, _>((
                core::ops::Bound::Excluded(rev.as_str()),
                core::ops::Bound::Unbounded,
            ))
            .take_while(|(name, _)| name.starts_with(rev.as_str()))
            .take(SEARCH_MAX_PARTS)
        {
            add(*id, out);
        }
    }

    /// The memories matching `terms` (a query's, see [`query_terms`]) under the
    /// store path prefix `under` (`/notes/`; `None`: everywhere), best first, ties
    /// by path; every one, unsorted past the caller's need (the caller pages).
    pub(crate) fn rank(&self, terms: &[String], under: Option<&str>) -> Vec<(f64, DocId)> {
        let n = self.paths.len();
        if n == 0 || terms.is_empty() {
            return Vec::new();
        }
        let avgdl = (self.total_len as f64 / n as f64).max(1.0);
        let mut cands = Vec::new();
        for (of, term) in terms.iter().enumerate() {
            self.candidates(of, term, &mut cands);
        }
        // Rarest first, so the postings bound leaves out the commonest terms.
        let df = |c: &Candidate| self.postings.get(c.term as usize).map_or(0, Vec::len);
        cands.sort_by(|a, b| {
            df(a)
                .cmp(&df(b))
                .then(a.of.cmp(&b.of))
                .then(a.term.cmp(&b.term))
        });
        let mut best: Vec<Scores> = (0..terms.len()).map(|_| Scores::default()).collect();
        let mut read = 0usize;
        for c in &cands {
            let Some(list) = self.postings.get(c.term as usize) else {
                continue;
            };
            if read + list.len() > SEARCH_MAX_POSTINGS {
                break;
            }
            read += list.len();
            let w = c.weight * idf(n as f64, list.len() as f64);
            let Some(scores) = best.get_mut(c.of) else {
                continue;
            };
            for (doc, tf) in list {
                let Some(d) = self.doc(*doc) else { continue };
                if under.is_some_and(|u| !d.path.starts_with(u)) {
                    continue;
                }
                let s = bm25(w, f64::from(*tf), d.len as f64, avgdl);
                let e = scores.entry(*doc).or_insert(0.0);
                if s > *e {
                    *e = s;
                }
            }
        }
        let mut total = Scores::default();
        for scores in best {
            for (doc, s) in scores {
                *total.entry(doc).or_insert(0.0) += s;
            }
        }
        let mut out: Vec<(f64, DocId)> = total.into_iter().map(|(d, s)| (s, d)).collect();
        let path = |id: DocId| self.doc(id).map_or("", |d| &*d.path);
        out.sort_by(|a, b| rank_order((a.0, path(a.1)), (b.0, path(b.1))));
        out
    }

    /// Every indexed term a query term matches (for marking the matching lines).
    pub(crate) fn matched_terms(&self, terms: &[String]) -> BTreeMap<Rc<str>, f64> {
        let mut cands = Vec::new();
        for (of, term) in terms.iter().enumerate() {
            self.candidates(of, term, &mut cands);
        }
        let mut out = BTreeMap::new();
        for c in cands {
            if let Some(name) = self.term_name(c.term) {
                let w = out.entry(name.clone()).or_insert(0.0);
                if c.weight > *w {
                    *w = c.weight;
                }
            }
        }
        out
    }
}
