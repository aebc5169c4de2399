//! Ranking modes: lexical (BM25 over the index), semantic (cosine over the
//! embedder's vectors) and hybrid (both lists fused by reciprocal rank).
//!
//! Hybrid scores each memory by the sum over the two lists of
//! `1 / (k + rank)` ([`SEARCH_RRF_K`], ranks from 1), so a memory found by its
//! words only keeps its place among those found by meaning only: nothing either
//! list found is dropped, and no similarity cutoff applies unless the caller
//! asks for one (`min_score`, a cosine, which means something different for every
//! model and is therefore never a default).

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::vec::Vec;

use serde_json::Value;

use crate::config::SEARCH_RRF_K;
use crate::search::error::SearchError;
use crate::storage::tree::Hash;

/// How a search ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Words: BM25 over the index (the default without an embedder).
    Lexical,
    /// Meaning: the embedder's cosine over every live text.
    Semantic,
    /// Both, fused by reciprocal rank (the default with an embedder).
    Hybrid,
}

impl Mode {
    /// `"lexical"`, `"semantic"` or `"hybrid"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Lexical => "lexical",
            Mode::Semantic => "semantic",
            Mode::Hybrid => "hybrid",
        }
    }

    /// The mode named `s`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "lexical" => Some(Mode::Lexical),
            "semantic" => Some(Mode::Semantic),
            "hybrid" => Some(Mode::Hybrid),
            _ => None,
        }
    }
}

/// The options `mode` and `min_score` of `v`: `None` where absent.
pub(crate) fn mode_options(v: &Value) -> Result<(Option<Mode>, Option<f64>), SearchError> {
    let mode = match v.get("mode") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Mode::parse(s).ok_or(SearchError::Mode)?),
        Some(_) => return Err(SearchError::Mode),
    };
    let min_score = match v.get("min_score") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if (-1.0..=1.0).contains(&x) => Some(x),
            _ => return Err(SearchError::MinScore),
        },
        Some(_) => return Err(SearchError::MinScore),
    };
    Ok((mode, min_score))
}

/// The options `mode` and `min_score` as text (a query string's): `None` where
/// absent, refused in the same words as [`mode_options`].
pub(crate) fn mode_texts(
    mode: Option<&str>,
    min_score: Option<&str>,
) -> Result<(Option<Mode>, Option<f64>), SearchError> {
    let mode = match mode {
        None => None,
        Some(s) => Some(Mode::parse(s).ok_or(SearchError::Mode)?),
    };
    let min_score = match min_score {
        None => None,
        // Read as a JSON number by serde_json's parser, already in every build:
        // str::parse::<f64> would bring core's float parser into the wasm (8-16
        // KiB gzipped) for this one option.
        Some(s) => match crate::json::from_text::<f64>(s.trim()) {
            Ok(x) if (-1.0..=1.0).contains(&x) => Some(x),
            _ => return Err(SearchError::MinScore),
        },
    };
    Ok((mode, min_score))
}

/// A ranked list entry: score, store path, text hash.
pub(crate) type Listed = (f64, Rc<str>, Hash);

/// The lists `lists` (each best first) fused by reciprocal rank, best first
/// (equal scores by path).
pub(crate) fn fuse(lists: &[&[Listed]]) -> Vec<Listed> {
    let mut by_path: BTreeMap<Rc<str>, (f64, Hash)> = BTreeMap::new();
    for list in lists {
        for (rank, (_, path, hash)) in list.iter().enumerate() {
            let add = 1.0 / (SEARCH_RRF_K + (rank + 1) as f64);
            by_path
                .entry(path.clone())
                .and_modify(|e| e.0 += add)
                .or_insert((add, *hash));
        }
    }
    let mut out: Vec<Listed> = by_path.into_iter().map(|(p, (s, h))| (s, p, h)).collect();
    out.sort_by(|a, b| crate::search::rank_order((a.0, &a.1), (b.0, &b.1)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: f64, p: &str) -> Listed {
        (s, Rc::from(p), Hash([0; 32]))
    }

    #[test]
    fn a_keyword_only_hit_is_kept() {
        let lex = [l(9.0, "/a"), l(5.0, "/k")];
        let sem = [l(0.9, "/b"), l(0.8, "/a")];
        let fused = fuse(&[&lex, &sem]);
        let paths: Vec<&str> = fused.iter().map(|x| &*x.1).collect();
        assert_eq!(paths, ["/a", "/b", "/k"]);
        let first = fused.first().map(|x| x.0).unwrap_or_default();
        assert!((first - (1.0 / 61.0 + 1.0 / 62.0)).abs() < 1e-12);
    }
}
