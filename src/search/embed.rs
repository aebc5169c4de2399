//! The embedder contract: what an application hands memdir to search by meaning.
//!
//! memdir embeds nothing by itself (no licensed multilingual model ships from the
//! registries it builds from); an application brings an [`Embedder`] (a hosted
//! embeddings API, a local model it already runs) and memdir keeps everything
//! around it right: every vector is tagged with a [`Fingerprint`], vectors of two
//! fingerprints are never compared, and whatever an embedder answers is checked
//! ([`check_vectors`]) before a vector is kept.
//!
//! The embedder is called only from a search, a recall, `reindex` and
//! `searchStatus`-free paths: never from a write (see `vectors.rs`).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::future::Future;
use core::pin::Pin;

use crate::config::{EMBED_MAX_DIMS, EMBED_TEXT_CHARS};
use crate::storage::tree::Hash;

/// What a text is embedded as: models such as e5 prefix a query and a document
/// differently ("query: " / "passage: "), and the embedder does so itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbedKind {
    /// A search's query.
    Query,
    /// A memory's text.
    Document,
}

impl EmbedKind {
    /// `"query"` or `"document"`, as the JS and WIT contracts spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            EmbedKind::Query => "query",
            EmbedKind::Document => "document",
        }
    }
}

/// An embedder's answer to one call: one vector per text, in the texts' order.
pub type EmbedFuture<'a> = Pin<Box<dyn Future<Output = Result<Vec<Vec<f32>>, EmbedError>> + 'a>>;

/// The contract an application's embedder meets (the npm package's
/// `openMemory({ embedder })`, the component's host import, a Rust caller).
///
/// `embed` is called with at most [`EMBED_BATCH`](crate::config::EMBED_BATCH)
/// texts and answers one vector of [`Embedder::dims`] finite numbers per text, in
/// order. It need not normalise: memdir scales every vector to unit length. It
/// may fail; memdir then answers [`EmbedError::Failed`] and keeps nothing of that
/// batch.
pub trait Embedder {
    /// Names the model and how the embedder uses it (`"openai/text-embedding-3-small"`,
    /// `"e5-small-v2+prefix"`): a different id is a different fingerprint, whose
    /// vectors are made afresh. Change it whenever the vectors would change.
    fn id(&self) -> &str;
    /// The length of every vector it answers.
    fn dims(&self) -> usize;
    /// One vector per text of `texts`, embedded as `kind`.
    fn embed<'a>(&'a self, texts: &'a [String], kind: EmbedKind) -> EmbedFuture<'a>;
}

/// How the engine prepares a text before embedding it, named in the fingerprint:
/// a memory's text, its first [`EMBED_TEXT_CHARS`] characters, as written.
pub const TEXT_TEMPLATE: &str = "text-start";

/// What a vector was made by: the embedder's id and dimensions, the engine's
/// normalisation (unit length, `l2`) and its text template. Vectors of two
/// fingerprints are never compared, and only the current one's are searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// The embedder's [`Embedder::id`].
    pub id: String,
    /// Its dimensions.
    pub dims: usize,
}

impl Fingerprint {
    /// The fingerprint of `embedder`, or why it cannot be used.
    pub fn of(embedder: &dyn Embedder) -> Result<Fingerprint, EmbedError> {
        let dims = embedder.dims();
        if dims == 0 || dims > EMBED_MAX_DIMS {
            return Err(EmbedError::Dims(dims));
        }
        let id = embedder.id();
        if id.trim().is_empty() || id.chars().count() > 200 {
            return Err(EmbedError::Id);
        }
        Ok(Fingerprint {
            id: String::from(id),
            dims,
        })
    }

    /// As `searchStatus()` shows it: `id:dims:l2:template:chars`, e.g.
    /// `memdir-test-ngram:384:l2:text-start:2000`.
    pub fn text(&self) -> String {
        alloc::format!(
            "{}:{}:l2:{TEXT_TEMPLATE}:{EMBED_TEXT_CHARS}",
            self.id,
            self.dims
        )
    }

    /// The fingerprint's part of a vector's key: its text's SHA-256, first 16
    /// bytes in hex (an id may hold any characters, a key may not).
    pub fn key(&self) -> String {
        let h = Hash::of(self.text().as_bytes()).hex();
        String::from(h.get(..32).unwrap_or(&h))
    }
}

/// Why an embedder's answer was refused. Deliberately carries no text of the
/// embedder's own (a hosted API's error may name an account or a key).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EmbedError {
    /// The embedder declares dimensions of 0 or above [`EMBED_MAX_DIMS`].
    Dims(usize),
    /// The embedder's id is empty or longer than 200 characters.
    Id,
    /// The embedder threw or rejected.
    Failed,
    /// It answered this many vectors for that many texts.
    Count {
        /// Texts asked.
        asked: usize,
        /// Vectors answered.
        got: usize,
    },
    /// A vector is of this length, not the declared dimensions.
    Length {
        /// Declared.
        dims: usize,
        /// Answered.
        got: usize,
    },
    /// A vector holds NaN or an infinity.
    NotFinite,
    /// A vector is all zeros (it has no direction to compare).
    Zero,
    /// The answer is not a list of vectors (each a list of numbers).
    Shape,
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmbedError::Dims(d) => write!(
                f,
                "The embedder's dims must be a whole number from 1 to {EMBED_MAX_DIMS}, not {d}."
            ),
            EmbedError::Id => f.write_str(
                "The embedder's id must be a non-empty string of at most 200 characters.",
            ),
            EmbedError::Failed => f.write_str(
                "The embedder failed (it threw or its promise rejected); no vector was kept, and search with mode 'lexical' still answers.",
            ),
            EmbedError::Count { asked, got } => write!(
                f,
                "The embedder answered {got} vectors for {asked} texts; it must answer one per text, in order. No vector was kept."
            ),
            EmbedError::Length { dims, got } => write!(
                f,
                "The embedder answered a vector of {got} numbers; it declares dims {dims}. No vector was kept."
            ),
            EmbedError::NotFinite => f.write_str(
                "The embedder answered a vector holding NaN or an infinity. No vector was kept.",
            ),
            EmbedError::Shape => f.write_str(
                "The embedder must answer an array of vectors, one per text, each an array of numbers or a Float32Array. No vector was kept.",
            ),
            EmbedError::Zero => f.write_str(
                "The embedder answered a vector of zeros, which has no direction to compare. No vector was kept.",
            ),
        }
    }
}

/// `vectors`, checked against `asked` texts of `dims` each and scaled to unit
/// length; any fault refuses the whole batch.
pub(crate) fn check_vectors(
    vectors: Vec<Vec<f32>>,
    asked: usize,
    dims: usize,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    if vectors.len() != asked {
        return Err(EmbedError::Count {
            asked,
            got: vectors.len(),
        });
    }
    let mut out = Vec::with_capacity(asked);
    for mut v in vectors {
        if v.len() != dims {
            return Err(EmbedError::Length { dims, got: v.len() });
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(EmbedError::NotFinite);
        }
        let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>();
        let norm = libm::sqrt(norm);
        if norm.is_nan() || norm <= 0.0 || !norm.is_finite() {
            return Err(EmbedError::Zero);
        }
        for x in &mut v {
            *x = (f64::from(*x) / norm) as f32;
        }
        out.push(v);
    }
    Ok(out)
}

/// The text of a memory as it is embedded (see [`TEXT_TEMPLATE`]).
pub(crate) fn document_text(text: &str) -> String {
    match text.char_indices().nth(EMBED_TEXT_CHARS) {
        Some((at, _)) => String::from(text.get(..at).unwrap_or(text)),
        None => String::from(text),
    }
}

impl<S> crate::storage::Engine<S> {
    /// The application's embedder, which semantic and hybrid search use (`None`:
    /// lexical only). Vectors are made by searches and `reindex`, never by a
    /// write; changing the embedder changes the fingerprint, and the old one's
    /// vectors are no longer searched (gc deletes them).
    pub fn set_embedder(&mut self, embedder: Option<alloc::rc::Rc<dyn Embedder>>) {
        self.put_embedder(embedder.map(|e| Box::new(e) as Box<dyn core::any::Any>));
    }

    /// The embedder, if the application gave one.
    pub(crate) fn embedder(&self) -> Option<&alloc::rc::Rc<dyn Embedder>> {
        self.embedder_slot()?.downcast_ref()
    }
}
