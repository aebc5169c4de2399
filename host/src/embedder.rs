//! The world's fourth import, `memdir:memory/embedder`: the application's embedder
//! lent to the component. A host without one answers `info` with none and the
//! component searches by words only.
//!
//! The guest is not trusted here either: a call with more texts than the engine ever
//! sends ([`EMBED_BATCH`]) is refused, and whatever the embedder answers goes back
//! as it is (the engine checks the count, the lengths and the numbers).

use std::sync::Arc;

use memdir::config::{EMBED_BATCH, EMBED_MAX_DIMS};
use memdir::search::{Embedder as _, TestEmbedder, test_vector};

use crate::bindings::memdir::memory::embedder;
use crate::keyvalue::State;

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

impl embedder::Host for State {
    fn info(&mut self) -> wasmtime::Result<Option<embedder::EmbedderInfo>> {
        Ok(self.embedder.as_ref().map(|e| embedder::EmbedderInfo {
            id: e.id(),
            // Out of the contract's range, the engine refuses it by its dims.
            dims: u32::try_from(e.dims().min(EMBED_MAX_DIMS + 1)).unwrap_or(u32::MAX),
        }))
    }

    fn embed(
        &mut self,
        texts: Vec<String>,
        kind: String,
    ) -> wasmtime::Result<Result<Vec<Vec<f32>>, ()>> {
        let Some(e) = self.embedder.as_ref() else {
            return Ok(Err(()));
        };
        if texts.len() > EMBED_BATCH || (kind != "query" && kind != "document") {
            return Ok(Err(()));
        }
        Ok(e.embed(&texts, &kind).map_err(|_| ()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::MemoryBackend;
    use crate::bindings::memdir::memory::embedder::Host as _;
    use crate::limiter::Limiter;

    fn state(embedder: Lent) -> State {
        let mut s = State::new(
            Arc::new(MemoryBackend::new()),
            "default".into(),
            Limiter::new(1 << 20),
        );
        s.embedder = embedder;
        s
    }

    #[test]
    fn a_guest_asking_more_than_a_batch_or_another_kind_is_refused_before_the_embedder() {
        let mut s = state(Some(Arc::new(TestHostEmbedder::default())));
        let texts = |n: usize| vec![String::from("dark mode"); n];
        assert_eq!(
            s.embed(texts(EMBED_BATCH), "document".into())
                .unwrap()
                .map(|v| v.len()),
            Ok(EMBED_BATCH)
        );
        assert_eq!(
            s.embed(texts(EMBED_BATCH + 1), "document".into()).unwrap(),
            Err(())
        );
        assert_eq!(s.embed(texts(1), "passage".into()).unwrap(), Err(()));
        let info = s.info().unwrap().unwrap();
        assert_eq!((info.id.as_str(), info.dims), ("memdir-test-ngram-v1", 384));
    }

    #[test]
    fn a_host_without_an_embedder_answers_none_and_embeds_nothing() {
        let mut s = state(None);
        assert!(s.info().unwrap().is_none());
        assert_eq!(s.embed(vec!["x".into()], "query".into()).unwrap(), Err(()));
    }
}
