//! Running a command: the engine's faces (typed, JSON value, JSON text) and the
//! dispatch between a view, which reads the head and renders, and a change, which
//! is planned (`plan`) and published (`publish`) in one compare-and-swap. The
//! object cache is `cache`; whole-memory maintenance is `maintain`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::future::{Future, poll_fn};
use core::pin::pin;
use core::task::Poll;

use serde_json::Value;

use crate::command::input::{self, Checked, Command};
use crate::command::plan::{Found, refuse_without_storage, screen_secrets};
use crate::command::render::{self, Row};
use crate::error::{Refusal, ToolError};
use crate::path::ValidPath;
use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::overlay::Overlay;
use crate::storage::publish::Attempt;
use crate::storage::tree::Kind;
use crate::storage::versions::Actor;
use crate::store::{Store, outlined};

/// The raw face of a command: what goes back to the model as a `tool_result`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ToolResult {
    /// The text the model sees (an error's without the `Error: ` prefix).
    pub content: String,
    /// Whether the command failed.
    pub is_error: bool,
}

impl ToolResult {
    /// The `tool_result` for an outcome: `Error: ` before a failure's message.
    pub fn of(outcome: &Result<String, ToolError>) -> ToolResult {
        match outcome {
            Ok(content) => ToolResult {
                content: content.clone(),
                is_error: false,
            },
            Err(e) => ToolResult {
                content: format!("Error: {e}"),
                is_error: true,
            },
        }
    }
}

impl<S: Store> Engine<S> {
    /// The typed face: one command in, the success text or a [`ToolError`] out.
    /// Its versions name the configured actor, as a session.
    pub async fn run(&self, cmd: Command) -> Result<String, ToolError> {
        self.run_by(cmd, None).await
    }

    /// [`Engine::run`] on behalf of `by` (`None`: the configured actor, as a
    /// session): the versions a change makes name it, as the Memory Stores API's
    /// do a request's actor. A server running the memory tool for one of its API
    /// keys passes the key's actor, so a version says which key acted whichever
    /// face it came through.
    pub async fn run_by(&self, cmd: Command, by: Option<&Actor>) -> Result<String, ToolError> {
        let result = self.run_checked(cmd, by).await;
        if result.is_err() {
            // A failure may have come from a store in an unknown state: trust
            // nothing cached about the head (objects stay valid: they are immutable).
            self.forget_head();
        }
        result
    }

    /// A tool input as a JSON value (the `input` of a `tool_use` block).
    pub async fn handle(&self, input: &Value) -> Result<String, ToolError> {
        self.run(Command::from_value(input)?).await
    }

    /// The raw face for a JSON value: `{content, is_error}` with `Error: ` before
    /// the message on failure.
    pub async fn execute(&self, input: &Value) -> ToolResult {
        ToolResult::of(&self.handle(input).await)
    }

    /// The raw face for JSON text (a stream, a file, a wasm boundary).
    pub async fn execute_json(&self, input: &str) -> ToolResult {
        let outcome = match input::parse_text(input) {
            Ok(cmd) => self.run(cmd).await,
            Err(e) => Err(e.into()),
        };
        ToolResult::of(&outcome)
    }

    async fn run_checked(&self, cmd: Command, by: Option<&Actor>) -> Result<String, ToolError> {
        let cmd = self.in_mount(cmd.validate_paths()?)?;
        self.run_validated(cmd, by).await
    }

    /// The path of the store's top: `/memories`, or where it is mounted.
    pub(crate) fn top(&self) -> ValidPath {
        match self.config().mount.as_str() {
            "" => ValidPath::root(),
            name => ValidPath::root().join(name).mounted(1),
        }
    }

    /// A command's paths as this store sees them: a store mounted at
    /// `/memories/<mount>` takes only paths there, and skips that name.
    pub(crate) fn in_mount(&self, cmd: Checked) -> Result<Checked, ToolError> {
        if self.config().mount.is_empty() {
            return Ok(cmd);
        }
        let top = self.top();
        if let Some(outside) = cmd
            .paths()
            .into_iter()
            .find(|p| p.as_str() != top.as_str() && !p.is_inside(&top))
        {
            return Err(Refusal::NoMount {
                path: outside.clone(),
                mounts: String::from(top.as_str()),
            }
            .into());
        }
        Ok(cmd.map_paths(|p| p.mounted(1)))
    }

    /// Runs a command whose paths are this store's (see [`Engine::in_mount`]).
    pub(crate) async fn run_validated(
        &self,
        cmd: Checked,
        by: Option<&Actor>,
    ) -> Result<String, ToolError> {
        let cmd = screen_secrets(cmd, self.config().secrets)?;
        refuse_without_storage(&cmd, &self.config().limits)?;
        match &cmd {
            // Each path its own function (see `outlined`): a view compiles no write.
            Checked::View { path, view_range } => outlined(self.view(path, *view_range)).await,
            _ => {
                let summary = cmd.summary();
                outlined(self.transact(true, async |head| {
                    self.not_archived(head, &cmd)?;
                    let mut overlay = Overlay::on(head, self.now());
                    overlay.by = by.cloned();
                    let plan = self.plan(&mut overlay, head.root, &cmd).await?;
                    Ok(Attempt::Publish {
                        overlay,
                        root: plan.root,
                        summary: summary.clone(),
                        value: plan.message,
                    })
                }))
                .await
            }
        }
    }

    /// An archived store's memories can be viewed and deleted, not created or
    /// changed: the rule the Memory Stores API and the toolset apply, checked here
    /// against the head the change is planned on, so every face that runs the
    /// memory tool (an MCP server, a worker, the host) refuses alike.
    fn not_archived(&self, head: &Head, cmd: &Checked) -> Result<(), ToolError> {
        let archived = head.store.as_ref().is_some_and(|s| s.archived_at.is_some());
        if !archived || matches!(cmd, Checked::View { .. } | Checked::Delete { .. }) {
            return Ok(());
        }
        let path = cmd
            .paths()
            .first()
            .copied()
            .cloned()
            .ok_or(ToolError::Damaged)?;
        let mount = match self.config().mount.as_str() {
            "" => String::new(),
            name => format!("{}/{name}", crate::path::ROOT),
        };
        Err(Refusal::Archived {
            command: cmd.name(),
            path,
            mount,
        }
        .into())
    }

    /// The top of the store for a listing of `/memories` across mounts: its total
    /// size and its visible entries (name, size, directory or not).
    pub(crate) async fn top_entries(
        &self,
    ) -> Result<(u64, alloc::vec::Vec<(String, u64, bool)>), ToolError> {
        let head = self.read_head().await?;
        let node = self.dir(&Overlay::default(), head.root).await?;
        let entries = render::visible(&node)
            .map(|(name, c)| (String::from(name), c.size, c.kind == Kind::Dir))
            .collect();
        Ok((node.size(), entries))
    }

    /// A view always re-reads the head: it must show what other writers committed.
    /// While the store answers that read, the view is rendered from the head this
    /// engine saw last, from the cache alone; the head read then decides whether
    /// that answer stands. So the rendering overlaps the store's round trip (an
    /// IndexedDB transaction, a file read) instead of following it. A store that
    /// answers at once (in memory) is simply read first.
    async fn view(&self, path: &ValidPath, range: Option<(i64, i64)>) -> Result<String, ToolError> {
        let mut read = pin!(self.read_head());
        // Polled once here, so the store has the request before the rendering starts.
        let head = match poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await {
            Poll::Ready(head) => head?,
            Poll::Pending => {
                let seen = self.last_head();
                let guess = seen.and_then(|seen| {
                    let answer = self.cache_alone(self.view_at(&seen, path, range))?;
                    Some((seen.raw, answer))
                });
                let head = read.await?;
                if let Some((raw, answer)) = guess
                    && raw == head.raw
                {
                    return answer;
                }
                head
            }
        };
        self.view_at(&head, path, range).await
    }

    /// The view of `path` in the tree `head` names.
    async fn view_at(
        &self,
        head: &Head,
        path: &ValidPath,
        range: Option<(i64, i64)>,
    ) -> Result<String, ToolError> {
        let none = Overlay::default();
        let limit = self.config().limits.read_limit_chars;
        let dir = match self.lookup(&none, head.root, path).await? {
            Found::Root => head.root,
            Found::Entry(c) if c.kind == Kind::Dir => self.subdir(&none, &c).await?,
            Found::Entry(c) => {
                let content = self.blob(&c).await?;
                return render::view_file(path, &content, range, limit);
            }
            Found::Missing | Found::UnderFile(_) => {
                return Err(Refusal::NotFoundHint(path.clone()).into());
            }
        };
        let node = self.dir(&none, dir).await?;
        // Each subdirectory read first, so that the rows can borrow every name.
        let mut subs = Vec::new();
        for (_, child) in render::visible(&node) {
            if child.kind == Kind::Dir {
                subs.push(self.dir(&none, self.subdir(&none, child).await?).await?);
            }
        }
        // Room for every row at once: a listing has dozens, each grown into was a copy.
        let most = 1 + node.children.len() + subs.iter().map(|s| s.children.len()).sum::<usize>();
        let mut subs = subs.iter();
        let at = path.as_str();
        let mut rows: Vec<Row> = Vec::with_capacity(most);
        rows.push((node.size(), [at, "", "", "", "", ""]));
        for (name, child) in render::visible(&node) {
            if child.kind == Kind::File {
                rows.push((child.size, [at, "/", name, "", "", ""]));
                continue;
            }
            rows.push((child.size, [at, "/", name, "/", "", ""]));
            for (grand, c) in subs
                .next()
                .map(|s| render::visible(s))
                .into_iter()
                .flatten()
            {
                let slash = if c.kind == Kind::Dir { "/" } else { "" };
                rows.push((c.size, [at, "/", name, "/", grand, slash]));
            }
        }
        render::view_dir(path, &rows, range, limit)
    }
}
