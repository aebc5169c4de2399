//! Running the component so that no input can harm the host: a linker that holds
//! only the world's three imports, a memory cap, a fuel budget per call, and a fresh
//! instance whenever one traps.

use std::path::Path;
use std::sync::Arc;

use memdir::{Entry, GcReport, ToolResult};
use wasmtime::component::{Component, HasSelf, Linker, types::ComponentItem};
use wasmtime::{Engine, ResourceLimiter, Store, Trap};

use crate::backend::Backend;
use crate::bindings::exports::memdir::memory::tool;
use crate::bindings::{Memdir, MemdirPre};
use crate::keyvalue::State;
use crate::messages;

/// What the host allows one instance and one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostLimits {
    /// Largest linear memory of an instance, in bytes.
    pub memory_bytes: usize,
    /// Fuel (about one unit per wasm instruction) for one call; it bounds the time a
    /// call can take whatever the input.
    pub fuel: u64,
    /// Longest tool input accepted, in bytes; longer inputs never reach the guest.
    pub max_input_bytes: usize,
}

impl Default for HostLimits {
    fn default() -> Self {
        HostLimits { memory_bytes: 256 << 20, fuel: 20_000_000_000, max_input_bytes: 8 << 20 }
    }
}

/// The engine's settings as the component takes them (`configure`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolConfig {
    pub limits: memdir::Limits,
    pub actor: String,
    /// The bucket the component opens; the host serves only this one.
    pub bucket: String,
}

impl Default for ToolConfig {
    fn default() -> Self {
        ToolConfig { limits: memdir::Limits::default(), actor: String::new(), bucket: "default".into() }
    }
}

/// Why a call produced no answer from the component. The store holds nothing of it
/// either way: only the final compare-and-swap publishes a command's effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The call used up its fuel.
    Fuel,
    /// The instance asked for more memory than [`HostLimits::memory_bytes`].
    Memory,
    /// Any other trap (the engine never panics by design; this is the net).
    Trap,
    /// The instance could not be created (for example a memory cap below its needs).
    Start,
}

/// Refused memory growth; the trap it raises is recognised by its type.
#[derive(Debug)]
struct OverMemory;

impl std::fmt::Display for OverMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("instance memory limit reached")
    }
}

impl std::error::Error for OverMemory {}

pub(crate) struct Limiter {
    memory_bytes: usize,
}

impl Limiter {
    pub(crate) fn new(memory_bytes: usize) -> Self {
        Limiter { memory_bytes }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            return Err(wasmtime::Error::new(OverMemory));
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
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
    /// anything beyond `wasi:keyvalue/store`, `wasi:keyvalue/atomics` and
    /// `wasi:clocks/wall-clock`: the linker has nothing else to give it.
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
        ty.imports(self.pre.engine()).map(|(name, _)| name.to_string()).collect()
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
        Host { runtime: self.clone(), backend, limits, config: ToolConfig::default(), live: None }
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
}

impl Host {
    /// Compiles the component at `path` and serves `backend` to it.
    pub fn new(path: impl AsRef<Path>, backend: Arc<dyn Backend>, limits: HostLimits) -> wasmtime::Result<Self> {
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

    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// True if an instance is alive (a trap discards it; the next call makes one).
    pub fn is_live(&self) -> bool {
        self.live.is_some()
    }

    /// Makes an instance now instead of on the first call.
    pub fn start(&mut self) -> Result<(), Fault> {
        self.live().map(|_| ())
    }

    fn live(&mut self) -> Result<&mut Live, Fault> {
        if self.live.is_none() {
            let state = State::new(
                self.backend.clone(),
                self.config.bucket.clone(),
                Limiter::new(self.limits.memory_bytes),
            );
            let mut store = Store::new(self.runtime.pre.engine(), state);
            store.limiter(|s| &mut s.limiter);
            store.set_fuel(self.limits.fuel).map_err(|_| Fault::Start)?;
            let bindings = self.runtime.pre.instantiate(&mut store).map_err(|_| Fault::Start)?;
            let l = &self.config.limits;
            let config = tool::Config {
                limits: tool::Limits {
                    max_file_bytes: l.max_file_bytes as u64,
                    max_total_bytes: l.max_total_bytes,
                    read_limit_chars: l.read_limit_chars as u64,
                },
                actor: self.config.actor.clone(),
                bucket: self.config.bucket.clone(),
            };
            bindings.memdir_memory_tool().call_configure(&mut store, &config).map_err(|_| Fault::Start)?;
            self.live = Some(Live { store, bindings });
        }
        self.live.as_mut().ok_or(Fault::Start)
    }

    /// Runs one export with a fresh fuel budget; on a trap the instance is dropped
    /// (a trapped instance may hold broken state) and the fault says why.
    fn call<R>(
        &mut self,
        f: impl FnOnce(&tool::Guest, &mut Store<State>) -> wasmtime::Result<R>,
    ) -> Result<R, (Fault, bool)> {
        let fuel = self.limits.fuel;
        // Held for the whole call (see `Backend::turn`), released before returning.
        let turn = self.backend.turn();
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
    pub fn execute(&mut self, input: &str) -> ToolResult {
        if input.len() > self.limits.max_input_bytes {
            return error(messages::too_long(input.len(), self.limits.max_input_bytes));
        }
        match self.call(|g, s| g.call_execute(s, input)) {
            Ok(r) => ToolResult { content: r.content, is_error: r.is_error },
            Err((fault, published)) => error(messages::fault(fault, published)),
        }
    }

    /// [`Host::execute`] for raw bytes (a command line, a line of stdin).
    pub fn execute_bytes(&mut self, input: &[u8]) -> ToolResult {
        if input.len() > self.limits.max_input_bytes {
            return error(messages::too_long(input.len(), self.limits.max_input_bytes));
        }
        match std::str::from_utf8(input) {
            Ok(s) => self.execute(s),
            Err(_) => error(messages::NOT_UTF8.into()),
        }
    }

    /// A typed call; `args` are its strings, held to the same size limit as a raw input.
    fn typed(
        &mut self,
        args: &[&str],
        f: impl FnOnce(&tool::Guest, &mut Store<State>) -> wasmtime::Result<Result<String, String>>,
    ) -> Result<String, String> {
        let n = args.iter().map(|a| a.len()).fold(0usize, usize::saturating_add);
        if n > self.limits.max_input_bytes {
            return Err(messages::too_long(n, self.limits.max_input_bytes));
        }
        self.call(f).unwrap_or_else(|(fault, published)| Err(messages::fault(fault, published)))
    }

    /// The handler face, one method per command: the success text, or the message
    /// without `Error: `.
    pub fn view(&mut self, path: &str, view_range: Option<(i64, i64)>) -> Result<String, String> {
        self.typed(&[path], |g, s| g.call_view(s, path, view_range))
    }

    pub fn create(&mut self, path: &str, file_text: &str) -> Result<String, String> {
        self.typed(&[path, file_text], |g, s| g.call_create(s, path, file_text))
    }

    pub fn str_replace(&mut self, path: &str, old_str: &str, new_str: &str) -> Result<String, String> {
        self.typed(&[path, old_str, new_str], |g, s| g.call_str_replace(s, path, old_str, new_str))
    }

    pub fn insert(&mut self, path: &str, insert_line: i64, insert_text: &str) -> Result<String, String> {
        self.typed(&[path, insert_text], |g, s| g.call_insert(s, path, insert_line, insert_text))
    }

    pub fn delete(&mut self, path: &str) -> Result<String, String> {
        self.typed(&[path], |g, s| g.call_delete(s, path))
    }

    pub fn rename(&mut self, old_path: &str, new_path: &str) -> Result<String, String> {
        self.typed(&[old_path, new_path], |g, s| g.call_rename(s, old_path, new_path))
    }

    /// Every directory and file of the tree (see `memdir::Engine::entries`).
    pub fn entries(&mut self) -> Result<Vec<Entry>, String> {
        let out = self.call(|g, s| g.call_entries(s)).unwrap_or_else(|(f, p)| Err(messages::fault(f, p)))?;
        Ok(out.into_iter().map(|e| Entry { path: e.path, content: e.content }).collect())
    }

    /// Replaces the whole tree, all or nothing (see `memdir::Engine::import`).
    pub fn replace_entries(&mut self, entries: &[Entry]) -> Result<(), String> {
        let n = entries
            .iter()
            .map(|e| e.path.len().saturating_add(e.content.as_ref().map_or(0, String::len)))
            .fold(0usize, usize::saturating_add);
        if n > self.limits.max_input_bytes {
            return Err(messages::too_long(n, self.limits.max_input_bytes));
        }
        let wit: Vec<tool::Entry> =
            entries.iter().map(|e| tool::Entry { path: e.path.clone(), content: e.content.clone() }).collect();
        self.call(|g, s| g.call_replace_entries(s, &wit)).unwrap_or_else(|(f, p)| Err(messages::fault(f, p)))
    }

    /// Collects unreferenced objects (see `memdir::Engine::gc`).
    pub fn gc(&mut self, keep_commits: u32) -> Result<GcReport, String> {
        let r = self.call(|g, s| g.call_gc(s, keep_commits)).unwrap_or_else(|(f, p)| Err(messages::fault(f, p)))?;
        let n = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
        Ok(GcReport { reachable: n(r.reachable), deleted: n(r.deleted), pending: n(r.pending) })
    }
}

fn error(message: String) -> ToolResult {
    ToolResult { content: format!("Error: {message}"), is_error: true }
}
