//! The Memory Stores API (docs/memory-stores.md) over one store: one request in,
//! one `{status, body}` out. Every face (JS `Memory.api`, the WIT `api`, the host)
//! and both HTTP servers pass requests through [`Engine::api`]; every check, id,
//! page and error text is decided in this module's files:
//! `rules` (paths, ids), `body` (reading fields), `meta` (the store's record),
//! `memories`, `versions`, `search`, `stores` (the operations), `objects` (the
//! JSON answers), `page` (page tokens), `error` (errors, their types and statuses).

pub(crate) mod body;
mod erase;
pub(crate) mod error;
mod memories;
pub(crate) mod meta;
pub(crate) mod objects;
pub(crate) mod page;
pub mod rules;
mod search;
mod stores;
mod versions;

use alloc::collections::BTreeMap;
use alloc::string::String;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::storage::Engine;
use crate::storage::head::Head;
use crate::storage::versions::Actor;
use crate::store::Store;
use error::ApiError;
use objects::StoreIds;

pub use body::Query;
pub use stores::list_stores;

use crate::config::{API_READ_RETRIES, MAX_API_BODY_BYTES};

pub(crate) type Outcome = Result<Value, ApiError>;

/// One request to the engine.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    op: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    query: BTreeMap<String, String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    actor: Option<Actor>,
}

/// Whether answers carry content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    Basic,
    Full,
}

impl View {
    fn of(q: &Query<'_>, default: View) -> Result<View, ApiError> {
        match q.str("view") {
            None => Ok(default),
            Some("basic") => Ok(View::Basic),
            Some("full") => Ok(View::Full),
            Some(v) => Err(ApiError::bad_view(v)),
        }
    }
}

/// What an operation runs against: the state it read, the ids it names, who acts.
pub(crate) struct Ctx {
    pub head: Head,
    pub ids: StoreIds,
    pub actor: Option<Actor>,
}

impl Ctx {
    pub(crate) fn of(head: &Head, actor: Option<Actor>) -> Ctx {
        let store_id = head.store.as_ref().map(|m| m.id.clone());
        Ctx {
            ids: StoreIds {
                tag: rules::tag(store_id.as_deref()).into(),
                store_id: store_id.unwrap_or_default(),
            },
            head: head.clone(),
            actor,
        }
    }
}

/// An answer: the HTTP status and the JSON body.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The HTTP status: 200, or the error's.
    pub status: u16,
    /// The JSON body: the result, or the API's error object.
    pub body: Value,
}

impl Response {
    /// The answer to an operation's outcome: its result with 200, or its error's
    /// status and body.
    pub fn of(outcome: Outcome) -> Response {
        match outcome {
            Ok(body) => Response { status: 200, body },
            Err(e) => Response {
                status: e.status(),
                body: e.body(),
            },
        }
    }

    /// The answer to a request for a store no mount names.
    pub fn no_mount(name: &str) -> Response {
        Response::of(Err(ApiError::no_mount(name)))
    }

    /// The answer to a body over [`MAX_API_BODY_BYTES`].
    pub fn too_large() -> Response {
        Response::of(Err(ApiError::body_too_large()))
    }

    /// The answer as `{"status", "body"}` JSON text, as the faces pass it on.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&json!({"status": self.status, "body": self.body}))
            .unwrap_or_default()
    }
}

/// The operations that change a store: refused at once on a read-only one.
/// The operations that change a store (every other one only reads): refused on a
/// store opened read-only, and run in a store directory's turn.
pub const WRITE_OPS: [&str; 8] = [
    "store.create",
    "store.update",
    "store.archive",
    "store.delete",
    "memory.create",
    "memory.update",
    "memory.delete",
    "version.redact",
];

impl<S: Store> Engine<S> {
    /// The API face: one request (see docs/memory-stores.md) in, its answer out.
    pub async fn api(&self, request: &Value) -> Response {
        let outcome = self.api_outcome(request).await;
        if outcome.is_err() {
            self.forget_head();
        }
        Response::of(outcome)
    }

    /// The API face for JSON text; answers the JSON text of `{status, body}`.
    pub async fn api_json(&self, request: &str) -> String {
        let response = match crate::json::from_text::<Value>(request) {
            Ok(v) => self.api(&v).await,
            Err(_) => Response::of(Err(ApiError::request_not_json())),
        };
        response.to_json()
    }

    async fn api_outcome(&self, request: &Value) -> Outcome {
        let r: Request =
            serde_json::from_value(request.clone()).map_err(|_| ApiError::not_a_request())?;
        if r.body
            .as_ref()
            .is_some_and(|b| b.len() > MAX_API_BODY_BYTES)
        {
            return Err(ApiError::body_too_large());
        }
        if r.actor.as_ref().is_some_and(|a| !a.is_valid()) {
            return Err(ApiError::bad_actor());
        }
        if self.config().read_only && WRITE_OPS.contains(&r.op.as_str()) {
            return Err(ApiError::ReadOnly);
        }
        let body = body::parse(r.body.as_deref())?;
        let q = Query(&r.query);
        let id = r.id.as_deref();
        let mut ctx = Ctx::of(&self.read_head().await?, r.actor.clone());
        let mut retries = 0;
        loop {
            let outcome = self.api_op(&r.op, &ctx, id, &body, &q).await;
            // A read that met a missing object may have raced a writer that erased
            // it after this read its head (a redaction erases at once, another
            // instance's gc a pass later): if the head has moved, the read is taken
            // again at the new head, a bounded number of times. At an unmoved head
            // the object is missing indeed, and that is damage. A write plans in its
            // own transaction, which re-reads on its own.
            if retries == API_READ_RETRIES
                || WRITE_OPS.contains(&r.op.as_str())
                || !matches!(outcome, Err(ApiError::Damaged))
            {
                return outcome;
            }
            let now = self.read_head().await?;
            if now == ctx.head {
                return outcome;
            }
            retries += 1;
            ctx = Ctx::of(&now, r.actor.clone());
        }
    }

    /// Operation `op` against the state `ctx` read.
    async fn api_op(
        &self,
        op: &str,
        ctx: &Ctx,
        id: Option<&str>,
        body: &Value,
        q: &Query<'_>,
    ) -> Outcome {
        match op {
            "store.create" => self.store_create(id, body).await,
            "store.retrieve" => self.store_retrieve(ctx),
            "store.update" => self.store_update(body).await,
            "store.archive" => self.store_archive().await,
            "store.delete" => self.store_delete(ctx),
            "memory.create" => self.memory_create(ctx, body, q).await,
            "memory.retrieve" => self.memory_retrieve(ctx, id, q).await,
            "memory.update" => self.memory_update(ctx, id, body, q).await,
            "memory.delete" => self.memory_delete(ctx, id, q).await,
            "memory.list" => self.memory_list(ctx, q).await,
            "memory.search" => self.memory_search(ctx, q).await,
            "version.list" => self.version_list(ctx, q).await,
            "version.retrieve" => self.version_retrieve(ctx, id, q).await,
            "version.redact" => self.version_redact(ctx, id, body).await,
            other => Err(ApiError::no_operation(other)),
        }
    }
}
