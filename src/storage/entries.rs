//! A directory's entries in byte order of their names: a sorted vector of shared
//! names, not a B-tree of owned ones. Every write copies the leaf it changes; a
//! `BTreeMap<String, Child>` copied one allocation per B-tree node and one per
//! name, 9% of a write's own work. This copies with one allocation, and a leaf
//! (at most [`crate::storage::tree::LEAF_MAX`] entries) is searched by bisection.
//!
//! An insert or a removal moves the entries after it, so whole directories (which
//! may be large) are built by [`Entries::from_unsorted`] or in order by
//! [`Entries::push_last`], never one insert at a time.

use alloc::rc::Rc;
use alloc::vec::Vec;

use crate::storage::child::Child;

/// An entry's name, shared by every copy of the leaves that hold it.
pub(crate) type Name = Rc<str>;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entries(Vec<(Name, Child)>);

/// Two entries with one name, or (for [`Entries::push_last`]) one out of order: a
/// leaf stored so is damage.
#[derive(Debug, PartialEq, Eq)]
pub struct Duplicate;

impl Entries {
    pub fn new() -> Entries {
        Entries(Vec::new())
    }

    pub fn with_capacity(n: usize) -> Entries {
        Entries(Vec::with_capacity(n))
    }

    /// The entries of `pairs` in name order, or [`Duplicate`] if a name repeats.
    pub fn from_unsorted(mut pairs: Vec<(Name, Child)>) -> Result<Entries, Duplicate> {
        // Unstable: the names are unique or refused, and a stable sort compiles
        // several KiB more wasm for each element type.
        pairs.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        if pairs.windows(2).any(|w| matches!(w, [a, b] if a.0 == b.0)) {
            return Err(Duplicate);
        }
        Ok(Entries(pairs))
    }

    /// Adds an entry named after every one so far, or [`Duplicate`] if its name
    /// is not (the strict order binary leaves keep).
    pub fn push_last(&mut self, name: Name, child: Child) -> Result<(), Duplicate> {
        if let Some((last, _)) = self.0.last()
            && last.as_bytes() >= name.as_bytes()
        {
            return Err(Duplicate);
        }
        self.0.push((name, child));
        Ok(())
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0
            .binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes()))
    }

    pub fn get(&self, name: &str) -> Option<&Child> {
        let i = self.find(name).ok()?;
        self.0.get(i).map(|(_, c)| c)
    }

    /// Sets `name`'s entry, sharing `name`; the entry it replaces, if any.
    pub fn insert(&mut self, name: Name, child: Child) -> Option<Child> {
        match self.find(&name) {
            Ok(i) => self.0.get_mut(i).map(|(_, c)| core::mem::replace(c, child)),
            Err(i) => {
                self.0.insert(i, (name, child));
                None
            }
        }
    }

    /// Sets `name`'s entry, making a shared name only for a new entry.
    pub fn set(&mut self, name: &str, child: Child) -> Option<Child> {
        match self.find(name) {
            Ok(i) => self.0.get_mut(i).map(|(_, c)| core::mem::replace(c, child)),
            Err(i) => {
                self.0.insert(i, (Name::from(name), child));
                None
            }
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<Child> {
        let i = self.find(name).ok()?;
        Some(self.0.remove(i).1)
    }

    /// Keeps only the entries `keep` says to, as it says to keep them.
    pub fn retain_map(&mut self, mut keep: impl FnMut(&Name, Child) -> Option<Child>) {
        self.0.retain_mut(|(name, child)| match keep(name, *child) {
            Some(c) => {
                *child = c;
                true
            }
            None => false,
        });
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> Iter<'_> {
        self.0.iter().map(|(n, c)| (n, c))
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Child> + ExactSizeIterator {
        self.0.iter().map(|(_, c)| c)
    }

    /// The entries split into `n` parts by `part` of each name (below `n`), each
    /// part in name order.
    pub fn split_by(self, n: usize, part: impl Fn(&str) -> u8) -> Vec<Entries> {
        let mut parts: Vec<Entries> = (0..n).map(|_| Entries::new()).collect();
        for (name, child) in self.0 {
            // In order already: a part of sorted unique entries is sorted and unique.
            if let Some(p) = parts.get_mut(usize::from(part(&name))) {
                p.0.push((name, child));
            }
        }
        parts
    }
}

/// The entries with their names, in name order.
pub(crate) type Iter<'a> = core::iter::Map<
    core::slice::Iter<'a, (Name, Child)>,
    fn(&'a (Name, Child)) -> (&'a Name, &'a Child),
>;

impl<'a> IntoIterator for &'a Entries {
    type Item = (&'a Name, &'a Child);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::storage::child::Kind;
    use crate::storage::hash::Hash;
    use alloc::collections::BTreeMap;
    use alloc::string::String;

    fn child(n: u64) -> Child {
        Child::plain(Kind::File, Hash::of(&n.to_le_bytes()), n, n)
    }

    #[test]
    fn entries_keep_the_order_and_answers_of_a_btree_map() {
        let names = ["b", "a", "é", "B", "ab", "a", "z", "", "zz", "b"];
        let (mut ours, mut theirs) = (Entries::new(), BTreeMap::<String, Child>::new());
        for (i, name) in names.iter().enumerate() {
            let c = child(i as u64);
            if i % 2 == 0 {
                assert_eq!(ours.set(name, c), theirs.insert((*name).into(), c));
            } else {
                assert_eq!(
                    ours.insert(Name::from(*name), c),
                    theirs.insert((*name).into(), c)
                );
            }
            for probe in names.iter().chain(&["missing"]) {
                assert_eq!(ours.get(probe), theirs.get(*probe));
            }
        }
        for name in ["a", "missing", "zz", "a"] {
            assert_eq!(ours.remove(name), theirs.remove(name));
        }
        let listed: Vec<(&str, Child)> = ours.iter().map(|(n, c)| (&**n, *c)).collect();
        let want: Vec<(&str, Child)> = theirs.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        assert_eq!(listed, want);
        assert_eq!(ours.len(), theirs.len());

        let pairs: Vec<(Name, Child)> = ours.iter().rev().map(|(n, c)| (n.clone(), *c)).collect();
        assert_eq!(Entries::from_unsorted(pairs.clone()), Ok(ours.clone()));
        let mut twice = pairs;
        twice.push((Name::from("b"), child(99)));
        assert_eq!(Entries::from_unsorted(twice), Err(Duplicate));

        let mut built = Entries::new();
        for (n, c) in &ours {
            built.push_last(n.clone(), *c).unwrap();
        }
        assert_eq!(built, ours);
        assert_eq!(built.push_last(Name::from("b"), child(1)), Err(Duplicate));
        assert_eq!(built.push_last(Name::from("zz"), child(1)), Err(Duplicate));

        ours.retain_map(|n, c| (&**n != "b").then(|| child(c.size + 1)));
        theirs.remove("b");
        let kept: Vec<(&str, u64)> = ours.iter().map(|(n, c)| (&**n, c.size)).collect();
        let want: Vec<(&str, u64)> = theirs
            .iter()
            .map(|(n, c)| (n.as_str(), c.size + 1))
            .collect();
        assert_eq!(kept, want);
    }
}
