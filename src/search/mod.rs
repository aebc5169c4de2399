//! Finding memories: a ranked, multilingual index kept in the store beside the
//! tree, and searches over it.
//!
//! - `tokens`: what a text's terms are (NFKC, case folding, Unicode words, CJK
//!   pairs, path segments): the one tokenizer of the index and every query;
//! - `index`: the index in memory and BM25 ranking, the rules of the score;
//! - `stored`: the index's stored form (a table and a chunk per bucket);
//! - `catch_up`: bringing the stored index up to the head's tree, by the files
//!   that differ since the root it reflects;
//! - `lines`: which lines of a hit are shown, and `memory.recall`'s block;
//! - `error`: every refusal's text;
//! - `embed`: the embedder contract an application supplies, and the fingerprint
//!   every vector is tagged with;
//! - `vectors`: vectors as derived data (stored by fingerprint and text hash,
//!   int8), made lazily by searches and `reindex`, and the exact scan;
//! - `hybrid`: the ranking modes and reciprocal-rank fusion.
//!
//! The index is derived data: every search first brings it up to the head (so a
//! deleted, renamed-away or redacted text is never a hit), and checks each hit
//! against the tree before it answers. A write pays nothing for it. The index
//! between calls is kept in the engine (storage keeps the slot), so a search reads
//! the store's head and, if another writer moved it, what changed since.

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{EMBED_WORK, SEARCH_INDEX_WORK, SEARCH_LINES_PER_HIT};
use crate::error::ToolError;
use crate::storage::Engine;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, Hash, Kind};
use crate::store::Store;

mod catch_up;
mod embed;
pub(crate) mod error;
mod hybrid;
mod index;
mod lines;
mod request;
mod stored;
#[cfg(feature = "conformance")]
mod test_embedder;
mod tokens;
mod vectors;

use error::SearchError;
pub(crate) use index::query_terms;
pub use index::rank_order;
pub(crate) use lines::{Matched, best_lines, first_lines};
pub use lines::{Recalled, recall_block, score_text};
pub(crate) use request::whole;
pub use request::{RecallFound, RecallItem, Request, hits_json};
pub(crate) use stored::CHUNK as INDEX_CHUNK_PREFIX;
pub use tokens::{path_terms, terms};

use catch_up::State;
pub(crate) use embed::document_text;
pub use embed::{EmbedError, EmbedFuture, EmbedKind, Embedder, Fingerprint, TEXT_TEMPLATE};
pub use hybrid::Mode;
use hybrid::{Listed, fuse};
pub(crate) use hybrid::{mode_options, mode_texts};
#[cfg(feature = "conformance")]
pub use test_embedder::{CONCEPTS, TestEmbedder, test_vector};
pub(crate) use vectors::PREFIX as VECTOR_PREFIX;
pub use vectors::VectorStatus;

/// How many times a search starts over when another process replaced the stored
/// index while it was saving its own.
const SAVE_ATTEMPTS: usize = 4;

/// One memory a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// Its store path (`/notes/a.md`; the memory tool's faces show `/memories/…`).
    pub path: String,
    /// Its BM25 score (see `index.rs`): higher is better.
    pub score: f64,
    /// Its memory id's number (0: a file written before memdir kept versions).
    pub memory: u64,
    /// The best matching lines, in line order.
    pub lines: Vec<Line>,
}

/// A line of a hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Its number, from 1.
    pub line: usize,
    /// Its text, cut at [`MAX_LINE_CHARS`](crate::config::MAX_LINE_CHARS) characters.
    pub text: String,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// Best first; equal scores by path.
    pub hits: Vec<Hit>,
    /// Memories written since the index last caught up that this call had no
    /// budget left to read ([`SEARCH_INDEX_WORK`] a call): true if some wait, in
    /// which case the next search resumes where this one stopped.
    pub pending: bool,
}

/// How far the stored index is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexStatus {
    /// Memories indexed.
    pub indexed: u64,
    /// Whether the index is behind the head (writes since it last caught up).
    pub pending: bool,
}

/// A ranked memory, before it is checked against the tree.
pub(crate) struct Ranked {
    pub score: f64,
    pub path: Rc<str>,
    pub hash: Hash,
}

/// A search's ranking: every match, best first.
pub(crate) struct Ranking {
    pub hits: Vec<Ranked>,
    /// The tree the index reflected (all of it unless `pending`).
    pub root: Hash,
    pub pending: bool,
    pub matched: Matched,
}

impl<S: Store> Engine<S> {
    /// The index kept between calls, taken out of its slot (the caller puts it
    /// back): a second search running meanwhile loads its own.
    fn take_index(&self) -> Option<State> {
        let mut slot = self.search_slot().borrow_mut();
        let taken = slot.take()?;
        taken.downcast::<State>().ok().map(|b| *b)
    }

    /// The index kept between calls, or the stored one read.
    async fn index_state(&self) -> Result<State, ToolError> {
        match self.take_index() {
            Some(s) => Ok(s),
            None => self.load_index().await,
        }
    }

    fn keep_index(&self, state: State) {
        *self.search_slot().borrow_mut() = Some(Box::new(state));
    }

    /// The index brought up to the head (within this call's budget), and saved.
    async fn current_index(&self, fold: bool) -> Result<(State, Hash), ToolError> {
        let mut attempts = 0;
        loop {
            let head = self.read_head().await?;
            let mut state = self.index_state().await?;
            state.fold |= fold;
            if !state.behind(head.root) && !state.fold {
                return Ok((state, head.root));
            }
            let mut budget = SEARCH_INDEX_WORK;
            match self.catch_up(&mut state, head.root, &mut budget).await {
                // The tree the index reflects is gone (gc collected it, or a
                // redaction erased its leaves): rebuilt from the empty tree.
                Err(ToolError::Damaged) if state.manifest.root != self.empty_root() => {
                    state.restart(self.empty_root());
                    budget = SEARCH_INDEX_WORK;
                    self.catch_up(&mut state, head.root, &mut budget).await?;
                }
                other => other?,
            }
            if self.config().read_only || self.save_index(&mut state).await? {
                return Ok((state, head.root));
            }
            attempts += 1;
            if attempts >= SAVE_ATTEMPTS {
                // Others keep replacing it: answer from ours, which is as current.
                state.raw = None;
                return Ok((state, head.root));
            }
        }
    }

    /// Every memory matching `terms` (a query's) under the store directory
    /// `under` (`/notes`; `None`: all), ranked; the tree they were ranked in, and
    /// the indexed terms the query matched. Take each with [`Engine::live`].
    pub(crate) async fn ranked(
        &self,
        terms: &[String],
        under: Option<&str>,
    ) -> Result<Ranking, ToolError> {
        let (state, root) = self.current_index(false).await?;
        let pending = state.behind(root);
        let prefix = under.map(|u| alloc::format!("{u}/"));
        let hits = state
            .index
            .rank(terms, prefix.as_deref())
            .into_iter()
            .filter_map(|(score, id)| {
                let doc = state.index.doc(id)?;
                Some(Ranked {
                    score,
                    path: doc.path.clone(),
                    hash: doc.hash,
                })
            })
            .collect();
        let matched = state.index.matched_terms(terms);
        self.keep_index(state);
        Ok(Ranking {
            hits,
            root,
            pending,
            matched,
        })
    }

    /// The tree's entry for a ranked memory: `None` if the tree no longer holds
    /// the text that was indexed there (only a catch-up cut short leaves such).
    pub(crate) async fn live(
        &self,
        ranking: &Ranking,
        r: &Ranked,
    ) -> Result<Option<Child>, ToolError> {
        Ok(self
            .file_at(ranking.root, &r.path)
            .await?
            .filter(|c| c.hash == r.hash))
    }

    /// The file at store path `path` in the tree `root`.
    async fn file_at(&self, root: Hash, path: &str) -> Result<Option<Child>, ToolError> {
        let none = Overlay::default();
        let mut dir = root;
        let mut names = path.split('/').filter(|s| !s.is_empty()).peekable();
        while let Some(name) = names.next() {
            let Some(child) = self.dir_get(&none, dir, name).await? else {
                return Ok(None);
            };
            match (child.kind, names.peek()) {
                (Kind::File, None) => return Ok(Some(child)),
                (Kind::Dir, Some(_)) => dir = child.hash,
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The best `limit` memories for `query` under the store directory `under`
    /// (`/notes`; `None`: all), each with its best matching lines.
    pub async fn search(
        &self,
        query: &str,
        limit: usize,
        under: Option<&str>,
    ) -> Result<Found, SearchError> {
        let (best, pending) = self.best(query, limit, under).await?;
        Ok(Found {
            hits: best.into_iter().map(|(hit, _)| hit).collect(),
            pending,
        })
    }

    /// [`Engine::search`]'s hits, each with its whole text (for `memory.recall`
    /// and the faces that merge several stores' hits), in the default mode.
    pub(crate) async fn best(
        &self,
        query: &str,
        limit: usize,
        under: Option<&str>,
    ) -> Result<(Vec<(Hit, Rc<str>)>, bool), SearchError> {
        self.best_by(query, limit, under, None, None).await
    }

    /// The mode a search without one runs in: hybrid with an embedder, lexical
    /// without.
    pub fn default_mode(&self) -> Mode {
        if self.embedder().is_some() {
            Mode::Hybrid
        } else {
            Mode::Lexical
        }
    }

    /// [`Engine::best`] in `mode` (`None`: [`Engine::default_mode`]), keeping
    /// semantic candidates of at least `min_score` (a cosine) when given.
    pub(crate) async fn best_by(
        &self,
        query: &str,
        limit: usize,
        under: Option<&str>,
        mode: Option<Mode>,
        min_score: Option<f64>,
    ) -> Result<(Vec<(Hit, Rc<str>)>, bool), SearchError> {
        let terms = error::check_query(query)?;
        let (ranking, mode) = self
            .ranked_for(query, &terms, under, mode, min_score)
            .await?;
        let mut hits = Vec::new();
        for r in &ranking.hits {
            if hits.len() >= limit {
                break;
            }
            let Some(child) = self.live(&ranking, r).await? else {
                continue;
            };
            let text = self.blob(&child).await?;
            let mut lines = best_lines(query, &ranking.matched, &text, SEARCH_LINES_PER_HIT);
            if lines.is_empty() && mode != Mode::Lexical {
                // Found by meaning, not words: its first lines show what it is.
                lines = lines::first_lines(&text, SEARCH_LINES_PER_HIT);
            }
            let hit = Hit {
                path: String::from(&*r.path),
                score: r.score,
                memory: child.mem,
                lines,
            };
            hits.push((hit, text));
        }
        Ok((hits, ranking.pending))
    }

    /// The ranking of `query` (its `terms`) under `under` in `mode` (`None`:
    /// [`Engine::default_mode`]), semantic candidates of at least `min_score` when
    /// given, and the mode it ran in; refused as every face refuses it: a
    /// semantic or hybrid mode without an embedder, `min_score` on a lexical one.
    pub(crate) async fn ranked_for(
        &self,
        query: &str,
        terms: &[String],
        under: Option<&str>,
        mode: Option<Mode>,
        min_score: Option<f64>,
    ) -> Result<(Ranking, Mode), SearchError> {
        let mode = mode.unwrap_or(self.default_mode());
        if mode != Mode::Lexical && self.embedder().is_none() {
            return Err(SearchError::NoEmbedder);
        }
        if mode == Mode::Lexical && min_score.is_some() {
            return Err(SearchError::MinScoreLexical);
        }
        let ranking = if mode == Mode::Lexical {
            self.ranked(terms, under).await?
        } else {
            self.ranked_by_meaning(query, terms, under, mode, min_score)
                .await?
        };
        Ok((ranking, mode))
    }

    /// The ranking of `query` (its `terms`) under `under` in `mode` (`None`:
    /// [`Engine::default_mode`]), for faces that take each hit themselves (seed
    /// 002's `memory_retrieve`).
    pub(crate) async fn ranked_in(
        &self,
        query: &str,
        terms: &[String],
        under: Option<&str>,
        mode: Option<Mode>,
    ) -> Result<Ranking, SearchError> {
        match mode.unwrap_or(self.default_mode()) {
            Mode::Lexical => Ok(self.ranked(terms, under).await?),
            _ if self.embedder().is_none() => Err(SearchError::NoEmbedder),
            m => self.ranked_by_meaning(query, terms, under, m, None).await,
        }
    }

    /// The semantic or hybrid ranking of `query` under `under`: the index and the
    /// vectors brought up to the head (within this call's budgets), the live
    /// texts scored by cosine, and, for hybrid, fused with the lexical list.
    pub(crate) async fn ranked_by_meaning(
        &self,
        query: &str,
        terms: &[String],
        under: Option<&str>,
        mode: Mode,
        min_score: Option<f64>,
    ) -> Result<Ranking, SearchError> {
        let (state, root) = self.current_index(false).await?;
        let mut pending = state.behind(root);
        let prefix = under.map(|u| alloc::format!("{u}/"));
        let all: Vec<(Rc<str>, Hash)> = state
            .index
            .docs()
            .map(|d| (d.path.clone(), d.hash))
            .collect();
        let lexical: Vec<Listed> = state
            .index
            .rank(terms, prefix.as_deref())
            .into_iter()
            .filter_map(|(score, id)| {
                let doc = state.index.doc(id)?;
                Some((score, doc.path.clone(), doc.hash))
            })
            .collect();
        let matched = state.index.matched_terms(terms);
        self.keep_index(state);
        let (vectors, waiting) = self.vectors_for(&all, root, EMBED_WORK).await?;
        pending |= waiting > 0;
        let scoped: Vec<(Rc<str>, Hash)> = all
            .into_iter()
            .filter(|(p, _)| prefix.as_deref().is_none_or(|pre| p.starts_with(pre)))
            .collect();
        let answer = match self.query_vector(query).await {
            Ok(q) => self.semantic_list(&vectors, &q, &scoped).await,
            Err(e) => Err(e),
        };
        self.keep_vectors_state(vectors);
        let mut semantic = answer?;
        if let Some(min) = min_score {
            semantic.retain(|(s, _, _)| *s >= min);
        }
        let list = match mode {
            Mode::Hybrid => fuse(&[&lexical, &semantic]),
            _ => semantic,
        };
        let hits = list
            .into_iter()
            .map(|(score, path, hash)| Ranked { score, path, hash })
            .collect();
        Ok(Ranking {
            hits,
            root,
            pending,
            matched,
        })
    }

    /// Brings the vectors of the embedder's fingerprint up to the live tree,
    /// [`EMBED_WORK`] texts a round, `rounds` rounds at most (the index caught up
    /// first); how far they are. `None` without an embedder.
    pub async fn reindex_vectors(&self, rounds: u32) -> Result<Option<VectorStatus>, SearchError> {
        if self.embedder().is_none() {
            return Ok(None);
        }
        let mut status = None;
        for _ in 0..rounds.max(1) {
            let s = self.vector_round(EMBED_WORK).await?;
            let done = s.pending == 0;
            status = Some(s);
            if done {
                break;
            }
        }
        Ok(status)
    }

    /// How far the vectors are, embedding nothing (`None` without an embedder).
    pub async fn vector_status(&self) -> Result<Option<VectorStatus>, SearchError> {
        if self.embedder().is_none() {
            return Ok(None);
        }
        self.vector_round(0).await.map(Some)
    }

    async fn vector_round(&self, budget: usize) -> Result<VectorStatus, SearchError> {
        let (state, root) = self.current_index(false).await?;
        let all: Vec<(Rc<str>, Hash)> = state
            .index
            .docs()
            .map(|d| (d.path.clone(), d.hash))
            .collect();
        self.keep_index(state);
        let (vectors, pending) = self.vectors_for(&all, root, budget).await?;
        let status = VectorStatus {
            fingerprint: vectors.fp.text(),
            indexed: vectors.held.len() as u64,
            pending,
        };
        self.keep_vectors_state(vectors);
        Ok(status)
    }

    /// Brings the stored index up to the head (one budget's worth) and folds it
    /// into its base: after a redaction, so no stored value keeps the erased
    /// text's terms.
    pub(crate) async fn refresh_index(&self) -> Result<(), ToolError> {
        let (state, _) = self.current_index(true).await?;
        self.keep_index(state);
        Ok(())
    }

    /// Folds a stored index into its base (brought up to the head first), so no
    /// stored value keeps a deleted or replaced text's terms; a store never
    /// searched has no index and gets none. gc's first step.
    pub(crate) async fn fold_index(&self) -> Result<(), ToolError> {
        if self.config().read_only || self.store().get(stored::MANIFEST).await?.is_none() {
            return Ok(());
        }
        self.refresh_index().await
    }

    /// Brings the stored index up to the head, a budget of
    /// [`SEARCH_INDEX_WORK`] memories at a time, `rounds` times at most; how far
    /// it is.
    pub async fn reindex(&self, rounds: u32) -> Result<IndexStatus, ToolError> {
        let mut status = self.search_status().await?;
        for _ in 0..rounds {
            if !status.pending {
                break;
            }
            let (state, root) = self.current_index(false).await?;
            status = IndexStatus {
                indexed: state.index.len() as u64,
                pending: state.behind(root),
            };
            self.keep_index(state);
        }
        Ok(status)
    }

    /// How far the stored index is, without bringing it up to date.
    pub async fn search_status(&self) -> Result<IndexStatus, ToolError> {
        let head = self.read_head().await?;
        let state = self.index_state().await?;
        let status = IndexStatus {
            indexed: state.index.len() as u64,
            pending: state.behind(head.root),
        };
        self.keep_index(state);
        Ok(status)
    }
}
