//! One memory of several stores in the host: one component instance per mount,
//! each configured with its mount's name and served its own backend. Which store a
//! command goes to, what is refused before any store is touched, and the listing of
//! `/memories` across stores are `memdir::mounts`' rules, run here over the
//! instances; each instance's engine does the rest.

use std::cell::RefCell;
use std::sync::Arc;

use memdir::MountError;
use memdir::config::Limits;
use memdir::mounts::{Mount, MountTarget, Mounted, Top};
use memdir::{Command, ToolResult};

use crate::backend::Backend;
use crate::sandbox::{CallError, Host, HostLimits, Runtime, ToolConfig};

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
                host.configure(config);
                (mount, Instance(RefCell::new(host)))
            })
            .collect();
        Ok(MountedHost {
            mounted: Mounted::new(targets)?,
            limits,
        })
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
