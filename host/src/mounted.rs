//! One memory of several stores in the host: one component instance per mount,
//! each configured with its mount's name and served its own backend. Which store a
//! command goes to, what is refused before any store is touched, and the listing of
//! `/memories` across stores are `memdir::mounts`' rules, run here over the
//! instances; each instance's engine does the rest.

use std::cell::RefCell;
use std::sync::Arc;

use memdir::config::{Limits, RECALL_DEFAULT_LIMIT, SEARCH_DEFAULT_LIMIT};
use memdir::mounts::{Mount, MountTarget, Mounted, ToolsetTarget, Top};
use memdir::search::{RecallFound, Request, rank_order};
use memdir::{Actor, Command, ErrorKind, MountError, SearchError, ToolResult};
use serde_json::Value;

use crate::backend::Backend;
use crate::sandbox::{
    CallError, CallErrorKind, Host, HostLimits, IndexStatus, Runtime, ToolConfig, ToolsetFailure,
    recall_text,
};

/// One mount's instance. A cell, since the routing borrows every target shared
/// while a call needs its host alone; calls run one at a time, never nested.
pub struct Instance(RefCell<Host>);

impl Instance {
    /// The host behind this mount, for calls the mounted memory does not route
    /// (export, the Memory Stores API, maintenance).
    pub fn host(&self) -> std::cell::RefMut<'_, Host> {
        self.0.borrow_mut()
    }
}

impl MountTarget for Instance {
    type Error = CallError;

    async fn run(&self, cmd: Command) -> Result<String, CallError> {
        self.0.borrow_mut().run(&cmd)
    }

    async fn top_entries(&self) -> Result<Top, CallError> {
        self.0.borrow_mut().top_entries()
    }

    fn limits(&self) -> Limits {
        self.0.borrow().config().engine.limits
    }
}

impl ToolsetTarget for Instance {
    type ToolsetError = ToolsetFailure;

    /// `by` is not passed on: the component's toolset export writes as the actor
    /// the instance was configured with.
    async fn toolset_by(
        &self,
        prefix: &str,
        name: &str,
        input: &Value,
        _by: Option<&Actor>,
    ) -> Result<String, ToolsetFailure> {
        self.0
            .borrow_mut()
            .toolset(prefix, name, &input.to_string())
    }

    async fn search_page(
        &self,
        prefix: &str,
        input: &Value,
    ) -> Result<(Vec<Value>, Option<String>), ToolsetFailure> {
        self.0
            .borrow_mut()
            .toolset_search_page(prefix, &input.to_string())
    }
}

/// Where a search or recall goes.
enum Targets<'a> {
    /// One store alone at `/memories`: it takes the request as it is.
    Alone(&'a Instance),
    /// The stores asked, each with the request as its instance takes it, and the
    /// request's `limit`.
    Some(Vec<(&'a Instance, String)>, usize),
}

/// A refusal of a search's query or options, in the engine's words.
fn search_refused(e: SearchError) -> CallError {
    match e {
        SearchError::Store(t) => t.into(),
        other => CallError {
            kind: CallErrorKind::Tool(ErrorKind::Input),
            message: other.to_string(),
        },
    }
}

/// Several stores as one memory under `/memories` (or one store at `/memories`).
pub struct MountedHost {
    mounted: Mounted<Instance>,
    limits: HostLimits,
}

impl MountedHost {
    /// An instance of `runtime` per mount over its backend, each with `config` but
    /// for its mount's name. Refuses a set of mounts `memdir::mounts::check` refuses.
    pub fn new(
        runtime: &Runtime,
        mounts: Vec<(Mount, Arc<dyn Backend>)>,
        config: &ToolConfig,
        limits: HostLimits,
    ) -> Result<MountedHost, MountError> {
        // Checked before any instance is made (the component checks its own name too).
        let specs: Vec<Mount> = mounts.iter().map(|(m, _)| m.clone()).collect();
        memdir::mounts::check(&specs)?;
        let targets = mounts
            .into_iter()
            .map(|(mount, backend)| {
                let mut host = runtime.host(backend, limits);
                let mut config = config.clone();
                config.engine.mount = mount.name.clone();
                // A search of a read-only store must not save its index there.
                config.engine.read_only = mount.access == memdir::mounts::Access::ReadOnly;
                host.configure(config);
                (mount, Instance(RefCell::new(host)))
            })
            .collect();
        Ok(MountedHost {
            mounted: Mounted::new(targets)?,
            limits,
        })
    }

    /// Lends every store's instance `embedder` (None: lexical search only), from
    /// their next call on (see [`Host::set_embedder`]).
    pub fn set_embedder(&self, embedder: Option<Arc<dyn crate::embedder::HostEmbedder>>) {
        for mount in self.mounted.mounts() {
            if let Some(instance) = self.mounted.engine(&mount.name) {
                instance.host().set_embedder(embedder.clone());
            }
        }
    }

    /// The text an application puts in its system prompt for these mounts.
    pub fn instructions(&self) -> String {
        self.mounted.instructions()
    }

    pub fn mounts(&self) -> impl Iterator<Item = &Mount> {
        self.mounted.mounts()
    }

    /// The instance of the store mounted at `name` (`""`: the one at `/memories`).
    pub fn instance(&self, name: &str) -> Option<&Instance> {
        self.mounted.engine(name)
    }

    /// The typed face over every store: the success text, or the failure.
    pub fn run(&self, cmd: Command) -> Result<String, CallError> {
        memdir::block_on(self.mounted.run(cmd))
    }

    /// The raw face (as [`Host::execute_json`]): a tool input as JSON text in, a
    /// `tool_result` out. Never fails.
    pub fn execute_json(&self, input: &str) -> ToolResult {
        if input.len() > self.limits.max_input_bytes {
            return result(Err(self.too_large()));
        }
        result(match memdir::parse_text(input) {
            Ok(cmd) => self.run(cmd),
            Err(e) => Err(memdir::ToolError::from(e).into()),
        })
    }

    /// [`MountedHost::execute_json`] for raw bytes (a command line, a line of stdin).
    pub fn execute_bytes(&self, input: &[u8]) -> ToolResult {
        if input.len() > self.limits.max_input_bytes {
            return result(Err(self.too_large()));
        }
        match std::str::from_utf8(input) {
            Ok(s) => self.execute_json(s),
            Err(_) => result(Err(
                memdir::ToolError::from(memdir::InputError::NotUtf8).into()
            )),
        }
    }

    /// The stores a search or recall `request` (JSON text) asks, each with the
    /// request as its instance takes it (`path_prefix` set to where that store is
    /// mounted, or below), and the request's `limit` (`default_limit` if left out).
    fn search_targets(
        &self,
        request: &str,
        default_limit: usize,
    ) -> Result<Targets<'_>, CallError> {
        if request.len() > self.limits.max_input_bytes {
            return Err(self.too_large());
        }
        let mounts: Vec<(&Mount, &Instance)> = self.mounted.engines().collect();
        if let [(m, alone)] = mounts.as_slice()
            && m.name.is_empty()
        {
            return Ok(Targets::Alone(alone));
        }
        let not_object = || SearchError::Option {
            name: "the options",
            must: "an object",
        };
        let mut v: Value =
            serde_json::from_str(request).map_err(|_| search_refused(not_object()))?;
        let r = Request::from_json(&v, default_limit).map_err(search_refused)?;
        // `under` is a path of the whole memory: `/team/notes` is `/notes` in the
        // store mounted at `team`.
        let (first, below) = match r.under.as_deref() {
            None => (None, ""),
            Some(u) => {
                let rest = u.strip_prefix('/').unwrap_or(u);
                let (first, below) = rest.split_once('/').unwrap_or((rest, ""));
                (Some(first), below)
            }
        };
        let mut out = Vec::new();
        for (m, instance) in mounts {
            if first.is_some_and(|f| f != m.name) {
                continue;
            }
            let mut prefix = format!("{}/{}", memdir::ROOT, m.name);
            if !below.is_empty() {
                prefix = format!("{prefix}/{below}");
            }
            if let Some(map) = v.as_object_mut() {
                map.insert("path_prefix".into(), Value::from(prefix));
            }
            out.push((instance, v.to_string()));
        }
        Ok(Targets::Some(out, r.limit))
    }

    /// `memory.search` over every store (see [`Host::search_json`]): each store
    /// asked (only the one `path_prefix` lies in, if given), its hits shown under
    /// its mount, all merged best first, equal scores by path, cut to `limit`.
    /// A `path_prefix` in no mounted store finds nothing.
    pub fn search_json(&self, request: &str) -> Result<String, CallError> {
        let (targets, limit) = match self.search_targets(request, SEARCH_DEFAULT_LIMIT)? {
            Targets::Alone(i) => return i.host().search_json(request),
            Targets::Some(targets, limit) => (targets, limit),
        };
        let mut hits: Vec<Value> = Vec::new();
        for (instance, request) in targets {
            let answer = instance.host().search_json(&request)?;
            if let Ok(Value::Array(found)) = serde_json::from_str::<Value>(&answer) {
                hits.extend(found);
            }
        }
        let score = |h: &Value| h.get("score").and_then(Value::as_f64).unwrap_or_default();
        fn path(h: &Value) -> &str {
            h.get("path").and_then(Value::as_str).unwrap_or_default()
        }
        hits.sort_by(|a, b| rank_order((score(a), path(a)), (score(b), path(b))));
        hits.truncate(limit);
        Ok(Value::Array(hits).to_string())
    }

    /// The `memory_find` tool over every store (see [`Host::find_text`]): the
    /// merged search's hits as its text.
    pub fn find_text(&self, input: &str) -> Result<String, CallError> {
        let hits = self.search_json(input)?;
        let pending = self.search_status()?.pending;
        Ok(crate::sandbox::find_text_of(input, &hits, pending))
    }

    /// `memory.recall` over every store: each store's finds merged best first
    /// (equal scores by path), cut to `limit`, and made one block within
    /// `max_chars` (see [`Host::recall_json`]).
    pub fn recall_json(&self, request: &str) -> Result<String, CallError> {
        let (targets, limit) = match self.search_targets(request, RECALL_DEFAULT_LIMIT)? {
            Targets::Alone(i) => return i.host().recall_json(request),
            Targets::Some(targets, limit) => (targets, limit),
        };
        let mut all = RecallFound {
            items: Vec::new(),
            max_chars: 0,
        };
        for (instance, request) in targets {
            let found = instance.host().recall_found(&request)?;
            all.max_chars = found.max_chars;
            all.items.extend(found.items);
        }
        all.items
            .sort_by(|a, b| rank_order((a.score, &a.path), (b.score, &b.path)));
        all.items.truncate(limit);
        Ok(recall_text(&all))
    }

    /// Brings every store's search index up to date (see [`Host::reindex`]); how
    /// far they are together: memories indexed in all, pending in any.
    pub fn reindex(&self, rounds: u32) -> Result<IndexStatus, CallError> {
        self.each_status(|h| h.reindex(rounds))
    }

    /// How far every store's search index is, together.
    pub fn search_status(&self) -> Result<IndexStatus, CallError> {
        self.each_status(Host::search_status)
    }

    fn each_status(
        &self,
        f: impl Fn(&mut Host) -> Result<IndexStatus, CallError>,
    ) -> Result<IndexStatus, CallError> {
        let mut total = IndexStatus {
            indexed: 0,
            pending: false,
            vectors: None,
        };
        for (_, instance) in self.mounted.engines() {
            let s = f(&mut instance.host())?;
            total.indexed = total.indexed.saturating_add(s.indexed);
            total.pending |= s.pending;
            // One embedder lent to every store: one fingerprint, counts summed.
            if let Some(v) = s.vectors {
                let sum = total.vectors.get_or_insert(memdir::search::VectorStatus {
                    fingerprint: v.fingerprint,
                    indexed: 0,
                    pending: 0,
                });
                sum.indexed = sum.indexed.saturating_add(v.indexed);
                sum.pending = sum.pending.saturating_add(v.pending);
            }
        }
        Ok(total)
    }

    /// The memory-store toolset over every store (`memdir::mounts::Mounted::toolset`):
    /// a path `/<name>/…` goes to the store mounted at `<name>`, a listing or a
    /// search of the whole memory asks every store, and a write into a read-only
    /// store is refused before any store is touched.
    pub fn toolset_json(&self, name: &str, input: &str) -> Result<String, ToolsetFailure> {
        if input.len() > self.limits.max_input_bytes {
            return Err(self.too_large().into());
        }
        memdir::block_on(self.mounted.toolset_json(name, input))
    }

    /// The refusal of an input over [`HostLimits::max_input_bytes`].
    pub fn too_large(&self) -> CallError {
        memdir::ToolError::from(memdir::InputError::TooLarge {
            limit: self.limits.max_input_bytes,
        })
        .into()
    }
}

fn result(outcome: Result<String, CallError>) -> ToolResult {
    match outcome {
        Ok(content) => ToolResult {
            content,
            is_error: false,
        },
        Err(e) => ToolResult {
            content: format!("Error: {e}"),
            is_error: true,
        },
    }
}
