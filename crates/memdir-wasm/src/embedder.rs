//! An embedder written in JavaScript (`openMemory({ embedder })`): `{id, dims,
//! embed(texts, kind)}`, `embed` answering (or resolving) one array of numbers or
//! `Float32Array` per text. Whatever it does wrong (throws, rejects, answers the
//! wrong shape) becomes a `memdir::search::EmbedError` here, whose text the user
//! reads; the JS error's own text never travels (a hosted API's may name a key).

// The lean build (feature `tool`) keeps the handle's type, since openMemory's
// signature is one for both builds, but has no search and makes no embedder.
#![cfg_attr(feature = "tool", allow(dead_code, unused_imports))]

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use js_sys::{Array, Float32Array, Function, Promise, Reflect};
use memdir::search::{EmbedError, EmbedFuture, EmbedKind, Embedder};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// A JS embedder, checked once when the memory opens.
#[wasm_bindgen]
#[derive(Clone)]
pub struct EmbedderHandle {
    inner: Rc<JsEmbedder>,
}

impl EmbedderHandle {
    pub(crate) fn embedder(&self) -> Rc<dyn Embedder> {
        self.inner.clone()
    }
}

pub(crate) struct JsEmbedder {
    this: JsValue,
    id: String,
    dims: usize,
    embed: Function,
}

fn type_error(m: &str) -> JsValue {
    JsValue::from(js_sys::TypeError::new(&alloc::format!("openMemory: {m}")))
}

/// `jsEmbedder(obj)`: the embedder `obj`, or a `TypeError` saying what is wrong
/// with it (its id, dims or embed), read once so it cannot change mid-search.
// The lean build (feature `tool`) has no search, so nothing to embed for.
#[cfg(not(feature = "tool"))]
#[wasm_bindgen(js_name = jsEmbedder)]
pub fn js_embedder(obj: JsValue) -> Result<EmbedderHandle, JsValue> {
    if !obj.is_object() {
        return Err(type_error(
            "embedder must be an object {id, dims, embed(texts, kind)}",
        ));
    }
    let get = |name: &str| {
        Reflect::get(&obj, &JsValue::from_str(name))
            .map_err(|_| type_error(&alloc::format!("reading the embedder's {name} threw")))
    };
    let max = memdir::config::EMBED_MAX_DIMS;
    let id = get("id")?
        .as_string()
        .filter(|s| !s.trim().is_empty() && s.chars().count() <= 200)
        .ok_or_else(|| {
            type_error("embedder.id must be a non-empty string of at most 200 characters")
        })?;
    let dims = get("dims")?
        .as_f64()
        .filter(|d| d.fract() == 0.0 && *d >= 1.0 && *d <= max as f64)
        .ok_or_else(|| {
            type_error(&alloc::format!(
                "embedder.dims must be a whole number from 1 to {max}"
            ))
        })? as usize;
    let embed = get("embed")?
        .dyn_into::<Function>()
        .map_err(|_| type_error("embedder.embed must be a function (texts, kind) => vectors"))?;
    Ok(EmbedderHandle {
        inner: Rc::new(JsEmbedder {
            this: obj,
            id,
            dims,
            embed,
        }),
    })
}

impl JsEmbedder {
    async fn call(&self, texts: &[String], kind: EmbedKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let arg: Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let called = self
            .embed
            .call2(&self.this, &arg, &JsValue::from_str(kind.as_str()))
            .map_err(|_| EmbedError::Failed)?;
        // Promise.resolve takes a value, a promise or a thenable alike.
        let answer = JsFuture::from(Promise::resolve(&called))
            .await
            .map_err(|_| EmbedError::Failed)?;
        if !Array::is_array(&answer) {
            return Err(EmbedError::Shape);
        }
        let rows = Array::from(&answer);
        let mut out = Vec::with_capacity(rows.length() as usize);
        for row in rows.iter() {
            out.push(vector(&row)?);
        }
        Ok(out)
    }
}

/// One vector: a `Float32Array` (or any typed array of numbers) or an array of
/// numbers; a non-number is NaN, which the engine refuses.
fn vector(row: &JsValue) -> Result<Vec<f32>, EmbedError> {
    if let Some(f) = row.dyn_ref::<Float32Array>() {
        return Ok(f.to_vec());
    }
    if Array::is_array(row) {
        return Ok(Array::from(row)
            .iter()
            .map(|x| x.as_f64().map_or(f32::NAN, |v| v as f32))
            .collect());
    }
    if js_sys::ArrayBuffer::is_view(row) {
        return Ok(Float32Array::new(row).to_vec());
    }
    Err(EmbedError::Shape)
}

impl Embedder for JsEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn embed<'a>(&'a self, texts: &'a [String], kind: EmbedKind) -> EmbedFuture<'a> {
        Box::pin(self.call(texts, kind))
    }
}
