//! memdir as a WebAssembly component (`wasm32-wasip2`, world `memdir:memory/memdir`).
//!
//! The same engine as every other runtime, driven over the imported
//! `wasi:keyvalue@0.2.0-draft2` bucket with the time from `wasi:clocks/wall-clock`,
//! and searching by meaning with the host's embedder (`memdir:memory/embedder`)
//! when the host lends one.
//! The crate is `no_std` on wasm so that nothing of Rust's std (stderr for panic
//! messages, environment, preopens) adds an import: the component's imports are
//! exactly the four interfaces of the world, which the host's tests check.
//!
//! Build: `cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm`.
#![cfg_attr(target_arch = "wasm32", no_std)]
#![allow(
    unsafe_code,
    reason = "the canonical ABI's allocator and wit-bindgen's exports are unsafe by nature"
)]

extern crate alloc;

mod bucket;
mod kv;

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;

// `::memdir`: the crate; a plain `memdir` names the bindings' module of this
// package's imported interface (`memdir::memory::embedder`).
use ::memdir::ApiError;
use ::memdir::api::Response;
use ::memdir::config::{Config, Defaults, Limits, MAX_RETRIES_CAP};
use ::memdir::mounts::{self, Access, Mount, MountTarget};
use ::memdir::seal::{Key, SealError, Sealed};
use ::memdir::search::{IndexStatus, VectorStatus};
use ::memdir::{Command, Engine, ErrorKind, SearchError, SecretPolicy, StoreError, ToolError};

use bucket::Opening;
use exports::memdir::memory::tool;
use kv::KvStore;

wit_bindgen::generate!({
    world: "memdir",
    path: "../../wit",
    generate_all,
});

// No threads in a component instance and exports are never re-entered, so a plain
// cell is enough; the allocator and the trap-on-panic only apply to the wasm build.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

/// A panic (the engine never panics by design; an allocation failure can) traps the
/// instance: the host replaces it, and the store is unchanged because only the
/// final compare-and-swap publishes anything.
#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

/// The canonical ABI's allocator export, over the same global allocator as the rest
/// of the crate (the bindings free what it allocates). wit-bindgen leaves it to
/// wasi-libc on wasip2, whose malloc would be a second heap.
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
unsafe extern "C" fn cabi_realloc(
    old: *mut u8,
    old_len: usize,
    align: usize,
    new_len: usize,
) -> *mut u8 {
    use alloc::alloc::{Layout, alloc, realloc};
    if new_len == 0 {
        return align as *mut u8;
    }
    // SAFETY: the canonical ABI passes a power-of-two alignment, and `old`/`old_len`
    // come from an earlier call of this function with the same alignment.
    let ptr = unsafe {
        if old_len == 0 {
            alloc(Layout::from_size_align_unchecked(new_len, align))
        } else {
            realloc(
                old,
                Layout::from_size_align_unchecked(old_len, align),
                new_len,
            )
        }
    };
    if ptr.is_null() {
        core::arch::wasm32::unreachable()
    }
    ptr
}

/// The store the engine runs on: the bucket, encrypted below the engine when the
/// configuration carries a key, passed through untouched when it does not
/// (opened at the first store operation, see `bucket.rs`).
type Bucket = Opening;

/// What `configure` said: the store is opened from it at the first call that
/// needs it, so that a refusal (a wrong or missing key) is that call's answer.
struct Settings {
    bucket: String,
    config: Config,
    encryption: Option<tool::Encryption>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            bucket: DEFAULT_BUCKET.into(),
            config: Config::default(),
            encryption: None,
        }
    }
}

/// The instance's settings and its one engine, kept across calls so its node
/// cache survives; `engine` is None until a call opens the store.
#[derive(Default)]
struct Instance {
    settings: Settings,
    engine: Option<Engine<Bucket>>,
}

struct Slot(RefCell<Option<Instance>>);

// SAFETY: a component instance runs on one thread and the component model forbids
// re-entering an instance, so the cell is never touched concurrently.
unsafe impl Sync for Slot {}

static INSTANCE: Slot = Slot(RefCell::new(None));

const DEFAULT_BUCKET: &str = "default";

/// An encryption record's key and fresh bytes. The key's bytes are checked by
/// `Key::new`; fresh bytes of another length are the host's mistake, refused
/// with the same words (nothing of either is ever shown).
fn key_of(e: &tool::Encryption) -> Result<(Key, [u8; 32]), SealError> {
    let bytes: [u8; 32] = e.key.as_slice().try_into().map_err(|_| SealError::BadKey)?;
    let fresh: [u8; 32] = e
        .fresh
        .as_slice()
        .try_into()
        .map_err(|_| SealError::BadKey)?;
    Ok((Key::new(bytes, e.key_id.as_deref())?, fresh))
}

/// The engine over the configured bucket, which opens it through `Sealed::open` at
/// its first store operation: with the key, an encrypted store (an empty one
/// becomes one); without, a plaintext store. Only a bad key fails here.
fn open(s: &Settings) -> Result<Engine<Bucket>, SealError> {
    let (key, fresh) = match &s.encryption {
        Some(e) => {
            let (key, fresh) = key_of(e)?;
            (Some(key), fresh)
        }
        // Unused without a key: a plaintext store makes no data key.
        None => (None, [0; 32]),
    };
    Ok(new_engine(
        Opening::new(&s.bucket, key, fresh),
        s.config.clone(),
    ))
}

fn new_engine(store: Bucket, config: Config) -> Engine<Bucket> {
    let mut engine = Engine::new(store, config);
    engine.set_clock(Box::new(now_ms));
    // The host's embedder, if it lends one: semantic and hybrid search then, hybrid
    // by default; without, lexical only.
    if let Some(info) = crate::memdir::memory::embedder::info() {
        engine.set_embedder(Some(alloc::rc::Rc::new(HostEmbedder {
            id: info.id,
            dims: usize::try_from(info.dims).unwrap_or(usize::MAX),
        })));
    }
    // The world imports no random source: the nanoseconds at which the engine is
    // made key its caches' tables, which no writer of the bucket can know.
    let t = wasi::clocks::wall_clock::now();
    engine.set_cache_key(t.seconds.rotate_left(32) ^ u64::from(t.nanoseconds));
    engine
}

/// The host's embedder as the engine's: every call goes to the import, which
/// answers at once (a host call returns when it has the vectors), so the future is
/// ready at its first poll. The engine checks what it answers.
struct HostEmbedder {
    id: String,
    dims: usize,
}

impl ::memdir::search::Embedder for HostEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed<'a>(
        &'a self,
        texts: &'a [String],
        kind: ::memdir::search::EmbedKind,
    ) -> ::memdir::search::EmbedFuture<'a> {
        let answer = crate::memdir::memory::embedder::embed(texts, kind.as_str())
            .map_err(|()| ::memdir::search::EmbedError::Failed);
        Box::pin(core::future::ready(answer))
    }
}

fn now_ms() -> u64 {
    let t = wasi::clocks::wall_clock::now();
    t.seconds
        .saturating_mul(1000)
        .saturating_add(u64::from(t.nanoseconds / 1_000_000))
}

/// The end of an engine future over the imported bucket. The imports answer at
/// once, so every such future is ready at its first poll; one that is not is a
/// store that failed to answer, refused as unavailable (nothing could wake it).
fn settle<T>(fut: impl core::future::Future<Output = T>) -> Result<T, StoreError> {
    ::memdir::now_or_never(fut).ok_or(StoreError::Unavailable)
}

/// A settled command's outcome in the WIT's terms.
fn settled<T>(r: Result<Result<T, ToolError>, StoreError>) -> Result<T, tool::ToolError> {
    r.map_err(ToolError::from)
        .and_then(|r| r)
        .map_err(|e| wit_error(&e))
}

/// Runs `f` with the instance's engine (made with the default settings if
/// `configure` was never called), or, if the store refused to open meanwhile,
/// that refusal instead of `f`'s answer: the engine is then dropped, and the next
/// call opens the store again.
fn with_engine<T>(f: impl FnOnce(&Engine<Bucket>) -> T) -> Result<T, SealError> {
    let mut slot = INSTANCE.0.borrow_mut();
    let instance = slot.get_or_insert_with(Instance::default);
    let engine = match instance.engine.take() {
        Some(e) => e,
        None => open(&instance.settings)?,
    };
    let out = f(&engine);
    if let Some(refused) = engine.store().refusal() {
        return Err(refused);
    }
    instance.engine = Some(engine);
    Ok(out)
}

/// The store's encryption refusing to open (or a seal operation failing) in the
/// WIT's terms: the storage's own kind, `damaged`, a bad key or key id as
/// `input`, and every refusal of the key as `refused`; the text is the engine's.
fn seal_error(e: &SealError) -> tool::ToolError {
    use tool::ErrorKind as W;
    let kind = match e {
        SealError::Storage(s) => return wit_error(&ToolError::from(*s)),
        SealError::Damaged => W::Damaged,
        SealError::BadKey | SealError::BadKeyId => W::Input,
        _ => W::Refused,
    };
    tool::ToolError {
        kind,
        message: format!("{e}"),
    }
}

/// A store-level outcome: the open's refusal, else the store's answer.
fn sealed<T>(
    r: Result<Result<T, StoreError>, SealError>,
) -> Result<Result<T, StoreError>, tool::ToolError> {
    r.map_err(|e| seal_error(&e))
}

/// The typed entry point, for the six typed exports.
fn run(cmd: Command) -> Result<String, tool::ToolError> {
    settled(sealed(with_engine(|e| settle(e.run(cmd))))?)
}

fn wit_error(e: &ToolError) -> tool::ToolError {
    use tool::ErrorKind as W;
    let kind = match e.kind() {
        ErrorKind::Input => W::Input,
        ErrorKind::Path => W::Path,
        ErrorKind::Refused => W::Refused,
        ErrorKind::Limit => W::Limit,
        ErrorKind::Secret => W::Secret,
        ErrorKind::StorageFull => W::StorageFull,
        ErrorKind::StorageUnavailable => W::StorageUnavailable,
        ErrorKind::StorageFailed => W::StorageFailed,
        ErrorKind::Damaged => W::Damaged,
        ErrorKind::Busy => W::Busy,
    };
    tool::ToolError {
        kind,
        message: format!("{e}"),
    }
}

/// A search's failure in the WIT's terms: the store's with its kind, else the
/// query or options the caller gave (`input`), in the engine's words.
fn search_error(e: &SearchError) -> tool::ToolError {
    match e {
        SearchError::Store(t) => wit_error(t),
        other => tool::ToolError {
            kind: tool::ErrorKind::Input,
            message: format!("{other}"),
        },
    }
}

/// A search call's options as JSON, or the engine's refusal of text that is not
/// a JSON object (`Request`'s own words).
fn search_input(request: &str) -> Result<serde_json::Value, tool::ToolError> {
    ::memdir::__hooks::from_text::<serde_json::Value>(request).map_err(|_| {
        search_error(&SearchError::Option {
            name: "the options",
            must: "an object",
        })
    })
}

/// A search future settled: the store failing to answer is a store error.
fn settled_search<T>(r: Result<Result<T, SearchError>, StoreError>) -> Result<T, tool::ToolError> {
    r.map_err(|e| SearchError::Store(e.into()))
        .and_then(|r| r)
        .map_err(|e| search_error(&e))
}

/// The index's status and, with an embedder, its vectors', as JS's
/// `searchStatus()` answers them: pending while texts wait for a vector too.
fn index_status((s, v): (IndexStatus, Option<VectorStatus>)) -> tool::IndexStatus {
    let waiting = v.as_ref().is_some_and(|v| v.pending > 0);
    tool::IndexStatus {
        indexed: s.indexed,
        pending: s.pending || waiting,
        vectors: v.map(|v| tool::VectorStatus {
            fingerprint: v.fingerprint,
            indexed: v.indexed,
            pending: v.pending,
        }),
    }
}

/// The index's status after `index`, and the vectors' after `vectors`.
async fn with_vectors<S: ::memdir::Store>(
    e: &Engine<S>,
    index: impl core::future::Future<Output = Result<IndexStatus, ToolError>>,
    rounds: Option<u32>,
) -> Result<(IndexStatus, Option<VectorStatus>), SearchError> {
    let s = index.await?;
    let v = match rounds {
        Some(n) => e.reindex_vectors(n).await?,
        None => e.vector_status().await?,
    };
    Ok((s, v))
}

fn clamp(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn widen(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn wit_config(c: &Config, bucket: &str) -> tool::Config {
    let l = &c.limits;
    tool::Config {
        limits: tool::Limits {
            max_file_bytes: widen(l.max_file_bytes),
            max_total_bytes: l.max_total_bytes,
            read_limit_chars: widen(l.read_limit_chars),
            max_memories: l.max_memories,
        },
        actor: c.actor.clone(),
        max_retries: c.max_retries,
        secrets: match c.secrets {
            SecretPolicy::Allow => tool::SecretPolicy::Allow,
            SecretPolicy::Refuse => tool::SecretPolicy::Refuse,
            SecretPolicy::Redact => tool::SecretPolicy::Redact,
        },
        bucket: bucket.into(),
        mount: c.mount.clone(),
        read_only: c.read_only,
        encryption: None,
    }
}

struct Component;

impl tool::Guest for Component {
    fn defaults() -> tool::EngineDefaults {
        let d = Defaults::get();
        tool::EngineDefaults {
            config: wit_config(&Config::default(), DEFAULT_BUCKET),
            keep_commits: d.keep_commits,
            max_input_bytes: widen(d.max_input_bytes),
            max_retries_cap: d.max_retries_cap,
        }
    }

    fn configure(config: tool::Config) -> Result<(), String> {
        let l = config.limits;
        let limits = Limits {
            max_file_bytes: clamp(l.max_file_bytes),
            max_total_bytes: l.max_total_bytes,
            read_limit_chars: clamp(l.read_limit_chars),
            max_memories: l.max_memories,
        };
        let secrets = match config.secrets {
            tool::SecretPolicy::Allow => SecretPolicy::Allow,
            tool::SecretPolicy::Refuse => SecretPolicy::Refuse,
            tool::SecretPolicy::Redact => SecretPolicy::Redact,
        };
        let engine_config = Config {
            limits,
            actor: config.actor,
            max_retries: config.max_retries.min(MAX_RETRIES_CAP),
            secrets,
            mount: config.mount,
            // The host's Mounted refuses writes into a read-only store before
            // calling this instance; set, the engine refuses them too, and a search
            // keeps its index to itself instead of saving it into the store.
            read_only: config.read_only,
        };
        if !engine_config.mount.is_empty() {
            // The same check a set of mounts gets; access and texts are the host's.
            let alone = Mount {
                name: engine_config.mount.clone(),
                access: Access::ReadWrite,
                description: String::new(),
                instructions: String::new(),
            };
            mounts::check(&[alone]).map_err(|e| format!("{e}"))?;
        }
        let bucket = if config.bucket.is_empty() {
            DEFAULT_BUCKET.into()
        } else {
            config.bucket
        };
        // The store is opened by the first call that needs it, so a key it refuses
        // is that call's answer in its own shape (a tool result, an API answer).
        *INSTANCE.0.borrow_mut() = Some(Instance {
            settings: Settings {
                bucket,
                config: engine_config,
                encryption: config.encryption,
            },
            engine: None,
        });
        Ok(())
    }

    fn run(input: String) -> Result<String, tool::ToolError> {
        match ::memdir::parse_text(&input) {
            Ok(cmd) => run(cmd),
            Err(e) => Err(wit_error(&e.into())),
        }
    }

    fn top_entries() -> Result<tool::Top, tool::ToolError> {
        let top = settled(sealed(with_engine(|e| {
            settle(MountTarget::top_entries(e))
        }))?)?;
        Ok(tool::Top {
            size: top.size,
            entries: top
                .entries
                .into_iter()
                .map(|e| tool::TopEntry {
                    name: e.name,
                    size: e.size,
                    is_dir: e.is_dir,
                })
                .collect(),
        })
    }

    fn execute_json(input: String) -> tool::ToolResult {
        let r = match with_engine(|e| settle(e.execute_json(&input))) {
            Ok(r) => r.unwrap_or_else(|e| ::memdir::ToolResult::of(&Err(e.into()))),
            Err(e) => ::memdir::ToolResult {
                content: format!("Error: {e}"),
                is_error: true,
            },
        };
        tool::ToolResult {
            content: r.content,
            is_error: r.is_error,
        }
    }

    fn api(request: String) -> String {
        match with_engine(|e| settle(e.api_json(&request))) {
            Ok(r) => r.unwrap_or_else(|e| Response::of(Err(ApiError::from(e))).to_json()),
            Err(e) => refused_api(&e),
        }
    }

    fn view(path: String, view_range: Option<(i64, i64)>) -> Result<String, tool::ToolError> {
        run(Command::View { path, view_range })
    }

    fn create(path: String, file_text: String) -> Result<String, tool::ToolError> {
        run(Command::Create { path, file_text })
    }

    fn str_replace(
        path: String,
        old_str: String,
        new_str: String,
    ) -> Result<String, tool::ToolError> {
        run(Command::StrReplace {
            path,
            old_str,
            new_str,
        })
    }

    fn insert(
        path: String,
        insert_line: i64,
        insert_text: String,
    ) -> Result<String, tool::ToolError> {
        run(Command::Insert {
            path,
            insert_line: insert_line.into(),
            insert_text,
        })
    }

    fn delete(path: String) -> Result<String, tool::ToolError> {
        run(Command::Delete { path })
    }

    fn rename(old_path: String, new_path: String) -> Result<String, tool::ToolError> {
        run(Command::Rename { old_path, new_path })
    }

    fn entries() -> Result<Vec<tool::Entry>, tool::ToolError> {
        let entries = settled(sealed(with_engine(|e| settle(e.entries())))?)?;
        Ok(entries
            .into_iter()
            .map(|e| tool::Entry {
                path: e.path,
                content: e.content,
            })
            .collect())
    }

    fn import(entries: Vec<tool::Entry>) -> Result<(), tool::ToolError> {
        let entries: Vec<::memdir::Entry> = entries
            .into_iter()
            .map(|e| ::memdir::Entry {
                path: e.path,
                content: e.content,
            })
            .collect();
        settled(sealed(with_engine(|e| settle(e.import(&entries))))?)
    }

    fn expire(older_than_ms: u64) -> Result<tool::ExpireReport, tool::ToolError> {
        let r = settled(sealed(with_engine(|e| settle(e.expire(older_than_ms))))?)?;
        Ok(tool::ExpireReport {
            removed: widen(r.removed),
            bytes: r.bytes,
        })
    }

    fn gc(keep_commits: u32) -> Result<tool::GcReport, tool::ToolError> {
        let r = settled(sealed(with_engine(|e| settle(e.gc(keep_commits))))?)?;
        Ok(tool::GcReport {
            reachable: widen(r.reachable),
            deleted: widen(r.deleted),
            pending: widen(r.pending),
        })
    }

    fn search(request: String) -> Result<String, tool::ToolError> {
        let input = search_input(&request)?;
        let hits = settled_search(sealed(with_engine(|e| settle(e.search_json(&input))))?)?;
        Ok(serde_json::to_string(&hits).unwrap_or_default())
    }

    fn recall(request: String) -> Result<tool::RecallFound, tool::ToolError> {
        let input = search_input(&request)?;
        let found = settled_search(sealed(with_engine(|e| settle(e.recall_found(&input))))?)?;
        Ok(tool::RecallFound {
            items: found
                .items
                .into_iter()
                .map(|i| tool::RecallItem {
                    path: i.path,
                    score: i.score,
                    text: i.text,
                    lines: i
                        .lines
                        .into_iter()
                        .map(|l| tool::RecallLine {
                            line: widen(l.line),
                            text: l.text,
                        })
                        .collect(),
                })
                .collect(),
            max_chars: widen(found.max_chars),
        })
    }

    fn reindex(rounds: u32) -> Result<tool::IndexStatus, tool::ToolError> {
        settled_search(sealed(with_engine(|e| {
            settle(with_vectors(e, e.reindex(rounds), Some(rounds)))
        }))?)
        .map(index_status)
    }

    fn search_status() -> Result<tool::IndexStatus, tool::ToolError> {
        settled_search(sealed(with_engine(|e| {
            settle(with_vectors(e, e.search_status(), None))
        }))?)
        .map(index_status)
    }

    fn toolset(prefix: String, name: String, input: String) -> Result<String, tool::ToolsetError> {
        let answer = with_engine(|e| settle(e.toolset_json(&prefix, &name, &input)))
            .map_err(|e| refused_toolset(&e))?
            .unwrap_or_else(|e| Err(ToolError::from(e).into()));
        answer.map_err(|e| tool::ToolsetError {
            kind: e.kind().into(),
            message: format!("{e}"),
        })
    }

    fn toolset_search_page(prefix: String, input: String) -> Result<String, tool::ToolsetError> {
        let fail = |e: ::memdir::ToolsetError| tool::ToolsetError {
            kind: e.kind().into(),
            message: format!("{e}"),
        };
        let input = ::memdir::toolset::parse_input("memory_search", &input).map_err(fail)?;
        let page = with_engine(|e| settle(e.search_page(&prefix, &input)))
            .map_err(|e| refused_toolset(&e))?
            .unwrap_or_else(|e| Err(ToolError::from(e).into()))
            .map_err(fail)?;
        let answer = serde_json::json!({"hits": page.0, "next_page": page.1});
        Ok(serde_json::to_string(&answer).unwrap_or_default())
    }

    fn toolset_tools() -> String {
        ::memdir::toolset::definitions_json(&::memdir::toolset::TOOLS)
    }

    fn seal_status() -> Result<String, tool::ToolError> {
        let status = with_engine(|e| settle(e.store().status()))
            .map_err(|e| seal_error(&e))?
            .map_err(|e| seal_error(&SealError::Storage(e)))?
            .map_err(|e| seal_error(&e))?;
        Ok(status.to_json())
    }

    fn rekey(new: tool::Encryption) -> Result<u64, tool::ToolError> {
        read_write("rekey", "re-key")?;
        let (key, fresh) = key_of(&new).map_err(|e| seal_error(&e))?;
        let moved = with_engine(|e| settle(e.store().rekey(key, fresh)))
            .map_err(|e| seal_error(&e))?
            .map_err(|e| seal_error(&SealError::Storage(e)))?
            .map_err(|e| seal_error(&e))?;
        // From now on the instance opens the store with the new key: the engine
        // is dropped and reopened by the next call.
        if let Some(instance) = INSTANCE.0.borrow_mut().as_mut() {
            instance.settings.encryption = Some(new);
            instance.engine = None;
        }
        Ok(widen(moved.moved))
    }

    fn encrypt(key: tool::Encryption) -> Result<(), tool::ToolError> {
        read_write("encrypt", "encrypt")?;
        let (k, fresh) = key_of(&key).map_err(|e| seal_error(&e))?;
        let mut slot = INSTANCE.0.borrow_mut();
        let instance = slot.get_or_insert_with(Instance::default);
        let bucket = &instance.settings.bucket;
        let sealed = settle(Sealed::encrypt(KvStore::new(bucket), k, fresh))
            .map_err(|e| seal_error(&SealError::Storage(e)))?
            .map_err(|e| seal_error(&e))?;
        let store = Opening::opened(bucket, sealed);
        instance.engine = Some(new_engine(store, instance.settings.config.clone()));
        instance.settings.encryption = Some(key);
        Ok(())
    }
}

/// Refuses `what` (`rekey`, `encrypt`) on a store mounted read-only, in the npm
/// package's words: it rewrites every stored value (and locks the store's other
/// readers out until they have the key), so it follows the mount's access like
/// every other write.
fn read_write(what: &str, verb: &str) -> Result<(), tool::ToolError> {
    let slot = INSTANCE.0.borrow();
    let Some(config) = slot.as_ref().map(|i| &i.settings.config) else {
        return Ok(());
    };
    if !config.read_only {
        return Ok(());
    }
    Err(tool::ToolError {
        kind: tool::ErrorKind::Refused,
        message: format!(
            "{what}: the store at /memories/{} is mounted read-only; {verb} it where it is opened read-write",
            config.mount
        ),
    })
}

/// The Memory Stores API's answer when the store will not open: a 500 whose
/// error object carries the seal's words (as the host words a fault).
fn refused_api(e: &SealError) -> String {
    let error = match e {
        SealError::Storage(s) => return Response::of(Err(ApiError::from(*s))).to_json(),
        SealError::Damaged => ApiError::Damaged,
        _ => ApiError::Storage,
    };
    let mut r = Response::of(Err(error));
    if let Some(obj) = r.body.get_mut("error").and_then(|o| o.as_object_mut()) {
        obj.insert("message".into(), format!("{e}").into());
    }
    r.to_json()
}

/// The toolset's failure when the store will not open: the kind `seal_error`
/// gives, as the toolset spells kinds, and the seal's words.
fn refused_toolset(e: &SealError) -> tool::ToolsetError {
    let kind = match e {
        SealError::Storage(s) => {
            let t = ::memdir::ToolsetError::from(ToolError::from(*s));
            return tool::ToolsetError {
                kind: t.kind().into(),
                message: format!("{t}"),
            };
        }
        SealError::Damaged => "damaged",
        SealError::BadKey | SealError::BadKeyId => "input",
        _ => "refused",
    };
    tool::ToolsetError {
        kind: kind.into(),
        message: format!("{e}"),
    }
}

export!(Component);
