//! Reading the stored binary forms (version-log nodes, tree leaves) front to back.
//! A stored value is input: every read is checked, and a short value is `None`.

use crate::storage::hash::Hash;

pub(crate) struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader(bytes)
    }

    /// What is left unread.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.0
    }

    pub(crate) fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    pub(crate) fn byte(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }

    pub(crate) fn hash(&mut self) -> Option<Hash> {
        self.take::<32>().map(Hash)
    }

    /// A little-endian u64 (the log's fixed-width numbers).
    pub(crate) fn u64_le(&mut self) -> Option<u64> {
        self.take::<8>().map(u64::from_le_bytes)
    }

    /// A LEB128 number in its shortest form, within 64 bits (the tree leaves').
    pub(crate) fn leb128(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let part = u64::from(b & 0x7f);
            if part << shift >> shift != part {
                return None; // past 64 bits
            }
            n |= part << shift;
            if b & 0x80 == 0 {
                // A last byte of 0 after others is a longer spelling of a shorter number.
                return (b != 0 || shift == 0).then_some(n);
            }
        }
        None
    }
}
