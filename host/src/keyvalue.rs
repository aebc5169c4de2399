//! The host side of three of the world's imports: `wasi:keyvalue/store` and
//! `wasi:keyvalue/atomics` at `0.2.0-draft2` over a [`Backend`], and
//! `wasi:clocks/wall-clock` (the fourth, the embedder, is `crate::embedder`).
//! Nothing else is linked, so nothing else is reachable.
//!
//! Errors cross to the guest as `other("quota-exceeded" | "unavailable" | "failed")`:
//! the kind survives, the backend's own words never leave the host.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use memdir::config::{EMBED_BATCH, EMBED_MAX_DIMS};
use memdir::{Page, StoreError};
use wasmtime::component::{Resource, ResourceTable};

use crate::backend::{Backend, PAGE};
use crate::bindings::memdir::memory::embedder;
use crate::bindings::wasi::clocks::wall_clock;
use crate::bindings::wasi::keyvalue::atomics::{self, CasError};
use crate::bindings::wasi::keyvalue::store::{self, Error, KeyResponse};
use crate::limiter::Limiter;
use crate::resources::{BucketHandle, CasHandle};

/// Live handles an instance may hold at once; the component holds one or two, a
/// runaway guest is trapped instead of growing the host's table without end.
const MAX_HANDLES: usize = 10_000;

/// What one component instance's store holds.
pub struct State {
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) bucket: String,
    pub(crate) table: ResourceTable,
    pub(crate) limiter: Limiter,
    pub(crate) handles: usize,
    /// A swap succeeded during the current call: a trap after it must not claim
    /// that nothing was changed.
    pub(crate) published: bool,
    /// The embedder the host lends (`crate::embedder`), if any.
    pub(crate) embedder: crate::embedder::Lent,
}

impl State {
    pub(crate) fn new(backend: Arc<dyn Backend>, bucket: String, limiter: Limiter) -> Self {
        State {
            backend,
            bucket,
            table: ResourceTable::new(),
            limiter,
            handles: 0,
            published: false,
            embedder: None,
        }
    }

    fn push<T: Send + 'static>(&mut self, value: T) -> wasmtime::Result<Resource<T>> {
        if self.handles >= MAX_HANDLES {
            wasmtime::bail!("too many live keyvalue handles");
        }
        self.handles += 1;
        Ok(self.table.push(value)?)
    }

    fn remove<T: 'static>(&mut self, r: Resource<T>) -> wasmtime::Result<T> {
        let v = self.table.delete(r)?;
        self.handles = self.handles.saturating_sub(1);
        Ok(v)
    }
}

fn err(e: StoreError) -> Error {
    Error::Other(
        match e {
            StoreError::QuotaExceeded => "quota-exceeded",
            StoreError::Unavailable => "unavailable",
            StoreError::Failed => "failed",
            StoreError::Damaged => "damaged",
        }
        .into(),
    )
}

type Answer<T> = wasmtime::Result<Result<T, Error>>;

impl store::Host for State {
    fn open(&mut self, identifier: String) -> Answer<Resource<BucketHandle>> {
        if identifier != self.bucket {
            return Ok(Err(Error::NoSuchStore));
        }
        Ok(Ok(self.push(BucketHandle)?))
    }
}

impl store::HostBucket for State {
    fn get(&mut self, b: Resource<BucketHandle>, key: String) -> Answer<Option<Vec<u8>>> {
        self.table.get(&b)?;
        Ok(self.backend.get(&key).map_err(err))
    }

    fn set(&mut self, b: Resource<BucketHandle>, key: String, value: Vec<u8>) -> Answer<()> {
        self.table.get(&b)?;
        Ok(self.backend.set(&key, &value).map_err(err))
    }

    fn delete(&mut self, b: Resource<BucketHandle>, key: String) -> Answer<()> {
        self.table.get(&b)?;
        Ok(self.backend.delete(&key).map_err(err))
    }

    fn exists(&mut self, b: Resource<BucketHandle>, key: String) -> Answer<bool> {
        self.table.get(&b)?;
        Ok(self.backend.get(&key).map(|v| v.is_some()).map_err(err))
    }

    /// Keys in ascending order, a page at a time; the cursor is the page's last key.
    fn list_keys(
        &mut self,
        b: Resource<BucketHandle>,
        cursor: Option<String>,
    ) -> Answer<KeyResponse> {
        self.table.get(&b)?;
        let page = match self.backend.list("", cursor.as_deref(), PAGE + 1) {
            Ok(keys) => Page::of(keys, PAGE),
            Err(e) => return Ok(Err(err(e))),
        };
        Ok(Ok(KeyResponse {
            keys: page.keys,
            cursor: page.cursor,
        }))
    }

    fn drop(&mut self, b: Resource<BucketHandle>) -> wasmtime::Result<()> {
        self.remove(b)?;
        Ok(())
    }
}

impl atomics::HostCas for State {
    fn new(&mut self, b: Resource<BucketHandle>, key: String) -> Answer<Resource<CasHandle>> {
        self.table.get(&b)?;
        match self.backend.get(&key) {
            Ok(seen) => Ok(Ok(self.push(CasHandle { key, seen })?)),
            Err(e) => Ok(Err(err(e))),
        }
    }

    fn current(&mut self, c: Resource<CasHandle>) -> Answer<Option<Vec<u8>>> {
        Ok(Ok(self.table.get(&c)?.seen.clone()))
    }

    fn drop(&mut self, c: Resource<CasHandle>) -> wasmtime::Result<()> {
        self.remove(c)?;
        Ok(())
    }
}

/// Attempts of `increment` before it reports the contention as a failure.
const INCREMENT_TRIES: usize = 1000;

impl atomics::Host for State {
    /// The counter is stored as 8 little-endian bytes; any other value is an error.
    fn increment(&mut self, b: Resource<BucketHandle>, key: String, delta: i64) -> Answer<i64> {
        self.table.get(&b)?;
        for _ in 0..INCREMENT_TRIES {
            let seen = match self.backend.get(&key) {
                Ok(v) => v,
                Err(e) => return Ok(Err(err(e))),
            };
            let current = match seen.as_deref() {
                None => 0,
                Some(bytes) => match <[u8; 8]>::try_from(bytes) {
                    Ok(a) => i64::from_le_bytes(a),
                    Err(_) => return Ok(Err(err(StoreError::Failed))),
                },
            };
            let Some(next) = current.checked_add(delta) else {
                return Ok(Err(err(StoreError::Failed)));
            };
            match self
                .backend
                .compare_and_swap(&key, seen.as_deref(), &next.to_le_bytes())
            {
                Ok(true) => return Ok(Ok(next)),
                Ok(false) => continue,
                Err(e) => return Ok(Err(err(e))),
            }
        }
        Ok(Err(err(StoreError::Failed)))
    }

    fn swap(
        &mut self,
        c: Resource<CasHandle>,
        value: Vec<u8>,
    ) -> wasmtime::Result<Result<(), CasError>> {
        let cas = self.remove(c)?;
        match self
            .backend
            .compare_and_swap(&cas.key, cas.seen.as_deref(), &value)
        {
            Ok(true) => {
                self.published = true;
                Ok(Ok(()))
            }
            // The spec asks for a handle that has caught up with the latest value.
            Ok(false) => match self.backend.get(&cas.key) {
                Ok(seen) => Ok(Err(CasError::CasFailed(
                    self.push(CasHandle { key: cas.key, seen })?,
                ))),
                Err(e) => Ok(Err(CasError::StoreError(err(e)))),
            },
            Err(e) => Ok(Err(CasError::StoreError(err(e)))),
        }
    }
}

impl wall_clock::Host for State {
    fn now(&mut self) -> wasmtime::Result<wall_clock::Datetime> {
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Ok(wall_clock::Datetime {
            seconds: d.as_secs(),
            nanoseconds: d.subsec_nanos(),
        })
    }

    fn resolution(&mut self) -> wasmtime::Result<wall_clock::Datetime> {
        Ok(wall_clock::Datetime {
            seconds: 0,
            nanoseconds: 1,
        })
    }
}

/// The fourth import: the embedder the host lends (`crate::embedder`), checked
/// before it is called: at most a batch of texts, of the two kinds.
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
    use crate::bindings::wasi::keyvalue::atomics::{Host as _, HostCas as _};
    use crate::bindings::wasi::keyvalue::store::{Host as _, HostBucket as _};
    use crate::embedder::{Lent, TestHostEmbedder};
    use crate::limiter::Limiter;

    fn state(backend: Arc<dyn Backend>) -> State {
        State::new(backend, "default".into(), Limiter::new(1 << 20))
    }

    fn bucket(s: &mut State) -> Resource<BucketHandle> {
        s.open("default".into())
            .expect("no trap")
            .expect("the lent bucket opens")
    }

    fn again(b: &Resource<BucketHandle>) -> Resource<BucketHandle> {
        Resource::new_borrow(b.rep())
    }

    #[test]
    fn only_the_lent_bucket_opens() {
        let mut s = state(Arc::new(MemoryBackend::new()));
        assert!(matches!(
            s.open("other".into()).expect("no trap"),
            Err(Error::NoSuchStore)
        ));
        bucket(&mut s);
    }

    #[test]
    fn list_keys_pages_through_every_key_once_in_order() {
        let mem = MemoryBackend::new();
        for i in 0..2500 {
            mem.set(&format!("k/{i:04}"), b"v").expect("set");
        }
        let mut s = state(Arc::new(mem));
        let b = bucket(&mut s);
        let (mut all, mut cursor, mut pages) = (Vec::new(), None, 0);
        loop {
            let page = s
                .list_keys(again(&b), cursor)
                .expect("no trap")
                .expect("listed");
            pages += 1;
            all.extend(page.keys);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let want: Vec<String> = (0..2500).map(|i| format!("k/{i:04}")).collect();
        assert_eq!((all, pages), (want, 3));
    }

    #[test]
    fn a_stale_swap_fails_with_a_handle_that_has_caught_up() {
        let mut s = state(Arc::new(MemoryBackend::new()));
        let b = bucket(&mut s);
        let cas = s
            .new(again(&b), "head".into())
            .expect("no trap")
            .expect("cas");
        assert_eq!(
            s.current(Resource::new_borrow(cas.rep()))
                .expect("no trap")
                .expect("current"),
            None
        );
        s.set(again(&b), "head".into(), b"theirs".to_vec())
            .expect("no trap")
            .expect("set");
        let fresh = match s.swap(cas, b"mine".to_vec()).expect("no trap") {
            Err(CasError::CasFailed(fresh)) => fresh,
            other => panic!("expected cas-failed, got {other:?}"),
        };
        assert!(!s.published);
        let seen = s
            .current(Resource::new_borrow(fresh.rep()))
            .expect("no trap")
            .expect("current");
        assert_eq!(seen.as_deref(), Some(&b"theirs"[..]));
        assert!(s.swap(fresh, b"mine".to_vec()).expect("no trap").is_ok());
        assert!(s.published);
        assert_eq!(
            s.get(again(&b), "head".into())
                .expect("no trap")
                .expect("get"),
            Some(b"mine".to_vec())
        );
        assert_eq!(s.handles, 1, "only the bucket is still live");
    }

    #[test]
    fn increment_counts_in_eight_little_endian_bytes() {
        let mut s = state(Arc::new(MemoryBackend::new()));
        let b = bucket(&mut s);
        assert_eq!(
            s.increment(again(&b), "n".into(), 5)
                .expect("no trap")
                .expect("inc"),
            5
        );
        assert_eq!(
            s.increment(again(&b), "n".into(), -7)
                .expect("no trap")
                .expect("inc"),
            -2
        );
        s.set(again(&b), "t".into(), b"text".to_vec())
            .expect("no trap")
            .expect("set");
        assert!(
            s.increment(again(&b), "t".into(), 1)
                .expect("no trap")
                .is_err()
        );
    }

    struct Full;

    impl Backend for Full {
        fn get(&self, _: &str) -> Result<Option<Vec<u8>>, StoreError> {
            Err(StoreError::Unavailable)
        }
        fn set(&self, _: &str, _: &[u8]) -> Result<(), StoreError> {
            Err(StoreError::QuotaExceeded)
        }
        fn delete(&self, _: &str) -> Result<(), StoreError> {
            Err(StoreError::Failed)
        }
        fn list(&self, _: &str, _: Option<&str>, _: usize) -> Result<Vec<String>, StoreError> {
            Err(StoreError::Failed)
        }
        fn compare_and_swap(
            &self,
            _: &str,
            _: Option<&[u8]>,
            _: &[u8],
        ) -> Result<bool, StoreError> {
            Err(StoreError::QuotaExceeded)
        }
    }

    #[test]
    fn backend_errors_cross_as_their_kind_only() {
        let mut s = state(Arc::new(Full));
        let b = bucket(&mut s);
        let other = |e: Error| match e {
            Error::Other(t) => t,
            e => panic!("{e:?}"),
        };
        assert_eq!(
            other(s.get(again(&b), "k".into()).expect("no trap").unwrap_err()),
            "unavailable"
        );
        assert_eq!(
            other(
                s.set(again(&b), "k".into(), vec![])
                    .expect("no trap")
                    .unwrap_err()
            ),
            "quota-exceeded"
        );
        assert_eq!(
            other(
                s.delete(again(&b), "k".into())
                    .expect("no trap")
                    .unwrap_err()
            ),
            "failed"
        );
    }

    // The embedder import (`crate::embedder`), as a guest calls it.
    fn lending(embedder: Lent) -> State {
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
        let mut s = lending(Some(Arc::new(TestHostEmbedder::default())));
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
        let mut s = lending(None);
        assert!(s.info().unwrap().is_none());
        assert_eq!(s.embed(vec!["x".into()], "query".into()).unwrap(), Err(()));
    }
}
