//! Reading a request: the body's fields by name and type, and the query's
//! parameters, each refusal in words that name the field.

use alloc::collections::BTreeMap;
use alloc::string::String;

use serde_json::{Map, Value};

use super::error::ApiError;

/// A JSON object body whose keys are all known.
pub(crate) struct Fields<'a>(Option<&'a Map<String, Value>>);

impl<'a> Fields<'a> {
    /// `body` must be an object (or absent: `null`) whose keys are in `known`.
    pub(crate) fn of(body: &'a Value, known: &[&str]) -> Result<Fields<'a>, ApiError> {
        match body {
            Value::Null => Ok(Fields(None)),
            Value::Object(map) => {
                if let Some(k) = map.keys().find(|k| !known.contains(&k.as_str())) {
                    return Err(ApiError::unknown_field(k));
                }
                Ok(Fields(Some(map)))
            }
            other => Err(ApiError::body_not_object(other)),
        }
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.0.and_then(|m| m.get(name))
    }

    /// A string field; absent is `None`, `null` or another type is refused.
    pub(crate) fn string(&self, name: &str) -> Result<Option<&'a str>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(ApiError::wrong_type(name, "a string", v)),
        }
    }

    /// A string field where `null` means the same as absent.
    pub(crate) fn nullable_string(&self, name: &str) -> Result<Option<&'a str>, ApiError> {
        match self.get(name) {
            Some(Value::Null) => Ok(None),
            _ => self.string(name),
        }
    }

    pub(crate) fn object(&self, name: &str) -> Result<Option<&'a Map<String, Value>>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(v) => Err(ApiError::wrong_type(name, "an object", v)),
        }
    }

    pub(crate) fn nullable_object(
        &self,
        name: &str,
    ) -> Result<Option<&'a Map<String, Value>>, ApiError> {
        match self.get(name) {
            Some(Value::Null) => Ok(None),
            _ => self.object(name),
        }
    }

    pub(crate) fn value(&self, name: &str) -> Option<&'a Value> {
        self.get(name)
    }
}

/// Parses a request body: absent, or JSON text.
pub(crate) fn parse(body: Option<&str>) -> Result<Value, ApiError> {
    match body {
        None => Ok(Value::Null),
        Some(t) if t.trim().is_empty() => Ok(Value::Null),
        Some(t) => crate::json::from_text(t).map_err(|_| ApiError::body_not_json()),
    }
}

/// The query's parameters (strings, as they arrive in a URL).
pub struct Query<'a>(pub &'a BTreeMap<String, String>);

impl Query<'_> {
    /// The parameter's text, or `None` when absent.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// A whole number from `min` to `max`, or `None` when absent.
    pub fn int(&self, name: &str, min: u64, max: u64) -> Result<Option<u64>, ApiError> {
        let Some(raw) = self.str(name) else {
            return Ok(None);
        };
        match raw.parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) && raw.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(Some(n))
            }
            _ => Err(ApiError::query_number(name, min, max, raw)),
        }
    }

    /// `true` or `false` as the parameter spells it; absent is `false`, anything
    /// else is refused.
    pub fn bool(&self, name: &str) -> Result<bool, ApiError> {
        match self.str(name) {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(raw) => Err(ApiError::query_bool(name, raw)),
        }
    }

    /// An RFC 3339 time, as ms since the epoch.
    pub fn time(&self, name: &str) -> Result<Option<u64>, ApiError> {
        match self.str(name) {
            None => Ok(None),
            Some(raw) => match crate::time::parse_ms(raw) {
                Some(ms) => Ok(Some(ms)),
                None => Err(ApiError::query_time(name, raw)),
            },
        }
    }
}
