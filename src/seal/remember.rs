//! What a sealed store remembers of its few changing values (`head`,
//! `index/head`, gc's and sync's own): each one's stored name, and the value it
//! last read or wrote there with its sealed bytes.
//!
//! Every command reads the head and ends with a compare-and-swap of it; sealing
//! costs a fixed microsecond or two a seal (AES-GCM-SIV derives a key per
//! message), so sealing the head's name on each read and its expected value on
//! each swap was a third of a small write's cost. Content-addressed names are not
//! remembered: each is written once and the engine caches what it reads.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{SEAL_REMEMBER_NAMES, SEAL_REMEMBER_VALUE_BYTES};

/// One changing name's stored form, and what it holds as far as this handle saw.
#[derive(Clone, Default)]
pub(crate) struct Remembered {
    pub(crate) raw: String,
    /// The plain value and its sealed bytes (if small enough to keep).
    pub(crate) value: Option<(Vec<u8>, Vec<u8>)>,
}

/// The remembered names of one generation (cleared when the keys change).
#[derive(Default)]
pub(crate) struct Memory {
    names: BTreeMap<String, Remembered>,
}

impl Memory {
    pub(crate) fn get(&self, name: &str) -> Option<&Remembered> {
        self.names.get(name)
    }

    /// Remembers `name` stored at `raw`, holding `value` (None: unknown).
    pub(crate) fn put(&mut self, name: &str, raw: &str, value: Option<(&[u8], &[u8])>) {
        if !self.names.contains_key(name) && self.names.len() >= SEAL_REMEMBER_NAMES {
            // Past its bound: start again rather than track an order to evict by.
            self.names.clear();
        }
        let value = value
            .filter(|(_, sealed)| sealed.len() <= SEAL_REMEMBER_VALUE_BYTES)
            .map(|(plain, sealed)| (plain.to_vec(), sealed.to_vec()));
        self.names.insert(
            String::from(name),
            Remembered {
                raw: String::from(raw),
                value,
            },
        );
    }

    /// Forgets what `name` holds (its stored name stays right).
    pub(crate) fn forget_value(&mut self, name: &str) {
        if let Some(r) = self.names.get_mut(name) {
            r.value = None;
        }
    }

    pub(crate) fn clear(&mut self) {
        self.names.clear();
    }
}
