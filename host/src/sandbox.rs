//! Running the component so that no input can harm the host: a linker that holds
//! only the world's three imports, a memory cap, a fuel budget per call, and a fresh
//! instance whenever one traps.

use std::path::Path;
use std::sync::Arc;

use memdir::ApiError;
use memdir::config::Config;
use memdir::mounts::{Top, TopEntry};
use memdir::seal::{Key, SealError};
use memdir::search::{Line, RecallFound, RecallItem};
use memdir::{
    Command, Entry, ErrorKind, ExpireReport, GcReport, InputError, ToolError, ToolResult,
    ToolsetError,
};
use wasmtime::component::{Component, HasSelf, Linker, types::ComponentItem};
use wasmtime::{Engine, Store, Trap};
use zeroize::Zeroizing;

use crate::backend::Backend;
use crate::bindings::exports::memdir::memory::tool;
use crate::bindings::{Memdir, MemdirPre};
use crate::keyvalue::State;
use crate::limiter::{Limiter, OverMemory};
use crate::messages::{self, Fault};

/// What the host allows one instance and one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostLimits {
    /// Largest linear memory of an instance, in bytes.
    pub memory_bytes: usize,
    /// Fuel (about one unit per wasm instruction) for one call; it bounds the time a
    /// call can take whatever the input.
    pub fuel: u64,
    /// Longest tool input accepted, in bytes; longer inputs never reach the guest.
    /// Default: the engine's own cap (`memdir::config::MAX_INPUT_BYTES`).
    pub max_input_bytes: usize,
}

impl Default for HostLimits {
    fn default() -> Self {
        HostLimits {
            memory_bytes: 256 << 20,
            fuel: 20_000_000_000,
            max_input_bytes: memdir::config::MAX_INPUT_BYTES,
        }
    }
}

/// The engine's settings as the component takes them (`configure`): everything
/// the npm package's `openMemory` takes, plus the bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolConfig {
    pub engine: Config,
    /// The bucket the component opens; the host serves only this one.
    pub bucket: String,
    /// The store is encrypted at rest with this key; None: plaintext.
    pub encryption: Option<Encryption>,
}

impl Default for ToolConfig {
    fn default() -> Self {
        ToolConfig {
            engine: Config::default(),
            bucket: "default".into(),
            encryption: None,
        }
    }
}

/// An application key for encryption at rest (docs/encryption.md): 32 bytes and
/// an optional id (None: the engine derives one from the key). Checked by the
/// engine's own `memdir::seal::Key` when made, so a bad key is refused in its
/// words before any instance starts. `Debug` shows the id alone: no error, log or
/// answer of the host ever holds the key's bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Encryption {
    /// Wiped when dropped, as the engine's own `Key` is.
    key: Zeroizing<[u8; 32]>,
    key_id: Option<String>,
}

impl std::fmt::Debug for Encryption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encryption")
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

impl Encryption {
    /// A key of 32 bytes, and its id.
    pub fn new(key: &[u8], key_id: Option<&str>) -> Result<Self, SealError> {
        let bytes: [u8; 32] = key.try_into().map_err(|_| SealError::BadKey)?;
        Key::new(bytes, key_id)?;
        Ok(Encryption {
            key: Zeroizing::new(bytes),
            key_id: key_id.map(String::from),
        })
    }

    /// A key as a key file holds it: 64 hex characters, one trailing `\n` or
    /// `\r\n` allowed (`memdir::seal::Key::from_hex` decides).
    pub fn from_hex(text: &str, key_id: Option<&str>) -> Result<Self, SealError> {
        Key::from_hex(text, key_id)?;
        // Accepted, so the first 64 characters are the key's hex digits.
        let mut bytes = Zeroizing::new([0u8; 32]);
        for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            let digits = std::str::from_utf8(pair).map_err(|_| SealError::BadKey)?;
            *byte = u8::from_str_radix(digits, 16).map_err(|_| SealError::BadKey)?;
        }
        Ok(Encryption {
            key: bytes,
            key_id: key_id.map(String::from),
        })
    }

    /// The key's id as given (None: derived by the engine from the key).
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// The record the component takes, with 32 fresh random bytes from the
    /// operating system (the world imports no random source); None when the
    /// system has none to give.
    fn wit(&self) -> Option<tool::Encryption> {
        let mut fresh = [0u8; 32];
        getrandom::fill(&mut fresh).ok()?;
        Some(tool::Encryption {
            key: self.key.to_vec(),
            key_id: self.key_id.clone(),
            fresh: fresh.to_vec(),
        })
    }
}

/// What the component's `defaults` export says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentDefaults {
    pub config: ToolConfig,
    pub keep_commits: u32,
    pub max_input_bytes: u64,
    pub max_retries_cap: u32,
}

/// Why a host call failed: the engine's answer (with its kind), or the sandbox's
/// (a fault, or an input refused before the guest). `Display` is the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallError {
    pub kind: CallErrorKind,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallErrorKind {
    Tool(ErrorKind),
    Fault(Fault),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CallError {}

impl CallError {
    fn fault(fault: Fault, published: bool) -> Self {
        CallError {
            kind: CallErrorKind::Fault(fault),
            message: messages::fault(fault, published),
        }
    }

    fn input(e: InputError) -> Self {
        CallError {
            kind: CallErrorKind::Tool(ErrorKind::Input),
            message: e.to_string(),
        }
    }

    /// True when the failure is the storage's or the sandbox's, not an answer to
    /// the command (the CLI exits 2 for these, as for any I/O error).
    pub fn is_io(&self) -> bool {
        matches!(
            self.kind,
            CallErrorKind::Fault(_)
                | CallErrorKind::Tool(
                    ErrorKind::StorageFull
                        | ErrorKind::StorageUnavailable
                        | ErrorKind::StorageFailed
                        | ErrorKind::Damaged
                )
        )
    }
}

/// The engine's own failure, decided in the host (a refusal of the mounted memory).
impl From<ToolError> for CallError {
    fn from(e: ToolError) -> Self {
        CallError {
            kind: CallErrorKind::Tool(e.kind()),
            message: e.to_string(),
        }
    }
}

/// Why a memory-store toolset call failed: the toolset's kind
/// (`memdir::ToolsetError::kind`: `input`, `not_found`, ...) or the sandbox's fault
/// (`fuel`, `memory`, `trap`, `start`), and the text the model reads. `Display` is
/// the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolsetFailure {
    pub kind: String,
    pub message: String,
}

impl std::fmt::Display for ToolsetFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolsetFailure {}

/// The toolset's own refusal, decided in the host (a mounted memory's routing).
impl From<ToolsetError> for ToolsetFailure {
    fn from(e: ToolsetError) -> Self {
        ToolsetFailure {
            kind: e.kind().into(),
            message: e.to_string(),
        }
    }
}

/// A call the sandbox stopped, or an input refused before the guest.
impl From<CallError> for ToolsetFailure {
    fn from(e: CallError) -> Self {
        let kind = match e.kind {
            CallErrorKind::Fault(f) => f.name(),
            CallErrorKind::Tool(k) => k.name(),
        };
        ToolsetFailure {
            kind: kind.into(),
            message: e.message,
        }
    }
}

/// How far the stored search index is (`memdir::search::IndexStatus`) and, when
/// the host lends an embedder, its vectors (as JS's `memory.searchStatus()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexStatus {
    /// Memories indexed.
    pub indexed: u64,
    /// Whether writes since the index last caught up, or texts without a vector,
    /// wait.
    pub pending: bool,
    /// The embedder's vectors; `None` without one.
    pub vectors: Option<memdir::search::VectorStatus>,
}

impl From<tool::IndexStatus> for IndexStatus {
    fn from(s: tool::IndexStatus) -> Self {
        IndexStatus {
            indexed: s.indexed,
            pending: s.pending,
            vectors: s.vectors.map(|v| memdir::search::VectorStatus {
                fingerprint: v.fingerprint,
                indexed: v.indexed,
                pending: v.pending,
            }),
        }
    }
}

fn from_wit(e: tool::ToolError) -> CallError {
    use tool::ErrorKind as W;
    let kind = match e.kind {
        W::Input => ErrorKind::Input,
        W::Path => ErrorKind::Path,
        W::Refused => ErrorKind::Refused,
        W::Limit => ErrorKind::Limit,
        W::Secret => ErrorKind::Secret,
        W::StorageFull => ErrorKind::StorageFull,
        W::StorageUnavailable => ErrorKind::StorageUnavailable,
        W::StorageFailed => ErrorKind::StorageFailed,
        W::Damaged => ErrorKind::Damaged,
        W::Busy => ErrorKind::Busy,
    };
    CallError {
        kind: CallErrorKind::Tool(kind),
        message: e.message,
    }
}

fn engine() -> wasmtime::Result<Engine> {
    let mut config = wasmtime::Config::new();
    config.consume_fuel(true);
    Engine::new(&config)
}

/// A compiled component, ready to instantiate; clones share the compilation.
#[derive(Clone)]
pub struct Runtime {
    component: Component,
    pre: MemdirPre<State>,
}

impl Runtime {
    /// Compiles `bytes` (a component binary). Fails if the component imports
    /// anything beyond `wasi:keyvalue/store`, `wasi:keyvalue/atomics`,
    /// `wasi:clocks/wall-clock` and `memdir:memory/embedder`: the linker has nothing
    /// else to give it.
    pub fn from_bytes(bytes: &[u8]) -> wasmtime::Result<Self> {
        let engine = engine()?;
        let component = Component::new(&engine, bytes)?;
        Self::link(engine, component)
    }

    /// [`Runtime::from_bytes`], keeping the compilation in `cache_dir` (see [`crate::cache`]).
    pub fn from_bytes_cached(bytes: &[u8], cache_dir: &Path) -> wasmtime::Result<Self> {
        let engine = engine()?;
        let component = crate::cache::load_or_compile(&engine, bytes, cache_dir)?;
        Self::link(engine, component)
    }

    fn link(engine: Engine, component: Component) -> wasmtime::Result<Self> {
        let mut linker = Linker::<State>::new(&engine);
        Memdir::add_to_linker::<State, HasSelf<State>>(&mut linker, |s| s)?;
        let pre = MemdirPre::new(linker.instantiate_pre(&component)?)?;
        Ok(Runtime { component, pre })
    }

    pub fn from_file(path: impl AsRef<Path>) -> wasmtime::Result<Self> {
        Self::from_bytes(&std::fs::read(path)?)
    }

    /// The component's imports by name, as its type declares them.
    pub fn imports(&self) -> Vec<String> {
        let ty = self.component.component_type();
        ty.imports(self.pre.engine())
            .map(|(name, _)| name.to_string())
            .collect()
    }

    /// The component's exports by name, with the functions of exported interfaces.
    pub fn exports(&self) -> Vec<String> {
        let engine = self.pre.engine();
        let mut out = Vec::new();
        for (name, item) in self.component.component_type().exports(engine) {
            if let ComponentItem::ComponentInstance(inst) = item.ty {
                out.extend(inst.exports(engine).map(|(f, _)| format!("{name}#{f}")));
            } else {
                out.push(name.to_string());
            }
        }
        out
    }

    /// A host serving `backend` to instances of this component.
    pub fn host(&self, backend: Arc<dyn Backend>, limits: HostLimits) -> Host {
        Host {
            runtime: self.clone(),
            backend,
            limits,
            config: ToolConfig::default(),
            live: None,
            embedder: None,
        }
    }
}

struct Live {
    store: Store<State>,
    bindings: Memdir,
}

/// The memory tool in its sandbox, over one backend. Calls run one at a time.
pub struct Host {
    runtime: Runtime,
    backend: Arc<dyn Backend>,
    limits: HostLimits,
    config: ToolConfig,
    live: Option<Live>,
    embedder: crate::embedder::Lent,
}

impl Host {
    /// Compiles the component at `path` and serves `backend` to it.
    pub fn new(
        path: impl AsRef<Path>,
        backend: Arc<dyn Backend>,
        limits: HostLimits,
    ) -> wasmtime::Result<Self> {
        Ok(Runtime::from_file(path)?.host(backend, limits))
    }

    /// Sets the engine's limits, actor and bucket for the calls that follow.
    pub fn configure(&mut self, config: ToolConfig) {
        self.config = config;
        self.live = None;
    }

    /// Sets the host's limits from the next call on (with a fresh instance, so the
    /// memory cap applies from its start).
    pub fn set_limits(&mut self, limits: HostLimits) {
        self.limits = limits;
        self.live = None;
    }

    /// The settings the calls run with (see [`Host::configure`]).
    pub fn config(&self) -> &ToolConfig {
        &self.config
    }

    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// True if an instance is alive (a trap discards it; the next call makes one).
    pub fn is_live(&self) -> bool {
        self.live.is_some()
    }

    /// Lends the component `embedder` (None: none, lexical search only), from the
    /// next instance on: the one running, if any, is let go, since an instance asks
    /// for the embedder once.
    pub fn set_embedder(&mut self, embedder: Option<Arc<dyn crate::embedder::HostEmbedder>>) {
        self.embedder = embedder;
        self.live = None;
    }

    /// Makes an instance now instead of on the first call.
    pub fn start(&mut self) -> Result<(), Fault> {
        self.live().map(|_| ())
    }

    fn live(&mut self) -> Result<&mut Live, Fault> {
        if self.live.is_none() {
            let mut state = State::new(
                self.backend.clone(),
                self.config.bucket.clone(),
                Limiter::new(self.limits.memory_bytes),
            );
            state.embedder = self.embedder.clone();
            let mut store = Store::new(self.runtime.pre.engine(), state);
            store.limiter(|s| &mut s.limiter);
            store.set_fuel(self.limits.fuel).map_err(|_| Fault::Start)?;
            let bindings = self
                .runtime
                .pre
                .instantiate(&mut store)
                .map_err(|_| Fault::Start)?;
            let e = &self.config.engine;
            let widen = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
            let config = tool::Config {
                limits: tool::Limits {
                    max_file_bytes: widen(e.limits.max_file_bytes),
                    max_total_bytes: e.limits.max_total_bytes,
                    read_limit_chars: widen(e.limits.read_limit_chars),
                    max_memories: e.limits.max_memories,
                },
                actor: e.actor.clone(),
                max_retries: e.max_retries,
                secrets: match e.secrets {
                    memdir::SecretPolicy::Allow => tool::SecretPolicy::Allow,
                    memdir::SecretPolicy::Refuse => tool::SecretPolicy::Refuse,
                    memdir::SecretPolicy::Redact => tool::SecretPolicy::Redact,
                },
                bucket: self.config.bucket.clone(),
                mount: e.mount.clone(),
                read_only: e.read_only,
                encryption: match &self.config.encryption {
                    Some(k) => Some(k.wit().ok_or(Fault::Start)?),
                    None => None,
                },
            };
            // A mount name the component refuses (see `memdir::mounts::check`) starts
            // no instance: the mounted memory checks its names before it gets here.
            bindings
                .memdir_memory_tool()
                .call_configure(&mut store, &config)
                .ok()
                .and_then(Result::ok)
                .ok_or(Fault::Start)?;
            self.live = Some(Live { store, bindings });
        }
        self.live.as_mut().ok_or(Fault::Start)
    }

    /// Runs one export with a fresh fuel budget; on a trap the instance is dropped
    /// (a trapped instance may hold broken state) and the fault says why.
    /// `writes`: whether the call may change the store; only such a call takes the
    /// turn (see `Backend::turn`), since a read is in no compare-and-swap race.
    fn call<R>(
        &mut self,
        writes: bool,
        f: impl FnOnce(&tool::Guest, &mut Store<State>) -> wasmtime::Result<R>,
    ) -> Result<R, (Fault, bool)> {
        let fuel = self.limits.fuel;
        // Held for the whole call, released before returning.
        let turn = if writes { self.backend.turn() } else { None };
        let live = self.live().map_err(|f| (f, false))?;
        if live.store.set_fuel(fuel).is_err() {
            self.live = None;
            return Err((Fault::Start, false));
        }
        live.store.data_mut().published = false;
        let outcome = f(live.bindings.memdir_memory_tool(), &mut live.store);
        drop(turn);
        match outcome {
            Ok(r) => Ok(r),
            Err(e) => {
                let published = live.store.data().published;
                self.live = None;
                let fault = if e.downcast_ref::<Trap>() == Some(&Trap::OutOfFuel) {
                    Fault::Fuel
                } else if e.downcast_ref::<OverMemory>().is_some() {
                    Fault::Memory
                } else {
                    Fault::Trap
                };
                Err((fault, published))
            }
        }
    }

    /// The raw face: a tool input (JSON text) in, a `tool_result` out. Never fails:
    /// refusals, storage errors and traps are all answers with `is_error`.
    pub fn execute_json(&mut self, input: &str) -> ToolResult {
        if input.len() > self.limits.max_input_bytes {
            return error(&self.too_large());
        }
        match self.call(input_may_write(input), |g, s| g.call_execute_json(s, input)) {
            Ok(r) => ToolResult {
                content: r.content,
                is_error: r.is_error,
            },
            Err((fault, published)) => error(&CallError::fault(fault, published)),
        }
    }

    /// The Memory Stores API (docs/memory-stores.md): one request as JSON text in,
    /// the JSON text of `{status, body}` out. Never fails: a request over
    /// [`HostLimits::max_input_bytes`] is a 413 and a call stopped in the sandbox a
    /// 500, with the engine's error object and the host's own words.
    pub fn api(&mut self, request: &str) -> String {
        if request.len() > self.limits.max_input_bytes {
            let text = messages::request_too_large(self.limits.max_input_bytes);
            return memdir::api::Response::of(Err(ApiError::TooLarge(text))).to_json();
        }
        match self.call(request_may_write(request), |g, s| g.call_api(s, request)) {
            Ok(answer) => answer,
            Err((fault, published)) => {
                let mut r = memdir::api::Response::of(Err(ApiError::Storage));
                if let Some(error) = r.body.get_mut("error").and_then(|e| e.as_object_mut()) {
                    error.insert("message".into(), messages::fault(fault, published).into());
                }
                r.to_json()
            }
        }
    }

    /// [`Host::execute_json`] for raw bytes (a command line, a line of stdin).
    pub fn execute_bytes(&mut self, input: &[u8]) -> ToolResult {
        if input.len() > self.limits.max_input_bytes {
            return error(&self.too_large());
        }
        match std::str::from_utf8(input) {
            Ok(s) => self.execute_json(s),
            Err(_) => error(&CallError::input(InputError::NotUtf8)),
        }
    }

    /// The refusal of an input over [`HostLimits::max_input_bytes`].
    pub fn too_large(&self) -> CallError {
        CallError::input(InputError::TooLarge {
            limit: self.limits.max_input_bytes,
        })
    }

    /// A call whose `args` are held to the same size limit as a raw input.
    fn typed<R>(
        &mut self,
        writes: bool,
        args: &[&str],
        f: impl FnOnce(&tool::Guest, &mut Store<State>) -> wasmtime::Result<Result<R, tool::ToolError>>,
    ) -> Result<R, CallError> {
        let n = args
            .iter()
            .map(|a| a.len())
            .fold(0usize, usize::saturating_add);
        if n > self.limits.max_input_bytes {
            return Err(self.too_large());
        }
        match self.call(writes, f) {
            Ok(r) => r.map_err(from_wit),
            Err((fault, published)) => Err(CallError::fault(fault, published)),
        }
    }

    /// The typed face, one method per command: the success text, or the failure
    /// with its kind (its message has no `Error: `).
    pub fn view(
        &mut self,
        path: &str,
        view_range: Option<(i64, i64)>,
    ) -> Result<String, CallError> {
        self.typed(false, &[path], |g, s| g.call_view(s, path, view_range))
    }

    pub fn create(&mut self, path: &str, file_text: &str) -> Result<String, CallError> {
        self.typed(true, &[path, file_text], |g, s| {
            g.call_create(s, path, file_text)
        })
    }

    pub fn str_replace(
        &mut self,
        path: &str,
        old_str: &str,
        new_str: &str,
    ) -> Result<String, CallError> {
        self.typed(true, &[path, old_str, new_str], |g, s| {
            g.call_str_replace(s, path, old_str, new_str)
        })
    }

    pub fn insert(
        &mut self,
        path: &str,
        insert_line: i64,
        insert_text: &str,
    ) -> Result<String, CallError> {
        self.typed(true, &[path, insert_text], |g, s| {
            g.call_insert(s, path, insert_line, insert_text)
        })
    }

    pub fn delete(&mut self, path: &str) -> Result<String, CallError> {
        self.typed(true, &[path], |g, s| g.call_delete(s, path))
    }

    pub fn rename(&mut self, old_path: &str, new_path: &str) -> Result<String, CallError> {
        self.typed(true, &[old_path, new_path], |g, s| {
            g.call_rename(s, old_path, new_path)
        })
    }

    /// A tool input as JSON text, passed to the engine unchanged (the raw face's
    /// input), answered as the typed faces answer: the success text, or the failure
    /// with its kind. Where [`Host::execute_json`] answers `Error: {message}`, this
    /// fails with that message, so a face that raises (Python) keeps the kind and
    /// the engine's exact words.
    pub fn run_json(&mut self, input: &str) -> Result<String, CallError> {
        self.typed(input_may_write(input), &[input], |g, s| {
            g.call_run(s, input)
        })
    }

    /// A parsed command (the typed face for a whole tool input), crossing into the
    /// component as JSON: the success text, or the failure with its kind.
    pub fn run(&mut self, cmd: &Command) -> Result<String, CallError> {
        let input = cmd.to_value().to_string();
        let writes = !matches!(cmd, Command::View { .. });
        self.typed(writes, &[&input], |g, s| g.call_run(s, &input))
    }

    /// The store's total size and visible top entries (for `view /memories` across
    /// mounts; see `memdir::mounts::MountTarget`).
    pub fn top_entries(&mut self) -> Result<Top, CallError> {
        let top = self.typed(false, &[], |g, s| g.call_top_entries(s))?;
        Ok(Top {
            size: top.size,
            entries: top
                .entries
                .into_iter()
                .map(|e| TopEntry {
                    name: e.name,
                    size: e.size,
                    is_dir: e.is_dir,
                })
                .collect(),
        })
    }

    /// Every directory and file of the tree (see `memdir::Engine::entries`).
    pub fn entries(&mut self) -> Result<Vec<Entry>, CallError> {
        let out = self.typed(false, &[], |g, s| g.call_entries(s))?;
        Ok(out
            .into_iter()
            .map(|e| Entry {
                path: e.path,
                content: e.content,
            })
            .collect())
    }

    /// Replaces the whole tree, all or nothing (see `memdir::Engine::import`).
    pub fn import(&mut self, entries: &[Entry]) -> Result<(), CallError> {
        let n = entries
            .iter()
            .map(|e| {
                e.path
                    .len()
                    .saturating_add(e.content.as_ref().map_or(0, String::len))
            })
            .fold(0usize, usize::saturating_add);
        if n > self.limits.max_input_bytes {
            return Err(self.too_large());
        }
        let wit: Vec<tool::Entry> = entries
            .iter()
            .map(|e| tool::Entry {
                path: e.path.clone(),
                content: e.content.clone(),
            })
            .collect();
        self.typed(true, &[], |g, s| g.call_import(s, &wit))
    }

    /// Removes what was not written in the last `older_than_ms` (see
    /// `memdir::Engine::expire`).
    pub fn expire(&mut self, older_than_ms: u64) -> Result<ExpireReport, CallError> {
        let r = self.typed(true, &[], |g, s| g.call_expire(s, older_than_ms))?;
        let n = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
        Ok(ExpireReport {
            removed: n(r.removed),
            bytes: r.bytes,
        })
    }

    /// The component's own defaults (`defaults` export): the engine's settings, the
    /// gc keep count, the input cap and the retry cap, as `memdir::config` has them.
    pub fn component_defaults(&mut self) -> Result<ComponentDefaults, CallError> {
        let d = self
            .call(false, |g, s| g.call_defaults(s))
            .map_err(|(fault, published)| CallError::fault(fault, published))?;
        let c = d.config;
        let narrow = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let engine = Config {
            limits: memdir::config::Limits {
                max_file_bytes: narrow(c.limits.max_file_bytes),
                max_total_bytes: c.limits.max_total_bytes,
                read_limit_chars: narrow(c.limits.read_limit_chars),
                max_memories: c.limits.max_memories,
            },
            actor: c.actor,
            max_retries: c.max_retries,
            secrets: match c.secrets {
                tool::SecretPolicy::Allow => memdir::SecretPolicy::Allow,
                tool::SecretPolicy::Refuse => memdir::SecretPolicy::Refuse,
                tool::SecretPolicy::Redact => memdir::SecretPolicy::Redact,
            },
            mount: c.mount,
            read_only: c.read_only,
        };
        Ok(ComponentDefaults {
            config: ToolConfig {
                engine,
                bucket: c.bucket,
                encryption: None,
            },
            keep_commits: d.keep_commits,
            max_input_bytes: d.max_input_bytes,
            max_retries_cap: d.max_retries_cap,
        })
    }

    /// Collects unreferenced objects (see `memdir::Engine::gc`).
    pub fn gc(&mut self, keep_commits: u32) -> Result<GcReport, CallError> {
        let r = self.typed(true, &[], |g, s| g.call_gc(s, keep_commits))?;
        let n = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
        Ok(GcReport {
            reachable: n(r.reachable),
            deleted: n(r.deleted),
            pending: n(r.pending),
        })
    }

    /// `memory.search` (`memdir::Engine::search_json`): `{"query", "limit"?, "path_prefix"?}` as
    /// JSON text in, the JSON text of `[{"path", "score", "lines": [{"line",
    /// "text"}]}]` out, best first (`memdir::Engine::search_json`). A search
    /// brings the stored index up to date, so it may write the index, never the
    /// tree; it takes no turn, as a read does (the index's save has its own retry).
    pub fn search_json(&mut self, request: &str) -> Result<String, CallError> {
        self.typed(false, &[request], |g, s| g.call_search(s, request))
    }

    /// The `memory_find` tool (`memdir::mounts::FIND_TOOL`) on the model's input
    /// (JSON text): the search's hits as the text every face of the tool answers
    /// (`memdir::mounts::find_answer`).
    pub fn find_text(&mut self, input: &str) -> Result<String, CallError> {
        let hits = self.search_json(input)?;
        let pending = self.search_status()?.pending;
        Ok(find_text_of(input, &hits, pending))
    }

    /// What `memory.recall` found for `{"query", "limit"?, "max_chars"?,
    /// "path_prefix"?}` (JSON text), before the block is made.
    pub fn recall_found(&mut self, request: &str) -> Result<RecallFound, CallError> {
        let found = self.typed(false, &[request], |g, s| g.call_recall(s, request))?;
        let n = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
        Ok(RecallFound {
            items: found
                .items
                .into_iter()
                .map(|i| RecallItem {
                    path: i.path,
                    score: i.score,
                    text: i.text,
                    lines: i
                        .lines
                        .into_iter()
                        .map(|l| Line {
                            line: n(l.line),
                            text: l.text,
                        })
                        .collect(),
                })
                .collect(),
            max_chars: n(found.max_chars),
        })
    }

    /// `memory.recall`: the block of the most relevant memories for a system
    /// prompt, within `max_chars` (`memdir::search::recall_block`); `""` when
    /// nothing was found or fits.
    pub fn recall_json(&mut self, request: &str) -> Result<String, CallError> {
        Ok(recall_text(&self.recall_found(request)?))
    }

    /// Brings the search index up to the head: at most `rounds` calls, each of
    /// one budget of work (`memdir::config::SEARCH_INDEX_WORK` memories) and its
    /// own fuel, until none is pending; how far it is.
    pub fn reindex(&mut self, rounds: u32) -> Result<IndexStatus, CallError> {
        let mut status = self.search_status()?;
        for _ in 0..rounds {
            if !status.pending {
                break;
            }
            status = self.typed(true, &[], |g, s| g.call_reindex(s, 1))?.into();
        }
        Ok(status)
    }

    /// How far the search index is, without bringing it up to date.
    pub fn search_status(&mut self) -> Result<IndexStatus, CallError> {
        Ok(self
            .typed(false, &[], |g, s| g.call_search_status(s))?
            .into())
    }

    /// The memory-store toolset (docs/toolset.md): tool `name` on `input` (JSON
    /// text) over this store, every path shown under `prefix` (`""`, or where the
    /// store is mounted for the model, such as `/team`).
    pub fn toolset(
        &mut self,
        prefix: &str,
        name: &str,
        input: &str,
    ) -> Result<String, ToolsetFailure> {
        let writes = !memdir::toolset::TOOLS
            .iter()
            .any(|t| t.name == name && t.read_only);
        let answer = self.typed(writes, &[prefix, name, input], |g, s| {
            Ok(Ok(g.call_toolset(s, prefix, name, input)?))
        })?;
        answer.map_err(|e| ToolsetFailure {
            kind: e.kind,
            message: e.message,
        })
    }

    /// One page of `memory_search` over this store, paths shown under `prefix`:
    /// its hits and the next page's token (for a search of every mounted store).
    pub fn toolset_search_page(
        &mut self,
        prefix: &str,
        input: &str,
    ) -> Result<(Vec<serde_json::Value>, Option<String>), ToolsetFailure> {
        let answer = self.typed(false, &[prefix, input], |g, s| {
            Ok(Ok(g.call_toolset_search_page(s, prefix, input)?))
        })?;
        let text = answer.map_err(|e| ToolsetFailure {
            kind: e.kind,
            message: e.message,
        })?;
        let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let hits = v
            .get("hits")
            .and_then(|h| h.as_array())
            .cloned()
            .unwrap_or_default();
        let next = v
            .get("next_page")
            .and_then(|n| n.as_str())
            .map(String::from);
        Ok((hits, next))
    }

    /// How the store is encrypted: the JSON text `{"encrypted", "keyId",
    /// "rotatingFrom"}`. Opens the store, so it also checks that the configured key
    /// (or its absence) opens it: a refusal is the engine's, kind `refused`.
    pub fn seal_status(&mut self) -> Result<String, CallError> {
        self.typed(false, &[], |g, s| g.call_seal_status(s))
    }

    /// Re-encrypts the store under `new` (`memdir::seal::Sealed::rekey`): in
    /// bounded steps, each saved, so a call cut short (a crash, a fault) leaves a
    /// store both keys open and calling again with the same `new` finishes. How
    /// many values moved; the calls that follow run under `new`.
    pub fn rekey(&mut self, new: &Encryption) -> Result<u64, CallError> {
        let wit = new
            .wit()
            .ok_or_else(|| CallError::fault(Fault::Start, false))?;
        let started = std::time::Instant::now();
        let moved = self.typed(true, &[], |g, s| g.call_rekey(s, &wit))?;
        self.config.encryption = Some(new.clone());
        self.sweep_since(started);
        Ok(moved)
    }

    /// Turns the plaintext store into one encrypted with `key`
    /// (`memdir::seal::Sealed::encrypt`), resumably as [`Host::rekey`]; the calls
    /// that follow run under `key`.
    pub fn encrypt(&mut self, key: &Encryption) -> Result<(), CallError> {
        let wit = key
            .wit()
            .ok_or_else(|| CallError::fault(Fault::Start, false))?;
        let started = std::time::Instant::now();
        self.typed(true, &[], |g, s| g.call_encrypt(s, &wit))?;
        self.config.encryption = Some(key.clone());
        self.sweep_since(started);
        Ok(())
    }

    /// After a finished re-encryption, in the backend's turn: what writers killed
    /// before this run began left behind (an earlier run cut by SIGKILL may have
    /// left a temporary holding a value in clear) is removed.
    fn sweep_since(&self, started: std::time::Instant) {
        let _turn = self.backend.turn();
        let age = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.backend.sweep_left_behind(age);
    }

    /// The toolset's definitions as the component has them (JSON text
    /// `[{"name", "description", "input_schema", "read_only"}]`).
    pub fn toolset_tools(&mut self) -> Result<String, CallError> {
        self.call(false, |g, s| g.call_toolset_tools(s))
            .map_err(|(fault, published)| CallError::fault(fault, published))
    }
}

/// The recall block of what was found.
pub(crate) fn recall_text(found: &RecallFound) -> String {
    let items: Vec<memdir::search::Recalled<'_>> =
        found.items.iter().map(RecallItem::recalled).collect();
    memdir::search::recall_block(&items, found.max_chars)
}

fn error(e: &CallError) -> ToolResult {
    ToolResult {
        content: format!("Error: {e}"),
        is_error: true,
    }
}

/// Whether a tool input (JSON text) may change the store: anything but a command
/// the engine lists as read-only, a malformed input included (it is refused
/// anyway, and taking the turn for it costs nothing but time).
fn input_may_write(input: &str) -> bool {
    let command = serde_json::from_str::<serde_json::Value>(input)
        .ok()
        .and_then(|v| v.get("command")?.as_str().map(String::from));
    !command.is_some_and(|c| memdir::READ_ONLY_COMMANDS.contains(&c.as_str()))
}

/// Whether a Memory Stores API request (JSON text) may change the store: an
/// operation the engine lists among its writes, or one it cannot tell.
fn request_may_write(request: &str) -> bool {
    let op = serde_json::from_str::<serde_json::Value>(request)
        .ok()
        .and_then(|v| v.get("op")?.as_str().map(String::from));
    op.is_none_or(|op| memdir::api::WRITE_OPS.contains(&op.as_str()))
}

/// [`memdir::mounts::find_answer`] over a search's answer `hits` (the JSON text
/// of `[{"path", "score", "lines": [{"line", "text"}]}]`) for the request
/// `input`, which the search has checked.
pub(crate) fn find_text_of(input: &str, hits: &str, pending: bool) -> String {
    let query = serde_json::from_str::<serde_json::Value>(input)
        .ok()
        .and_then(|v| v.get("query")?.as_str().map(String::from))
        .unwrap_or_default();
    let hits: Vec<memdir::search::Hit> = match serde_json::from_str::<serde_json::Value>(hits) {
        Ok(serde_json::Value::Array(found)) => found
            .iter()
            .map(|h| memdir::search::Hit {
                path: h["path"].as_str().unwrap_or_default().to_owned(),
                score: h["score"].as_f64().unwrap_or_default(),
                memory: 0,
                lines: h["lines"]
                    .as_array()
                    .map(|ls| {
                        ls.iter()
                            .map(|l| Line {
                                line: l["line"]
                                    .as_u64()
                                    .and_then(|n| usize::try_from(n).ok())
                                    .unwrap_or_default(),
                                text: l["text"].as_str().unwrap_or_default().to_owned(),
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect(),
        _ => Vec::new(),
    };
    memdir::mounts::find_answer(&query, &hits, pending)
}
