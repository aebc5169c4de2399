//! The world's fourth import, `memdir:memory/embedder`: the application's embedder
//! lent to the component. A host without one answers `info` with none and the
//! component searches by words only.
//!
//! The guest is not trusted here either: a call with more texts than the engine ever
//! sends ([`EMBED_BATCH`]) is refused, and whatever the embedder answers goes back
//! as it is (the engine checks the count, the lengths and the numbers).

use std::sync::Arc;

use memdir::search::{Embedder as _, TestEmbedder, test_vector};

/// An embedder's failure. It carries no text on purpose: a hosted API's error may
/// name an account or a key, and the component says only that the embedder failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbedFailed;

impl std::fmt::Display for EmbedFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the embedder failed")
    }
}

impl std::error::Error for EmbedFailed {}

/// An embedder a host lends the component: `{ id, dims, embed(texts, kind) }`, the
/// contract of every face (docs/search.md). `embed` gets at most 32 texts and
/// `kind` `"query"` or `"document"`; a failure carries no text, since none of it
/// would reach anyone (the engine says the embedder failed).
pub trait HostEmbedder: Send + Sync {
    /// Names the model and how it is used; a new id is a new fingerprint.
    fn id(&self) -> String;
    /// The length of every vector.
    fn dims(&self) -> usize;
    /// One vector per text, in order.
    fn embed(&self, texts: &[String], kind: &str) -> Result<Vec<Vec<f32>>, EmbedFailed>;
}

/// memdir's test embedder (`memdir::search::TestEmbedder`: hashed character
/// trigrams and a small table of concepts in five languages): deterministic and
/// needing no model, for tests and examples only (`memdir-host --embedder test`).
#[derive(Clone, Copy, Debug, Default)]
pub struct TestHostEmbedder(pub TestEmbedder);

impl HostEmbedder for TestHostEmbedder {
    fn id(&self) -> String {
        self.0.id().to_string()
    }

    fn dims(&self) -> usize {
        self.0.dims
    }

    fn embed(&self, texts: &[String], _kind: &str) -> Result<Vec<Vec<f32>>, EmbedFailed> {
        Ok(texts.iter().map(|t| test_vector(t, self.0.dims)).collect())
    }
}

/// The host's embedder as the state of one instance holds it.
pub type Lent = Option<Arc<dyn HostEmbedder>>;
