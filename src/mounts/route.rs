//! Which store a command goes to, and what is refused before any store is
//! touched: a write into a read-only store, a rename across stores, the directory
//! a store is mounted at.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Access, Mount, MountError, check, instructions};
use crate::command::input::{Checked, Command};
use crate::command::plan::refuse_without_storage;
use crate::command::render::{self, Row};
use crate::config::Limits;
use crate::config::SEARCH_PAGE;
use crate::error::{Refusal, ToolError};
use crate::path::{self, ValidPath};
use crate::search::rank_order;
use crate::storage::Engine;
use crate::storage::versions::Actor;
use crate::store::Store;
use crate::toolset::{self, error::ToolsetError};
use serde_json::Value;
/// What a mount routes to: a store's engine, in this process or behind a boundary
/// (the wasmtime host's component instance). It was configured with its mount's
/// name (`Config::mount`), so it takes the paths as the model wrote them.
#[allow(
    async_fn_in_trait,
    reason = "every runtime drives the engine on one thread (wasm, or a host's block_on): no Send bound to promise"
)]
pub trait MountTarget {
    /// Its failures: the engine's own, or a runtime's around them.
    type Error: From<ToolError>;

    /// Runs a command whose paths lie in this store's mount.
    async fn run(&self, cmd: Command) -> Result<String, Self::Error>;

    /// The store's total size and its visible top entries, for `view /memories`.
    async fn top_entries(&self) -> Result<Top, Self::Error>;

    /// The store's limits (for the checks made before any store is touched, and
    /// the length of the listing of `/memories`).
    fn limits(&self) -> Limits;
}

/// The top of one store: its total size and its visible entries, sorted by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Top {
    /// The bytes of all its files' content.
    pub size: u64,
    /// Its top-level entries.
    pub entries: Vec<TopEntry>,
}

/// One entry at the top of a store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopEntry {
    /// Its name.
    pub name: String,
    /// Its size: a file's content, or everything under a directory.
    pub size: u64,
    /// Whether it is a directory.
    pub is_dir: bool,
}

impl<S: Store> MountTarget for Engine<S> {
    type Error = ToolError;

    async fn run(&self, cmd: Command) -> Result<String, ToolError> {
        Engine::run(self, cmd).await
    }

    async fn top_entries(&self) -> Result<Top, ToolError> {
        let (size, entries) = Engine::top_entries(self).await?;
        let entries = entries
            .into_iter()
            .map(|(name, size, is_dir)| TopEntry { name, size, is_dir })
            .collect();
        Ok(Top { size, entries })
    }

    fn limits(&self) -> Limits {
        self.config().limits
    }
}

/// The stores of one memory, each with its target (its engine).
pub struct Mounted<T> {
    mounts: Vec<(Mount, T)>,
}

impl<T: MountTarget> Mounted<T> {
    /// Each target must have been configured with its mount's name
    /// (`Config::mount`); see [`check`] for the rest.
    pub fn new(mounts: Vec<(Mount, T)>) -> Result<Mounted<T>, MountError> {
        let specs: Vec<Mount> = mounts.iter().map(|(m, _)| m.clone()).collect();
        check(&specs)?;
        Ok(Mounted { mounts })
    }

    /// The mounts, in the order given.
    pub fn mounts(&self) -> impl Iterator<Item = &Mount> {
        self.mounts.iter().map(|(m, _)| m)
    }

    /// Each mount with its target.
    pub fn engines(&self) -> impl Iterator<Item = (&Mount, &T)> {
        self.mounts.iter().map(|(m, e)| (m, e))
    }

    /// The target of the store mounted at `name`.
    pub fn engine(&self, name: &str) -> Option<&T> {
        self.mounts
            .iter()
            .find(|(m, _)| m.name == name)
            .map(|(_, e)| e)
    }

    /// The text that tells the model what is mounted where ([`instructions`](crate::mounts::instructions)).
    pub fn instructions(&self) -> String {
        let specs: Vec<Mount> = self.mounts().cloned().collect();
        instructions(&specs)
    }

    /// The typed face, over every store.
    pub async fn run(&self, cmd: Command) -> Result<String, T::Error> {
        self.route(cmd, async |target: &T, cmd| target.run(cmd).await)
            .await
    }

    /// Runs `cmd` through `go` on the store whose mount its paths lie in, or
    /// answers it before any store is touched (`view /memories` across stores).
    async fn route(
        &self,
        cmd: Command,
        go: impl AsyncFnOnce(&T, Command) -> Result<String, T::Error>,
    ) -> Result<String, T::Error> {
        if let [(m, target)] = self.mounts.as_slice()
            && m.name.is_empty()
        {
            return go(target, cmd).await;
        }
        let checked = cmd.validate_paths()?;
        let Some((_, first)) = self.mounts.first() else {
            return Err(ToolError::Damaged.into());
        };
        refuse_without_storage(&checked, &first.limits())?;
        let paths: Vec<ValidPath> = checked.paths().into_iter().cloned().collect();
        let Some(path) = paths.first() else {
            return Err(ToolError::Damaged.into());
        };
        if path.is_root() {
            return match checked {
                Checked::View { view_range, .. } => self.view_top(path, view_range).await,
                // Everything else on `/memories` itself was refused above, but a
                // line edit, which finds no file there.
                _ => Err(ToolError::from(Refusal::NotFoundHint(path.clone())).into()),
            };
        }
        let found: Vec<Option<usize>> = paths.iter().map(|p| self.mount_of(p)).collect();
        let write = !matches!(checked, Checked::View { .. });
        let Some(at) = found.first().copied().flatten() else {
            return Err(match &checked {
                Checked::Create { .. } => self.no_mount(path),
                Checked::Delete { .. } | Checked::Rename { .. } => {
                    Refusal::NotFound(path.clone()).into()
                }
                _ => Refusal::NotFoundHint(path.clone()).into(),
            }
            .into());
        };
        // The directory a store is mounted at is the mount's, not the store's.
        if let Some(top) = paths.iter().find(|p| p.names().count() == 1)
            && matches!(checked, Checked::Delete { .. } | Checked::Rename { .. })
        {
            return Err(ToolError::from(Refusal::MountPoint {
                command: checked.name(),
                path: top.clone(),
            })
            .into());
        }
        if let Checked::Rename { new_path, .. } = &checked {
            match found.get(1).copied().flatten() {
                None => return Err(self.no_mount(new_path).into()),
                Some(to) if to != at => {
                    return Err(ToolError::from(Refusal::AcrossMounts {
                        from: path.clone(),
                        to: new_path.clone(),
                    })
                    .into());
                }
                Some(_) => {}
            }
        }
        let (mount, target) = self.mounts.get(at).ok_or(ToolError::Damaged)?;
        if write && mount.access == Access::ReadOnly {
            return Err(ToolError::from(Refusal::ReadOnly {
                command: checked.name(),
                path: path.clone(),
                mount: format!("{}/{}", path::ROOT, mount.name),
            })
            .into());
        }
        if let Checked::Create { path, .. } = &checked
            && path.names().count() == 1
        {
            return Err(ToolError::from(Refusal::AlreadyExists(path.clone())).into());
        }
        // The target checks the paths again (cheap) and takes its mount's share.
        go(target, checked.into_command()).await
    }

    /// Which store `path` (not `/memories`) lies in.
    fn mount_of(&self, path: &ValidPath) -> Option<usize> {
        let first = path.names().next()?;
        self.mounts.iter().position(|(m, _)| m.name == first)
    }

    fn no_mount(&self, path: &ValidPath) -> ToolError {
        let mounts: Vec<String> = self
            .mounts()
            .map(|m| format!("{}/{}", path::ROOT, m.name))
            .collect();
        Refusal::NoMount {
            path: path.clone(),
            mounts: mounts.join(", "),
        }
        .into()
    }

    /// `view /memories` across stores: each mount as a directory, with its entries.
    async fn view_top(
        &self,
        path: &ValidPath,
        range: Option<(i64, i64)>,
    ) -> Result<String, T::Error> {
        let mut sorted: Vec<&(Mount, T)> = self.mounts.iter().collect();
        // Names are unique in a mount set: no order among equals to keep.
        sorted.sort_unstable_by(|a, b| a.0.name.cmp(&b.0.name));
        let mut tops = Vec::new();
        let mut total = 0u64;
        for (m, target) in sorted {
            let top = target.top_entries().await?;
            total = total.saturating_add(top.size);
            tops.push((m, top));
        }
        let mut rows: Vec<Row> = alloc::vec![(total, [path.as_str(), "", "", "", "", ""])];
        for (m, top) in tops.iter().filter(|(m, _)| render::is_visible(&m.name)) {
            let name = m.name.as_str();
            rows.push((top.size, [path::ROOT, "/", name, "/", "", ""]));
            for e in &top.entries {
                let slash = if e.is_dir { "/" } else { "" };
                rows.push((e.size, [path::ROOT, "/", name, "/", &e.name, slash]));
            }
        }
        let limit = self
            .mounts
            .first()
            .map_or(0, |(_, t)| t.limits().read_limit_chars);
        Ok(render::view_dir(path, &rows, range, limit)?)
    }
}

/// What runs the memory-store toolset for a mount: a store's engine (which runs
/// the API's operations), or one behind a boundary (the wasmtime host's instance).
#[allow(
    async_fn_in_trait,
    reason = "every runtime drives the engine on one thread (wasm, or a host's block_on): no Send bound to promise"
)]
pub trait ToolsetTarget {
    /// Its failures: the toolset's own, or a runtime's around them.
    type ToolsetError: From<ToolsetError>;

    /// Tool `name` on `input` over this store, shown mounted at `prefix` (see
    /// [`Engine::toolset_by`]).
    async fn toolset_by(
        &self,
        prefix: &str,
        name: &str,
        input: &Value,
        by: Option<&Actor>,
    ) -> Result<String, Self::ToolsetError>;

    /// One page of `memory_search` over this store: its hits (paths shown under
    /// `prefix`), best first, and the next page's token (see
    /// [`Engine::search_page`]), for a search of every mounted store to merge.
    async fn search_page(
        &self,
        prefix: &str,
        input: &Value,
    ) -> Result<(Vec<Value>, Option<String>), Self::ToolsetError>;
}

impl<S: Store> ToolsetTarget for Engine<S> {
    type ToolsetError = ToolsetError;

    async fn search_page(
        &self,
        prefix: &str,
        input: &Value,
    ) -> Result<(Vec<Value>, Option<String>), ToolsetError> {
        Engine::search_page(self, prefix, input).await
    }

    async fn toolset_by(
        &self,
        prefix: &str,
        name: &str,
        input: &Value,
        by: Option<&Actor>,
    ) -> Result<String, ToolsetError> {
        Engine::toolset_by(self, prefix, name, input, by).await
    }
}

impl<S: Store> Mounted<Engine<S>> {
    /// [`Mounted::run`] on behalf of `by` (see [`Engine::run_by`]).
    pub async fn run_by(&self, cmd: Command, by: Option<&Actor>) -> Result<String, ToolError> {
        self.route(cmd, async |engine: &Engine<S>, cmd| {
            engine.run_by(cmd, by).await
        })
        .await
    }
}

impl<T: ToolsetTarget> Mounted<T> {
    /// [`Mounted::toolset`] for an input still in JSON text.
    pub async fn toolset_json(&self, name: &str, input: &str) -> Result<String, T::ToolsetError> {
        self.toolset_json_by(name, input, None).await
    }

    /// [`Mounted::toolset_json`] on behalf of `by` (see [`Engine::toolset_by`]).
    pub async fn toolset_json_by(
        &self,
        name: &str,
        input: &str,
        by: Option<&Actor>,
    ) -> Result<String, T::ToolsetError> {
        self.toolset_by(name, &toolset::parse_input(name, input)?, by)
            .await
    }

    /// The memory-store toolset over every store: a path `/<name>/…` goes to the
    /// store mounted at `<name>` (shown with that prefix), a listing or search of
    /// the whole memory asks every store in turn, and a write into a read-only store
    /// is refused before it is touched. One store at `/memories` takes paths as is.
    pub async fn toolset(&self, name: &str, input: &Value) -> Result<String, T::ToolsetError> {
        self.toolset_by(name, input, None).await
    }

    /// [`Mounted::toolset`] on behalf of `by` (see [`Engine::toolset_by`]).
    pub async fn toolset_by(
        &self,
        name: &str,
        input: &Value,
        by: Option<&Actor>,
    ) -> Result<String, T::ToolsetError> {
        if let [(m, engine)] = self.mounts.as_slice()
            && m.name.is_empty()
        {
            return engine.toolset_by("", name, input, by).await;
        }
        let tool =
            toolset::tools::tool(name).ok_or_else(|| ToolsetError::UnknownTool(name.into()))?;
        toolset::tools::check(tool, input)?;
        let field = if input.get("path").is_some() {
            "path"
        } else {
            "path_prefix"
        };
        let given = input
            .get(field)
            .and_then(Value::as_str)
            .filter(|p| *p != "/");
        let with = |value: &str| {
            let mut v = input.clone();
            if let Some(map) = v.as_object_mut() {
                map.insert(field.into(), Value::from(value));
            }
            v
        };
        let Some(given) = given else {
            // The whole memory: access is checked before anything is routed, so a
            // write naming "/" never reaches a read-only store.
            if let Some((m, _)) = self
                .mounts
                .iter()
                .find(|(m, _)| !tool.read_only && m.access == Access::ReadOnly)
            {
                return Err(ToolsetError::ReadOnly {
                    tool: tool.name,
                    path: "/".into(),
                    mount: format!("/{}", m.name),
                }
                .into());
            }
            if tool.name == "memory_search" {
                return self.search_every_store(input, by).await;
            }
            // Each store's answer, under its own name.
            let mut parts = Vec::new();
            for (m, engine) in &self.mounts {
                let prefix = format!("/{}", m.name);
                parts.push(engine.toolset_by(&prefix, name, &with("/"), by).await?);
            }
            return Ok(parts.join("\n\n"));
        };
        let rest = given.strip_prefix('/').unwrap_or(given);
        let (first, below) = rest.split_once('/').unwrap_or((rest, ""));
        let Some((m, engine)) = self.mounts.iter().find(|(m, _)| m.name == first) else {
            let mounts: Vec<String> = self
                .mounts
                .iter()
                .map(|(m, _)| format!("/{}", m.name))
                .collect();
            return Err(ToolsetError::Unmounted {
                path: given.into(),
                mounts: mounts.join(", "),
            }
            .into());
        };
        if !tool.read_only && m.access == Access::ReadOnly {
            return Err(ToolsetError::ReadOnly {
                tool: tool.name,
                path: given.into(),
                mount: format!("/{}", m.name),
            }
            .into());
        }
        let local = format!("/{below}");
        engine
            .toolset_by(&format!("/{}", m.name), name, &with(&local), by)
            .await
    }

    /// `memory_search` over every store: each store's first page, merged by
    /// score (equal scores by path), the best [`SEARCH_PAGE`] of them; a store
    /// with more to page through is named, to be searched alone.
    async fn search_every_store(
        &self,
        input: &Value,
        by: Option<&Actor>,
    ) -> Result<String, T::ToolsetError> {
        let _ = by;
        if input.get("page").is_some() {
            return Err(ToolsetError::Input {
                tool: "memory_search",
                field: "page".into(),
                problem: "page is not a page token of this list and query".into(),
            }
            .into());
        }
        let query = input
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut hits = Vec::new();
        let mut more = Vec::new();
        for (m, engine) in &self.mounts {
            let prefix = format!("/{}", m.name);
            let (mut page, next) = engine.search_page(&prefix, input).await?;
            if next.is_some() {
                more.push(format!("{prefix}/"));
            }
            hits.append(&mut page);
        }
        let score = |v: &Value| v.get("score").and_then(Value::as_f64).unwrap_or_default();
        fn path(v: &Value) -> &str {
            v.get("path").and_then(Value::as_str).unwrap_or_default()
        }
        hits.sort_by(|a, b| rank_order((score(a), path(a)), (score(b), path(b))));
        let page = usize::try_from(SEARCH_PAGE).unwrap_or(usize::MAX);
        if hits.len() > page {
            for h in hits.get(page..).unwrap_or_default() {
                let p = path(h);
                if let Some(store) = self
                    .mounts
                    .iter()
                    .map(|(m, _)| format!("/{}/", m.name))
                    .find(|s| p.starts_with(s.as_str()))
                    && !more.contains(&store)
                {
                    more.push(store);
                }
            }
            hits.truncate(page);
        }
        let mut out = toolset::found_text(&hits, None, "/", query);
        if !more.is_empty() {
            out.push_str(&toolset::more_in_stores(&more));
        }
        Ok(out)
    }
}
