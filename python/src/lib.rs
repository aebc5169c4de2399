//! `memdir._memdir`: the memdir component in wasmtime, in-process, for Python.
//!
//! The same host library the `memdir-host` CLI runs (`memdir_host`): the
//! component (embedded in the extension at build time), its fuel and memory caps,
//! its compile cache, and the memory and directory backends. Python's
//! `memdir.MemdirMemoryTool` wraps [`Memory`]; this module holds no command rule of
//! its own: a tool input goes to the engine as the JSON text Python made of it.
//!
//! Every call releases the GIL and takes the memory's lock (one call at a time per
//! memory, as [`Host`] runs them), so a memory can be shared by threads. A failure
//! is raised as `memdir.MemdirError` (the engine's kind and words) or
//! `memdir.MemdirFault` (the sandbox stopped the call); no Rust panic can reach
//! Python as one, since the workspace denies panics and pyo3 turns any that slipped
//! through into an exception.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use memdir::mounts::{Access, Mount};
use memdir::{Entry, ErrorKind, InputError, SecretPolicy, ToolError};
use memdir_host::embedder::EmbedFailed;
use memdir_host::{
    Backend, CallError, CallErrorKind, DirBackend, Encryption, Fault, Host, HostEmbedder,
    HostLimits, MemoryBackend, MountedHost, Runtime, ToolConfig, ToolsetFailure,
};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The component, built for wasm32-wasip2 (see build.rs).
static COMPONENT: &[u8] = include_bytes!(env!("MEMDIR_COMPONENT_WASM"));

/// The compiled component, once per process: every memory instantiates it. Kept
/// in the host's compile cache (`memdir_host::cache::default_dir`, shared with the
/// CLI), so a fresh process loads it instead of compiling it. `None`: it could not
/// be compiled (every memory then fails to start, with the host's words).
fn runtime() -> Option<&'static Runtime> {
    static RUNTIME: OnceLock<Option<Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            match memdir_host::cache::default_dir() {
                Some(dir) => Runtime::from_bytes_cached(COMPONENT, &dir),
                None => Runtime::from_bytes(COMPONENT),
            }
            .ok()
        })
        .as_ref()
}

/// The name a failure's kind has in Python: the engine's kinds as every face
/// spells them, and the sandbox's faults.
fn kind_name(kind: CallErrorKind) -> &'static str {
    match kind {
        CallErrorKind::Tool(k) => k.name(),
        CallErrorKind::Fault(f) => f.name(),
    }
}

/// The faults' names ([`Fault::name`]): a toolset failure of one of these kinds
/// is the sandbox's, raised as `MemdirFault`.
const FAULTS: [Fault; 4] = [Fault::Fuel, Fault::Memory, Fault::Trap, Fault::Start];

/// The Python exception of a failed toolset call: `MemdirFault` when the sandbox
/// stopped it, else `MemdirError` with the toolset's kind (`not_found`, `input`,
/// ...) and text.
/// A search status as Python gets it: `(indexed, pending, vectors)`, `vectors`
/// `(fingerprint, indexed, pending)` with an embedder (memdir/__init__.py's
/// `_status` shapes it as the npm package's `searchStatus()`).
type Status = (u64, bool, Option<(String, u64, u64)>);

fn status(s: memdir_host::IndexStatus) -> Status {
    let vectors = s.vectors.map(|v| (v.fingerprint, v.indexed, v.pending));
    (s.indexed, s.pending, vectors)
}

fn raise_toolset(py: Python<'_>, e: &ToolsetFailure) -> PyErr {
    let class = if FAULTS.iter().any(|f| f.name() == e.kind) {
        "MemdirFault"
    } else {
        "MemdirError"
    };
    let made = py
        .import("memdir._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((e.kind.as_str(), e.message.as_str())));
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}

/// The Python exception of a failed call: `memdir.MemdirFault` for a fault,
/// `memdir.MemdirError` for the engine's answer, each made with (kind, message).
fn raise(py: Python<'_>, e: &CallError) -> PyErr {
    let class = match e.kind {
        CallErrorKind::Fault(_) => "MemdirFault",
        CallErrorKind::Tool(_) => "MemdirError",
    };
    let made = py
        .import("memdir._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((kind_name(e.kind), e.message.as_str())));
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}

/// A tool input as Python hands it over: text (the JSON text itself), or bytes
/// (which may not be UTF-8). Text that cannot be UTF-8 (a lone surrogate) is the
/// engine's not-UTF-8 refusal, as invalid bytes are.
enum Input {
    Text(String),
    Bytes(Vec<u8>),
}

impl Input {
    fn from_py(input: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(s) = input.cast::<PyString>() {
            return Ok(match s.to_str() {
                Ok(t) => Input::Text(t.to_owned()),
                // Not UTF-8: pass bytes that are not UTF-8 either, so the host
                // refuses them in the engine's words.
                Err(_) => Input::Bytes(vec![0xff]),
            });
        }
        if let Ok(b) = input.cast::<PyBytes>() {
            return Ok(Input::Bytes(b.as_bytes().to_vec()));
        }
        Err(PyValueError::new_err(
            "the tool input must be str (JSON text) or bytes",
        ))
    }
}

/// What a memory is opened with: the engine's settings and the sandbox's limits,
/// each left out the default.
struct Settings {
    config: ToolConfig,
    limits: HostLimits,
}

impl Settings {
    #[allow(clippy::too_many_arguments, reason = "Python's keyword arguments")]
    fn new(
        max_file_bytes: Option<usize>,
        max_total_bytes: Option<u64>,
        read_limit_chars: Option<usize>,
        max_memories: Option<u64>,
        actor: Option<String>,
        secrets: Option<&str>,
        max_retries: Option<u32>,
        fuel: Option<u64>,
        memory_bytes: Option<usize>,
        max_input_bytes: Option<usize>,
        encryption: Option<Encryption>,
    ) -> PyResult<Self> {
        let mut config = ToolConfig {
            encryption,
            ..ToolConfig::default()
        };
        let e = &mut config.engine;
        let l = &mut e.limits;
        l.max_file_bytes = max_file_bytes.unwrap_or(l.max_file_bytes);
        l.max_total_bytes = max_total_bytes.unwrap_or(l.max_total_bytes);
        l.read_limit_chars = read_limit_chars.unwrap_or(l.read_limit_chars);
        l.max_memories = max_memories.unwrap_or(l.max_memories);
        if let Some(a) = actor {
            e.actor = a;
        }
        e.secrets = self::secrets(secrets)?;
        e.max_retries = max_retries.unwrap_or(e.max_retries);
        let d = HostLimits::default();
        let limits = HostLimits {
            fuel: fuel.unwrap_or(d.fuel),
            memory_bytes: memory_bytes.unwrap_or(d.memory_bytes),
            max_input_bytes: max_input_bytes.unwrap_or(d.max_input_bytes),
        };
        Ok(Settings { config, limits })
    }
}

/// `encryption_key=` and `key_id=` as the engine checks them
/// (`memdir::seal::Key::new`): `MemdirError` of kind `input` in its words, which
/// name no byte of the key. A key id alone is refused the same way.
fn encryption(
    py: Python<'_>,
    key: Option<&[u8]>,
    key_id: Option<&str>,
) -> PyResult<Option<Encryption>> {
    let refuse = |e: memdir::seal::SealError| {
        let message = e.to_string();
        raise(
            py,
            &CallError {
                kind: CallErrorKind::Tool(ErrorKind::Input),
                message,
            },
        )
    };
    match (key, key_id) {
        (Some(k), id) => Encryption::new(k, id).map(Some).map_err(refuse),
        (None, Some(_)) => Err(PyValueError::new_err("key_id needs encryption_key")),
        (None, None) => Ok(None),
    }
}

/// Opens the store now, so that a key it refuses (wrong, missing, or given to a
/// plaintext store) raises when the memory is opened, in the engine's words. A
/// fault is left to the first call, which reports it as calls do.
fn check_opens(py: Python<'_>, host: &mut Host) -> PyResult<()> {
    match py.detach(|| host.seal_status()) {
        Err(e) if matches!(e.kind, CallErrorKind::Tool(_)) => Err(raise(py, &e)),
        _ => Ok(()),
    }
}

/// A store: in memory when `directory` is None, else the store directory (an
/// `OSError` naming the directory the caller gave when it cannot be opened).
fn open_backend(
    py: Python<'_>,
    directory: Option<&PathBuf>,
) -> PyResult<(Arc<dyn Backend>, &'static str)> {
    match directory {
        None => Ok((Arc::new(MemoryBackend::new()), "memory")),
        Some(dir) => {
            let open = py.detach(|| DirBackend::open(dir));
            let store =
                open.map_err(|e| PyOSError::new_err(format!("{}: {e}", dir.to_string_lossy())))?;
            Ok((Arc::new(store), "directory"))
        }
    }
}

/// The compiled component, or the fault that it cannot be started.
fn started(py: Python<'_>) -> PyResult<&'static Runtime> {
    py.detach(runtime).ok_or_else(|| {
        raise(
            py,
            &CallError {
                kind: CallErrorKind::Fault(Fault::Start),
                message: memdir_host::messages::fault(Fault::Start, false),
            },
        )
    })
}

/// An application's embedder written in Python: an object with `id` (str), `dims`
/// (int) and `embed(texts, kind)` answering one list of floats per text (or, in
/// place of `embed`, the object itself callable so). `id` and `dims` are read once,
/// here; each call takes the GIL (the engine runs without it) and whatever it
/// raises or answers that is not a list of lists of numbers is the embedder
/// failing: its text never reaches the engine (it may name an account or a key).
struct PyEmbedder {
    id: String,
    dims: usize,
    embed: Py<PyAny>,
}

impl PyEmbedder {
    fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Arc<dyn HostEmbedder>> {
        let bad = || {
            PyValueError::new_err(format!(
                "embedder must have id (a non-empty str), dims (an int from 1 to {}) and embed(texts, kind), or be callable as embed",
                memdir::config::EMBED_MAX_DIMS
            ))
        };
        let id: String = obj
            .getattr("id")
            .and_then(|v| v.extract())
            .map_err(|_| bad())?;
        let dims: usize = obj
            .getattr("dims")
            .and_then(|v| v.extract())
            .map_err(|_| bad())?;
        if id.trim().is_empty() || dims == 0 || dims > memdir::config::EMBED_MAX_DIMS {
            return Err(bad());
        }
        let embed = match obj.getattr("embed") {
            Ok(f) if f.is_callable() => f.unbind(),
            _ if obj.is_callable() => obj.clone().unbind(),
            _ => return Err(bad()),
        };
        Ok(Arc::new(PyEmbedder { id, dims, embed }))
    }
}

impl HostEmbedder for PyEmbedder {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed(&self, texts: &[String], kind: &str) -> Result<Vec<Vec<f32>>, EmbedFailed> {
        Python::attach(|py| {
            let answer = self
                .embed
                .call1(py, (texts.to_vec(), kind))
                .map_err(|_| EmbedFailed)?;
            answer.extract::<Vec<Vec<f32>>>(py).map_err(|_| EmbedFailed)
        })
    }
}

/// `embedder=` as the host lends it: None, or a Python embedder.
fn embedder_of(embedder: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Arc<dyn HostEmbedder>>> {
    match embedder {
        None => Ok(None),
        Some(e) if e.is_none() => Ok(None),
        Some(e) => PyEmbedder::from_py(e).map(Some),
    }
}

/// One memory: the engine in its sandbox over one store.
#[pyclass(frozen, module = "memdir._memdir")]
struct Memory {
    host: Mutex<Host>,
    backend: &'static str,
}

fn secrets(name: Option<&str>) -> PyResult<SecretPolicy> {
    match name {
        None => Ok(SecretPolicy::default()),
        Some(n) => SecretPolicy::from_name(n).ok_or_else(|| {
            let names: Vec<&str> = SecretPolicy::ALL.iter().map(|p| p.name()).collect();
            PyValueError::new_err(format!("secrets must be one of: {}", names.join(", ")))
        }),
    }
}

impl Memory {
    /// The host, for one call. A call never panics holding the lock, but if one
    /// ever did the host is still whole: each call starts from the store.
    fn host(&self) -> MutexGuard<'_, Host> {
        self.host.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn call<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Host) -> Result<R, CallError> + Send,
    ) -> PyResult<R> {
        py.detach(|| f(&mut self.host())).map_err(|e| raise(py, &e))
    }
}

#[pymethods]
impl Memory {
    /// Opens a memory: in this process when `directory` is None, else the store
    /// directory (format memdir-store, shared with the memdir CLI and memdir-host;
    /// created when missing or empty). Limits left out are the engine's defaults.
    #[new]
    #[pyo3(signature = (
        directory=None, *, max_file_bytes=None, max_total_bytes=None,
        read_limit_chars=None, max_memories=None, actor=None, secrets=None,
        max_retries=None, fuel=None, memory_bytes=None, max_input_bytes=None,
        encryption_key=None, key_id=None,
        embedder=None,
    ))]
    #[allow(clippy::too_many_arguments, reason = "Python's keyword arguments")]
    fn new(
        py: Python<'_>,
        directory: Option<PathBuf>,
        max_file_bytes: Option<usize>,
        max_total_bytes: Option<u64>,
        read_limit_chars: Option<usize>,
        max_memories: Option<u64>,
        actor: Option<String>,
        secrets: Option<&str>,
        max_retries: Option<u32>,
        fuel: Option<u64>,
        memory_bytes: Option<usize>,
        max_input_bytes: Option<usize>,
        encryption_key: Option<&[u8]>,
        key_id: Option<&str>,
        embedder: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let settings = Settings::new(
            max_file_bytes,
            max_total_bytes,
            read_limit_chars,
            max_memories,
            actor,
            secrets,
            max_retries,
            fuel,
            memory_bytes,
            max_input_bytes,
            encryption(py, encryption_key, key_id)?,
        )?;
        let embedder = embedder_of(embedder)?;
        let (backend, kind) = open_backend(py, directory.as_ref())?;
        let runtime = started(py)?;
        let (config, limits) = (settings.config, settings.limits);
        let mut host = runtime.host(backend, limits);
        host.configure(config);
        host.set_embedder(embedder);
        check_opens(py, &mut host)?;
        Ok(Memory {
            host: Mutex::new(host),
            backend: kind,
        })
    }

    /// `"memory"` or `"directory"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }

    /// The raw face: a tool input (JSON text, or bytes) in, `(content, is_error)`
    /// out, exactly as every runtime answers it. Never raises for the input.
    fn execute_json(&self, py: Python<'_>, input: &Bound<'_, PyAny>) -> PyResult<(String, bool)> {
        let input = Input::from_py(input)?;
        let r = py.detach(|| {
            let mut host = self.host();
            match &input {
                Input::Text(t) => host.execute_json(t),
                Input::Bytes(b) => host.execute_bytes(b),
            }
        });
        Ok((r.content, r.is_error))
    }

    /// A tool input (JSON text, or bytes), passed to the engine unchanged: the
    /// success text, or `MemdirError`/`MemdirFault` whose message is the engine's
    /// (the raw face's answer without `Error: `).
    fn run_json(&self, py: Python<'_>, input: &Bound<'_, PyAny>) -> PyResult<String> {
        let input = Input::from_py(input)?;
        self.call(py, move |host| match input {
            Input::Text(t) => host.run_json(&t),
            Input::Bytes(b) => match String::from_utf8(b) {
                Ok(t) => host.run_json(&t),
                Err(_) => Err(CallError {
                    kind: CallErrorKind::Tool(ErrorKind::Input),
                    message: memdir::InputError::NotUtf8.to_string(),
                }),
            },
        })
    }

    /// The Memory Stores API (docs/memory-stores.md): one request's JSON text in,
    /// the JSON text of `{status, body}` out. Never raises for the request: a
    /// refusal is a status and the engine's error object. Text that cannot be
    /// UTF-8 is answered as text that is not JSON (the engine's 400).
    fn api(&self, py: Python<'_>, request: &Bound<'_, PyAny>) -> PyResult<String> {
        let text = match Input::from_py(request)? {
            Input::Text(t) => t,
            Input::Bytes(b) => String::from_utf8(b).unwrap_or_default(),
        };
        Ok(py.detach(|| self.host().api(&text)))
    }

    /// Every directory and file under `/memories`, as `(path, content)` pairs
    /// (`content` is None for a directory).
    fn entries(&self, py: Python<'_>) -> PyResult<Vec<(String, Option<String>)>> {
        let entries = self.call(py, |host| host.entries())?;
        Ok(entries.into_iter().map(|e| (e.path, e.content)).collect())
    }

    /// Replaces the whole tree with `entries` (`(path, content)` pairs, None for a
    /// directory), all or nothing, in one commit.
    fn import_entries(
        &self,
        py: Python<'_>,
        entries: Vec<(String, Option<String>)>,
    ) -> PyResult<()> {
        let entries: Vec<Entry> = entries
            .into_iter()
            .map(|(path, content)| Entry { path, content })
            .collect();
        self.call(py, move |host| host.import(&entries))
    }

    /// `memory.search`: the options' JSON text (`{"query", "limit"?,
    /// "path_prefix"?}`) in, the JSON text of `[{"path", "score", "lines":
    /// [{"line", "text"}]}]` out, best first; `MemdirError` (kind `input`) for a
    /// refused query or option, in the engine's words.
    fn search_json(&self, py: Python<'_>, request: String) -> PyResult<String> {
        self.call(py, move |host| host.search_json(&request))
    }

    /// `memory.recall`: the options' JSON text (`{"query", "limit"?, "max_chars"?,
    /// "path_prefix"?}`) in, the block for a system prompt out (`""`: nothing).
    fn recall_json(&self, py: Python<'_>, request: String) -> PyResult<String> {
        self.call(py, move |host| host.recall_json(&request))
    }

    /// The `memory_find` tool on the model's input (JSON text): the text every
    /// face of the tool answers (`memdir::mounts::find_answer`).
    fn find(&self, py: Python<'_>, input: String) -> PyResult<String> {
        self.call(py, move |host| host.find_text(&input))
    }

    /// Brings the search index up to date, at most `rounds` calls (default
    /// `memdir::config::SEARCH_REINDEX_ROUNDS`): see [`status`].
    #[pyo3(signature = (rounds=None))]
    fn reindex(&self, py: Python<'_>, rounds: Option<u32>) -> PyResult<Status> {
        let rounds = rounds.unwrap_or(memdir::config::SEARCH_REINDEX_ROUNDS);
        self.call(py, move |host| host.reindex(rounds)).map(status)
    }

    /// How far the search index is: see [`status`].
    fn search_status(&self, py: Python<'_>) -> PyResult<Status> {
        self.call(py, |host| host.search_status()).map(status)
    }

    /// The memory-store toolset: tool `name` on `input` (JSON text): the text
    /// for the model, or `MemdirError` with the toolset's kind and text.
    fn toolset(&self, py: Python<'_>, name: String, input: String) -> PyResult<String> {
        py.detach(|| self.host().toolset("", &name, &input))
            .map_err(|e| raise_toolset(py, &e))
    }

    /// How the store is encrypted: the JSON text `{"encrypted", "keyId",
    /// "rotatingFrom"}`.
    fn encryption_status(&self, py: Python<'_>) -> PyResult<String> {
        self.call(py, |host| host.seal_status())
    }

    /// Re-encrypts the store under `new_key` (32 bytes, id `key_id`), in
    /// bounded, resumable steps: a call cut short leaves a store both keys open,
    /// and calling again finishes. How many values moved; later calls use the
    /// new key.
    #[pyo3(signature = (new_key, key_id=None))]
    fn rekey(&self, py: Python<'_>, new_key: &[u8], key_id: Option<&str>) -> PyResult<u64> {
        let new = encryption(py, Some(new_key), key_id)?
            .ok_or_else(|| PyValueError::new_err("rekey needs a key"))?;
        self.call(py, move |host| host.rekey(&new))
    }

    /// Turns the plaintext store into one encrypted with `key` (32 bytes, id
    /// `key_id`), resumably; later calls use the key.
    #[pyo3(signature = (key, key_id=None))]
    fn encrypt(&self, py: Python<'_>, key: &[u8], key_id: Option<&str>) -> PyResult<()> {
        let key = encryption(py, Some(key), key_id)?
            .ok_or_else(|| PyValueError::new_err("encrypt needs a key"))?;
        self.call(py, move |host| host.encrypt(&key))
    }

    /// Sets the sandbox's limits from the next call on (a fresh instance).
    #[pyo3(signature = (*, fuel=None, memory_bytes=None, max_input_bytes=None))]
    fn set_limits(
        &self,
        fuel: Option<u64>,
        memory_bytes: Option<usize>,
        max_input_bytes: Option<usize>,
    ) {
        let d = HostLimits::default();
        self.host().set_limits(HostLimits {
            fuel: fuel.unwrap_or(d.fuel),
            memory_bytes: memory_bytes.unwrap_or(d.memory_bytes),
            max_input_bytes: max_input_bytes.unwrap_or(d.max_input_bytes),
        });
    }
}

/// Several stores as one memory under `/memories` (`memdir_host::MountedHost`): an
/// instance per mount, some read-only. Calls run one at a time, as on [`Memory`].
#[pyclass(frozen, module = "memdir._memdir")]
struct MountedMemory {
    host: Mutex<MountedHost>,
    max_input_bytes: usize,
}

impl MountedMemory {
    fn host(&self) -> MutexGuard<'_, MountedHost> {
        self.host.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl MountedMemory {
    /// `mounts`: `(name, directory or None, read_only, description, instructions)`
    /// each, in order; `""` alone mounts one store at `/memories`. The other
    /// keywords are [`Memory`]'s, for every mount.
    #[new]
    #[pyo3(signature = (
        mounts, *, max_file_bytes=None, max_total_bytes=None,
        read_limit_chars=None, max_memories=None, actor=None, secrets=None,
        max_retries=None, fuel=None, memory_bytes=None, max_input_bytes=None,
        encryption_key=None, key_id=None,
        embedder=None,
    ))]
    #[allow(clippy::too_many_arguments, reason = "Python's keyword arguments")]
    fn new(
        py: Python<'_>,
        mounts: Vec<(String, Option<PathBuf>, bool, String, String)>,
        max_file_bytes: Option<usize>,
        max_total_bytes: Option<u64>,
        read_limit_chars: Option<usize>,
        max_memories: Option<u64>,
        actor: Option<String>,
        secrets: Option<&str>,
        max_retries: Option<u32>,
        fuel: Option<u64>,
        memory_bytes: Option<usize>,
        max_input_bytes: Option<usize>,
        encryption_key: Option<&[u8]>,
        key_id: Option<&str>,
        embedder: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let settings = Settings::new(
            max_file_bytes,
            max_total_bytes,
            read_limit_chars,
            max_memories,
            actor,
            secrets,
            max_retries,
            fuel,
            memory_bytes,
            max_input_bytes,
            encryption(py, encryption_key, key_id)?,
        )?;
        let embedder = embedder_of(embedder)?;
        let mut opened = Vec::new();
        for (name, directory, read_only, description, instructions) in mounts {
            let backend = open_backend(py, directory.as_ref())?.0;
            let mount = Mount {
                name,
                access: if read_only {
                    Access::ReadOnly
                } else {
                    Access::ReadWrite
                },
                description,
                instructions,
            };
            opened.push((mount, backend));
        }
        let runtime = started(py)?;
        let host = MountedHost::new(runtime, opened, &settings.config, settings.limits)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        host.set_embedder(embedder);
        Ok(MountedMemory {
            host: Mutex::new(host),
            max_input_bytes: settings.limits.max_input_bytes,
        })
    }

    /// As [`Memory::execute_json`], across the mounts.
    fn execute_json(&self, py: Python<'_>, input: &Bound<'_, PyAny>) -> PyResult<(String, bool)> {
        let input = Input::from_py(input)?;
        let r = py.detach(|| {
            let host = self.host();
            match &input {
                Input::Text(t) => host.execute_json(t),
                Input::Bytes(b) => host.execute_bytes(b),
            }
        });
        Ok((r.content, r.is_error))
    }

    /// As [`Memory::run_json`], across the mounts: the input is parsed by the
    /// engine's own parser (`memdir::parse_text`, as the mounted host parses it)
    /// and routed to each mount's instance.
    fn run_json(&self, py: Python<'_>, input: &Bound<'_, PyAny>) -> PyResult<String> {
        let input = Input::from_py(input)?;
        let limit = self.max_input_bytes;
        py.detach(move || {
            let host = self.host();
            let text = match input {
                Input::Text(t) => t,
                Input::Bytes(b) if b.len() > limit => return Err(host.too_large()),
                Input::Bytes(b) => String::from_utf8(b)
                    .map_err(|_| CallError::from(ToolError::from(InputError::NotUtf8)))?,
            };
            if text.len() > limit {
                return Err(host.too_large());
            }
            match memdir::parse_text(&text) {
                Ok(cmd) => host.run(cmd),
                Err(e) => Err(CallError::from(ToolError::from(e))),
            }
        })
        .map_err(|e| raise(py, &e))
    }

    /// The text for the system prompt: where each store is mounted, whether it is
    /// read-only, its description and instructions.
    fn instructions(&self) -> String {
        self.host().instructions()
    }

    /// As [`Memory::search_json`], across the mounts (merged best first).
    fn search_json(&self, py: Python<'_>, request: String) -> PyResult<String> {
        py.detach(|| self.host().search_json(&request))
            .map_err(|e| raise(py, &e))
    }

    /// As [`Memory::reindex`], every store: indexed in all, pending in any.
    #[pyo3(signature = (rounds=None))]
    fn reindex(&self, py: Python<'_>, rounds: Option<u32>) -> PyResult<Status> {
        let rounds = rounds.unwrap_or(memdir::config::SEARCH_REINDEX_ROUNDS);
        py.detach(|| self.host().reindex(rounds))
            .map(status)
            .map_err(|e| raise(py, &e))
    }

    /// As [`Memory::search_status`], every store together.
    fn search_status(&self, py: Python<'_>) -> PyResult<Status> {
        py.detach(|| self.host().search_status())
            .map(status)
            .map_err(|e| raise(py, &e))
    }

    /// As [`Memory::recall_json`], across the mounts.
    fn recall_json(&self, py: Python<'_>, request: String) -> PyResult<String> {
        py.detach(|| self.host().recall_json(&request))
            .map_err(|e| raise(py, &e))
    }

    /// As [`Memory::find`], across the mounts.
    fn find(&self, py: Python<'_>, input: String) -> PyResult<String> {
        py.detach(|| self.host().find_text(&input))
            .map_err(|e| raise(py, &e))
    }

    /// As [`Memory::toolset`], across the mounts: `/<name>/…` paths, a write into
    /// a read-only store refused before any store is touched.
    fn toolset(&self, py: Python<'_>, name: String, input: String) -> PyResult<String> {
        py.detach(|| self.host().toolset_json(&name, &input))
            .map_err(|e| raise_toolset(py, &e))
    }
}

/// The memory-store toolset's definitions as the engine has them
/// (`memdir::toolset::TOOLS`): `(name, description, input_schema JSON text,
/// read_only)`, in order.
#[pyfunction]
fn toolset_tools() -> Vec<(&'static str, &'static str, &'static str, bool)> {
    memdir::toolset::TOOLS
        .iter()
        .map(|t| (t.name, t.description, t.input_schema, t.read_only))
        .collect()
}

/// The `memory_find` tool's definition as the engine has it
/// (`memdir::mounts::FIND_TOOL`): `(name, description, input_schema JSON text)`.
#[pyfunction]
fn find_tool() -> (&'static str, &'static str, &'static str) {
    let t = &memdir::mounts::FIND_TOOL;
    (t.name, t.description, t.input_schema)
}

/// The engine's defaults, as `memdir::config::Defaults` has them, and the sandbox's.
#[pyfunction]
fn defaults() -> Vec<(&'static str, u64)> {
    let h = HostLimits::default();
    let d = memdir::config::Defaults::get();
    let wide = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    vec![
        ("max_file_bytes", wide(d.max_file_bytes)),
        ("max_total_bytes", d.max_total_bytes),
        ("read_limit_chars", wide(d.read_limit_chars)),
        ("max_retries", u64::from(d.max_retries)),
        ("fuel", h.fuel),
        ("memory_bytes", wide(h.memory_bytes)),
        ("max_input_bytes", wide(h.max_input_bytes)),
    ]
}

#[pymodule]
fn _memdir(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Memory>()?;
    m.add_class::<MountedMemory>()?;
    m.add_function(wrap_pyfunction!(defaults, m)?)?;
    m.add_function(wrap_pyfunction!(toolset_tools, m)?)?;
    m.add_function(wrap_pyfunction!(find_tool, m)?)?;
    Ok(())
}
