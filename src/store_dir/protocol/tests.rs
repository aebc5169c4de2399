//! The protocol against an in-memory directory that models what a crash keeps:
//! file bytes only once synced, names only once the directory is synced. Each
//! test runs an operation with the process dying at its k-th change (every call
//! from then on fails) for every k, then reads the directory both as the process
//! left it and as a crash of the machine would: every key holds its old value or
//! its new one, whole, and a head that survived names objects that survived. A
//! crash of the machine may also have kept any one change of names made since the
//! directory was last synced (a filesystem may write them in any order).

use super::*;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::ToString;
use alloc::vec;

#[derive(Clone, Debug, PartialEq)]
enum Entry {
    File(u64),
    Dir,
    Symlink,
}

#[derive(Clone, Debug, Default)]
struct Inode {
    data: Vec<u8>,
    durable: Vec<u8>,
    mtime: u64,
}

#[derive(Clone, Debug, Default)]
struct Fake {
    names: BTreeMap<String, Entry>,
    durable_names: BTreeMap<String, Entry>,
    /// The changes of names since the directory was last synced, each call's as
    /// one: a crash of the machine may keep any of them.
    unsynced: Vec<Vec<(String, Option<Entry>)>>,
    inodes: BTreeMap<u64, Inode>,
    next: u64,
    now: u64,
    /// The process dies at its change number `die_at` (counted from 0).
    die_at: Option<usize>,
    changes: usize,
    no_links: bool,
    /// Most names one file may have (ext4: 65,000): a link past it is refused.
    max_links: Option<usize>,
    /// Processes of this host that still run.
    alive: Vec<u32>,
    /// What the store directory itself is.
    root: Root,
    /// How many advisory locks were taken.
    flocks: usize,
    /// How many times the store directory itself was listed.
    listings: usize,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Root {
    #[default]
    Dir,
    Missing,
    /// Something else at its path: a symlink, a file...
    Is(crate::store_dir::EntryKind),
    /// Its parent cannot be searched.
    Denied,
    /// Its listing is refused.
    Unlistable,
}

const ME: u32 = 7;

impl Fake {
    fn change(&mut self) -> Result<(), IoKind> {
        if self.die_at.is_some_and(|k| self.changes >= k) {
            return Err(IoKind::Other);
        }
        self.changes += 1;
        Ok(())
    }

    fn new_inode(&mut self, data: &[u8]) -> u64 {
        self.next += 1;
        let mtime = self.now;
        self.inodes.insert(
            self.next,
            Inode {
                data: data.to_vec(),
                durable: Vec::new(),
                mtime,
            },
        );
        self.next
    }

    /// Applies `changes` (a name to an entry, or removed) as one change of names,
    /// which a power loss may keep alone.
    fn name(&mut self, changes: &[(&str, Option<Entry>)]) {
        for (n, e) in changes {
            match e {
                Some(e) => self.names.insert((*n).into(), e.clone()),
                None => self.names.remove(*n),
            };
        }
        let owned = changes
            .iter()
            .map(|(n, e)| ((*n).to_string(), e.clone()))
            .collect();
        self.unsynced.push(owned);
    }

    /// The directory as a crash of the machine leaves it.
    fn after_power_loss(&self) -> Fake {
        let mut f = self.clone();
        f.keep(None);
        f
    }

    /// The directory as a crash of the machine leaves it, having kept the `i`th
    /// change of names not yet synced (a filesystem may write any of them first);
    /// `None` when that change cannot have been written alone (a directory's
    /// removal before the removal of what it held).
    fn after_power_loss_keeping(&self, i: usize) -> Option<Fake> {
        let mut f = self.clone();
        f.keep(Some(i));
        let orphan = f.names.keys().any(|n| {
            n.rsplit_once('/')
                .is_some_and(|(parent, _)| f.names.get(parent) != Some(&Entry::Dir))
        });
        (!orphan).then_some(f)
    }

    /// Crashes the machine: what was synced stays, and the `i`th change of names
    /// not yet synced, if any.
    fn keep(&mut self, i: Option<usize>) {
        self.names = self.durable_names.clone();
        let kept = i.and_then(|i| self.unsynced.get(i)).cloned();
        for (n, e) in kept.into_iter().flatten() {
            match e {
                Some(e) => self.names.insert(n, e),
                None => self.names.remove(&n),
            };
        }
        self.durable_names = self.names.clone();
        self.unsynced.clear();
        for inode in self.inodes.values_mut() {
            inode.data = inode.durable.clone();
        }
        self.die_at = None;
    }

    fn revived(&self) -> Fake {
        let mut f = self.clone();
        f.die_at = None;
        f
    }

    fn put(&mut self, key: &str, value: &[u8]) {
        let name = crate::store_dir::file_name(key).unwrap();
        let pack = crate::store_dir::pack(&[(key, value)]).unwrap();
        let ino = self.new_inode(&pack);
        self.inodes.get_mut(&ino).unwrap().durable = pack;
        self.names.insert(name.clone(), Entry::File(ino));
        self.durable_names.insert(name, Entry::File(ino));
    }

    fn get(&mut self, key: &str) -> Result<Option<Vec<u8>>, Error<IoKind>> {
        read_value(self, key)
    }
}

impl DirIo for Fake {
    type File = u64;
    type Id = (u64, u64);
    type Error = IoKind;

    fn kind(e: &IoKind) -> IoKind {
        *e
    }

    fn open(&mut self, name: &str) -> Result<Opened<u64>, IoKind> {
        match self.names.get(name) {
            None => Err(IoKind::NotFound),
            Some(Entry::Symlink) => Err(IoKind::Loop),
            Some(Entry::Dir) => Ok(Opened {
                file: 0,
                size: 0,
                regular: false,
            }),
            Some(Entry::File(ino)) => Ok(Opened {
                file: *ino,
                size: self.inodes[ino].data.len() as u64,
                regular: true,
            }),
        }
    }

    fn read_at(&mut self, f: &u64, offset: u64, len: u64) -> Result<Vec<u8>, IoKind> {
        let data = &self.inodes.get(f).ok_or(IoKind::Other)?.data;
        let start = (offset as usize).min(data.len());
        let end = (start + len as usize).min(data.len());
        Ok(data[start..end].to_vec())
    }

    fn file_id(&mut self, f: &u64) -> Result<(u64, u64), IoKind> {
        Ok((1, *f))
    }

    fn close(&mut self, _: u64) {}

    fn stage(&mut self, bytes: &[u8]) -> Result<String, IoKind> {
        self.change()?;
        let name = format!("{}{}", crate::store_dir::TMP_PREFIX, self.unique());
        let ino = self.new_inode(bytes);
        self.name(&[(&name, Some(Entry::File(ino)))]);
        Ok(name)
    }

    fn sync_file(&mut self, name: &str) -> Result<(), IoKind> {
        self.change()?;
        match self.names.get(name) {
            Some(Entry::File(ino)) => {
                let inode = self.inodes.get_mut(ino).ok_or(IoKind::Other)?;
                inode.durable = inode.data.clone();
                Ok(())
            }
            _ => Err(IoKind::NotFound),
        }
    }

    fn create_excl(&mut self, name: &str, bytes: &[u8]) -> Result<(), IoKind> {
        self.change()?;
        if self.names.contains_key(name) {
            return Err(IoKind::Exists);
        }
        let ino = self.new_inode(bytes);
        self.name(&[(name, Some(Entry::File(ino)))]);
        Ok(())
    }

    fn replace(&mut self, name: &str, bytes: &[u8]) -> Result<(), IoKind> {
        self.change()?;
        match self.names.get(name) {
            Some(Entry::File(ino)) => {
                let now = self.now;
                let inode = self.inodes.get_mut(ino).ok_or(IoKind::Other)?;
                inode.data = bytes.to_vec();
                inode.mtime = now;
            }
            Some(_) => return Err(IoKind::Loop),
            None => {
                let ino = self.new_inode(bytes);
                self.name(&[(name, Some(Entry::File(ino)))]);
            }
        }
        Ok(())
    }

    fn read_small(&mut self, name: &str) -> Option<Vec<u8>> {
        match self.names.get(name)? {
            Entry::File(ino) => Some(self.inodes[ino].data.iter().take(256).copied().collect()),
            _ => None,
        }
    }

    fn exists(&mut self, name: &str) -> Result<bool, IoKind> {
        Ok(self.names.contains_key(name))
    }

    fn age_ms(&mut self, name: &str) -> Result<u64, IoKind> {
        match self.names.get(name) {
            None => Err(IoKind::NotFound),
            Some(Entry::File(ino)) => Ok(self.now - self.inodes[ino].mtime),
            Some(_) => Ok(0),
        }
    }

    fn link(&mut self, from: &str, to: &str) -> Result<(), IoKind> {
        self.change()?;
        if self.no_links {
            return Err(IoKind::NoLinks);
        }
        if self.names.contains_key(to) {
            return Err(IoKind::Exists);
        }
        let e = self.names.get(from).cloned().ok_or(IoKind::NotFound)?;
        if self
            .max_links
            .is_some_and(|max| self.names.values().filter(|n| **n == e).count() >= max)
        {
            return Err(IoKind::NoLinks);
        }
        self.name(&[(to, Some(e))]);
        Ok(())
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<(), IoKind> {
        self.change()?;
        let e = self.names.get(from).cloned().ok_or(IoKind::NotFound)?;
        if self.names.get(to) == Some(&e) {
            return Ok(()); // two names of one file: both stay
        }
        self.name(&[(from, None), (to, Some(e))]);
        Ok(())
    }

    fn unlink(&mut self, name: &str) -> Result<(), IoKind> {
        self.change()?;
        match self.names.get(name) {
            None => Err(IoKind::NotFound),
            Some(Entry::Dir) => Err(IoKind::Other),
            Some(_) => {
                self.name(&[(name, None)]);
                Ok(())
            }
        }
    }

    fn remove_dir(&mut self, name: &str) -> Result<(), IoKind> {
        self.change()?;
        let inside = format!("{name}/");
        if self.names.keys().any(|n| n.starts_with(&inside)) {
            return Err(IoKind::Other); // not empty
        }
        match self.names.get(name) {
            Some(Entry::Dir) => {
                self.name(&[(name, None)]);
                Ok(())
            }
            _ => Err(IoKind::Other),
        }
    }

    fn sync_dir(&mut self) -> Result<(), IoKind> {
        self.change()?;
        self.durable_names = self.names.clone();
        self.unsynced.clear();
        Ok(())
    }

    fn list(&mut self) -> Result<Vec<String>, IoKind> {
        self.listings += 1;
        Ok(self
            .names
            .keys()
            .filter(|n| !n.contains('/'))
            .cloned()
            .collect())
    }

    fn root_kind(&mut self) -> Result<crate::store_dir::EntryKind, IoKind> {
        use crate::store_dir::EntryKind;
        match self.root {
            Root::Dir | Root::Unlistable => Ok(EntryKind::Dir),
            Root::Missing => Err(IoKind::NotFound),
            Root::Is(k) => Ok(k),
            Root::Denied => Err(IoKind::Denied),
        }
    }

    fn create_root(&mut self) -> Result<(), IoKind> {
        self.change()?;
        if self.root == Root::Missing {
            self.root = Root::Dir;
        }
        Ok(())
    }

    fn entries(
        &mut self,
        sub: Option<&str>,
    ) -> Result<Vec<(String, crate::store_dir::EntryKind)>, IoKind> {
        use crate::store_dir::EntryKind;
        if self.root == Root::Unlistable {
            return Err(IoKind::Denied);
        }
        if sub.is_none() {
            self.listings += 1;
        }
        let prefix = sub.map(|s| format!("{s}/")).unwrap_or_default();
        if let Some(s) = sub
            && self.names.get(s) != Some(&Entry::Dir)
        {
            return Err(IoKind::NotFound);
        }
        Ok(self
            .names
            .iter()
            .filter_map(|(n, e)| {
                let rest = n.strip_prefix(prefix.as_str())?;
                (!rest.contains('/')).then(|| {
                    let kind = match e {
                        Entry::File(_) => EntryKind::File,
                        Entry::Dir => EntryKind::Dir,
                        Entry::Symlink => EntryKind::Symlink,
                    };
                    (rest.to_string(), kind)
                })
            })
            .collect())
    }

    fn lock_file(&mut self, _: &u64) -> Result<(), IoKind> {
        self.flocks += 1;
        Ok(())
    }

    fn unique(&mut self) -> String {
        self.next += 1;
        format!("u{}", self.next)
    }

    fn now_ms(&mut self) -> u64 {
        self.now
    }

    fn pid(&self) -> u32 {
        ME
    }

    fn host(&self) -> &str {
        "box"
    }

    fn alive(&mut self, pid: u32) -> bool {
        pid == ME || self.alive.contains(&pid)
    }

    fn sleep(&mut self, micros: u64) {
        self.now += micros.div_ceil(1000);
    }
}

const WAIT: u64 = 10_000;

fn set(io: &mut Fake, key: &str, value: &[u8], d: Durability) -> Result<(), Error<IoKind>> {
    let mut op = Set::new(key, value, WAIT, d)?;
    run(io, |io, last| op.poll(io, last))
}

fn commit(
    io: &mut Fake,
    objects: &[(&str, &[u8])],
    key: &str,
    expected: Option<&[u8]>,
    new: &[u8],
    d: Durability,
) -> Result<bool, Error<IoKind>> {
    let mut op = Commit::new(io, objects, key, expected, new, WAIT, d)?;
    run(io, |io, last| op.poll(io, last))
}

fn delete(io: &mut Fake, key: &str, d: Durability) -> Result<(), Error<IoKind>> {
    let mut op = Delete::new(key, WAIT, d)?;
    run(io, |io, last| op.poll(io, last))
}

const MODES: [Durability; 3] = [
    Durability::strict(),
    Durability {
        around_swap: false,
        each_change: false,
    },
    Durability {
        around_swap: false,
        each_change: true,
    },
];

/// Runs `op` on a copy of `base` dying at each change in turn (and once not at
/// all), handing each directory left (as the process left it, and after a power
/// loss) to `check`.
fn every_crash(
    base: &Fake,
    mut op: impl FnMut(&mut Fake) -> bool,
    mut check: impl FnMut(&mut Fake, bool, &str),
) {
    for k in 0.. {
        let mut io = base.clone();
        io.die_at = Some(k);
        let ok = op(&mut io);
        let finished = io.changes < k;
        check(&mut io.revived(), ok, &format!("died at change {k}"));
        check(
            &mut io.after_power_loss(),
            false,
            &format!("power lost at change {k}"),
        );
        for i in 0..io.unsynced.len() {
            if let Some(mut lost) = io.after_power_loss_keeping(i) {
                let what = format!("power lost at change {k}, unsynced change {i} kept");
                check(&mut lost, false, &what);
            }
        }
        if finished {
            assert!(ok, "the operation failed without a crash");
            break;
        }
        assert!(k < 100, "the operation never ends");
    }
}

fn one_of(got: Option<Vec<u8>>, allowed: &[Option<&[u8]>], what: &str) {
    assert!(
        allowed.contains(&got.as_deref()),
        "{what}: read {got:?}, neither the old value nor the new one"
    );
}

#[test]
fn a_compare_and_swap_reads_old_or_new_at_every_crash_and_its_head_never_names_a_lost_object() {
    for d in MODES {
        let mut base = Fake::default();
        base.put("head", b"old");
        every_crash(
            &base,
            |io| {
                commit(
                    io,
                    &[("obj1", b"one"), ("obj2", b"two")],
                    "head",
                    Some(b"old"),
                    b"new",
                    d,
                ) == Ok(true)
            },
            |io, ok, what| {
                let head = io.get("head").unwrap();
                one_of(head.clone(), &[Some(b"old"), Some(b"new")], what);
                if ok {
                    assert_eq!(head.as_deref(), Some(&b"new"[..]), "{what}");
                }
                if head.as_deref() == Some(b"new") && d.around_swap {
                    assert_eq!(
                        io.get("obj1").unwrap().as_deref(),
                        Some(&b"one"[..]),
                        "{what}"
                    );
                    assert_eq!(
                        io.get("obj2").unwrap().as_deref(),
                        Some(&b"two"[..]),
                        "{what}"
                    );
                }
                for k in ["obj1", "obj2"] {
                    let v = io.get(k).unwrap();
                    one_of(
                        v,
                        &[None, Some(if k == "obj1" { b"one" } else { b"two" })],
                        what,
                    );
                }
            },
        );
    }
}

#[test]
fn a_refused_compare_and_swap_publishes_nothing() {
    let mut io = Fake::default();
    io.put("head", b"theirs");
    let r = commit(
        &mut io,
        &[("obj", b"x")],
        "head",
        Some(b"old"),
        b"new",
        Durability::strict(),
    );
    assert_eq!(r, Ok(false));
    assert_eq!(io.get("head").unwrap().as_deref(), Some(&b"theirs"[..]));
    assert_eq!(io.get("obj").unwrap(), None);
    assert_eq!(
        io.list().unwrap().len(),
        1,
        "no temporary left: {:?}",
        io.names
    );
    // An absent key matches only an absent expectation.
    assert_eq!(
        commit(&mut io, &[], "new", None, b"v", Durability::strict()),
        Ok(true)
    );
    assert_eq!(
        commit(&mut io, &[], "new", None, b"w", Durability::strict()),
        Ok(false)
    );
}

#[test]
fn a_set_reads_old_or_new_at_every_crash() {
    for d in MODES {
        let mut base = Fake::default();
        base.put("k", b"old");
        every_crash(
            &base,
            |io| set(io, "k", b"new", d).is_ok(),
            |io, _, what| one_of(io.get("k").unwrap(), &[Some(b"old"), Some(b"new")], what),
        );
    }
}

/// Every file's bytes, as the process left them.
fn holds_bytes(io: &Fake, needle: &[u8]) -> Vec<String> {
    io.names
        .iter()
        .filter_map(|(n, e)| match e {
            Entry::File(ino) => io.inodes[ino]
                .data
                .windows(needle.len())
                .any(|w| w == needle)
                .then(|| n.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_delete_leaves_no_byte_of_its_value_and_its_mates_read_whole_at_every_crash() {
    for no_links in [false, true] {
        let mut base = Fake {
            no_links,
            ..Fake::default()
        };
        let objects: [(&str, &[u8]); 2] = [("gone", b"SECRET-VALUE"), ("kept", b"kept-value")];
        commit(
            &mut base,
            &objects,
            "head",
            None,
            b"h1",
            Durability::strict(),
        )
        .unwrap();
        assert!(!holds_bytes(&base, b"SECRET-VALUE").is_empty());
        let mut done = Fake::default();
        every_crash(
            &base,
            |io| {
                let ok = delete(io, "gone", Durability::strict()).is_ok();
                if ok {
                    done = io.clone();
                }
                ok
            },
            |io, _, what| {
                one_of(
                    io.get("gone").unwrap(),
                    &[None, Some(b"SECRET-VALUE")],
                    what,
                );
                assert_eq!(
                    io.get("kept").unwrap().as_deref(),
                    Some(&b"kept-value"[..]),
                    "{what}"
                );
                assert_eq!(
                    io.get("head").unwrap().as_deref(),
                    Some(&b"h1"[..]),
                    "{what}"
                );
            },
        );
        assert_eq!(done.get("gone").unwrap(), None);
        assert_eq!(
            holds_bytes(&done, b"SECRET-VALUE"),
            Vec::<String>::new(),
            "no_links {no_links}"
        );
        assert_eq!(
            done.get("kept").unwrap().as_deref(),
            Some(&b"kept-value"[..])
        );
    }
}

#[test]
fn an_object_stored_already_is_left_out_of_the_pack_and_written_again_if_swept_meanwhile() {
    let mut io = Fake::default();
    io.put("obj", b"same");
    let mut op = Commit::new(
        &mut io,
        &[("obj", b"same")],
        "head",
        None,
        b"h",
        WAIT,
        Durability::strict(),
    )
    .unwrap();
    assert_eq!(op.fresh.len(), 0);
    io.names.remove("kobj");
    assert_eq!(run(&mut io, |io, last| op.poll(io, last)), Ok(true));
    assert_eq!(io.get("obj").unwrap().as_deref(), Some(&b"same"[..]));
    assert!(
        holds_bytes(&io, b"same").len() == 1,
        "packed once: {:?}",
        holds_bytes(&io, b"same")
    );
}

#[test]
fn a_lock_of_a_dead_owner_is_broken_and_a_live_one_is_waited_for_until_the_deadline() {
    let lock = crate::store_dir::lock_name("khead");
    let mut io = Fake::default();
    io.create_excl(
        &lock,
        crate::store_dir::lock_token(99, "box", "x").as_bytes(),
    )
    .unwrap();
    assert_eq!(set(&mut io, "head", b"v", Durability::strict()), Ok(()));
    assert!(!io.names.contains_key(&lock), "released");

    let mut io = Fake {
        alive: vec![99],
        ..Fake::default()
    };
    io.create_excl(
        &lock,
        crate::store_dir::lock_token(99, "box", "x").as_bytes(),
    )
    .unwrap();
    let r = set(&mut io, "head", b"v", Durability::strict());
    assert_eq!(r, Err(Error::Locked));
    assert!(
        io.now >= WAIT && io.now < WAIT + 30,
        "ended at its deadline: {}",
        io.now
    );
    assert!(io.names.contains_key(&lock), "a live owner's lock stays");
    assert!(
        !io.names
            .keys()
            .any(|n| n.starts_with(crate::store_dir::TMP_PREFIX)),
        "{:?}",
        io.names
    );

    // Whatever sits at the lock's path, the wait ends; a directory only by its age.
    for entry in [Entry::Dir, Entry::Symlink] {
        let mut io = Fake::default();
        io.names.insert(lock.clone(), entry);
        assert_eq!(
            set(&mut io, "head", b"v", Durability::strict()),
            Err(Error::Locked)
        );
    }
    // An old lock is broken, whoever holds it.
    let mut io = Fake {
        alive: vec![99],
        ..Fake::default()
    };
    io.create_excl(
        &lock,
        crate::store_dir::lock_token(99, "box", "x").as_bytes(),
    )
    .unwrap();
    io.now = crate::config::LOCK_STALE_MS + 1;
    assert_eq!(set(&mut io, "head", b"v", Durability::strict()), Ok(()));
}

#[test]
fn a_lock_is_released_only_by_its_holder() {
    let mut io = Fake::default();
    let mut a = Acquire::new(&mut io, "lk".to_string(), WAIT);
    let held = a.poll(&mut io).unwrap().unwrap();
    // Broken as stale and taken by another meanwhile:
    io.names.remove("lk");
    io.create_excl("lk", b"someone else").unwrap();
    held.release(&mut io);
    assert_eq!(io.read_small("lk").as_deref(), Some(&b"someone else"[..]));
}

#[test]
fn reads_refuse_what_is_not_a_pack_and_lists_page() {
    let mut io = Fake::default();
    io.names.insert("kdir".into(), Entry::Dir);
    assert_eq!(io.get("dir"), Err(Error::NotAFile));
    io.names.insert("klink".into(), Entry::Symlink);
    assert_eq!(io.get("link"), Err(Error::Io(IoKind::Loop)));
    let ino = io.new_inode(b"MDP1garbage");
    io.names.insert("kbad".into(), Entry::File(ino));
    assert_eq!(io.get("bad"), Err(Error::Damaged));
    // A damaged or linked head matches nothing; a swap over it is refused.
    assert_eq!(
        commit(&mut io, &[], "bad", None, b"v", Durability::strict()),
        Ok(false)
    );
    assert_eq!(
        commit(&mut io, &[], "link", None, b"v", Durability::strict()),
        Ok(false)
    );
    for k in ["b", "a", "c"] {
        io.put(k, b"x");
    }
    assert_eq!(
        Listing::default().page(&mut io, "", Some("a"), 1).unwrap(),
        vec!["b".to_string()]
    );
}

#[test]
fn a_delete_unlinks_whatever_sits_at_a_name_without_following_it() {
    let mut io = Fake::default();
    io.names.insert("klink".into(), Entry::Symlink);
    assert_eq!(delete(&mut io, "link", Durability::strict()), Ok(()));
    assert!(!io.names.contains_key("klink"));
    assert_eq!(delete(&mut io, "absent", Durability::strict()), Ok(()));
}

#[test]
fn old_temporaries_are_swept() {
    let mut io = Fake::default();
    let t = io.stage(b"x").unwrap();
    io.now = crate::config::TMP_STALE_MS + 1;
    let fresh = io.stage(b"y").unwrap();
    let listed = io.list().unwrap();
    sweep_temporaries(&mut io, &listed);
    assert!(!io.names.contains_key(&t));
    assert!(io.names.contains_key(&fresh));
}

fn take_turn(io: &mut Fake) -> Option<Held> {
    let mut turn = Turn::new(io, crate::config::TURN_WAIT_MS);
    loop {
        match turn.poll(io) {
            TurnPoll::Held(h) => return Some(h),
            TurnPoll::Wait(us) => io.sleep(us),
            TurnPoll::GaveUp => return None,
        }
    }
}

#[test]
fn the_turn_goes_to_a_fresh_waiter_first_and_a_held_one_is_given_up_at_its_deadline() {
    use crate::config::{TURN_WAIT_MS, WANT_FRESH_MS};
    use crate::store_dir::{TURN_LOCK, TURN_WANT, lock_token};
    // Free: had at once, and released by its holder.
    let mut io = Fake::default();
    let held = take_turn(&mut io).unwrap();
    assert!(io.names.contains_key(TURN_LOCK));
    held.release(&mut io);
    assert!(!io.names.contains_key(TURN_LOCK));

    // Another process says it waits: it goes first while its want is fresh.
    let mut io = Fake::default();
    io.replace(TURN_WANT, lock_token(99, "box", "w").as_bytes())
        .unwrap();
    let start = io.now;
    let held = take_turn(&mut io).unwrap();
    assert!(
        io.now - start >= WANT_FRESH_MS,
        "waited for the want to go stale"
    );
    held.release(&mut io);

    // Held by a live process: given up at the deadline, our want said meanwhile.
    let mut io = Fake {
        alive: vec![99],
        ..Fake::default()
    };
    io.create_excl(TURN_LOCK, lock_token(99, "box", "x").as_bytes())
        .unwrap();
    assert!(take_turn(&mut io).is_none());
    assert!(
        io.now >= TURN_WAIT_MS && io.now < TURN_WAIT_MS + 10,
        "{}",
        io.now
    );
    assert!(io.read_small(TURN_WANT).unwrap().starts_with(b"7 box "));

    // Held by a process that is gone: broken, then had.
    let mut io = Fake::default();
    io.create_excl(TURN_LOCK, lock_token(99, "box", "x").as_bytes())
        .unwrap();
    let held = take_turn(&mut io).unwrap();
    assert!(io.now < 5, "{}", io.now);
    held.release(&mut io);
}

// OPENING

fn open(io: &mut Fake, convert_old_host: bool) -> Result<(), DirError> {
    let mut op = Open::new(convert_old_host);
    run(io, |io, last| op.poll(io, last))
}

#[test]
fn opening_reads_the_directory_once_and_sweeps_what_that_listing_held() {
    let mut io = Fake::default();
    io.put("a", b"1");
    io.put_raw(
        crate::store_dir::FORMAT,
        crate::store_dir::MARKER_TEXT.as_bytes(),
    );
    let stale = io.stage(b"x").unwrap();
    io.now = crate::config::TMP_STALE_MS + 1;
    let young = io.stage(b"y").unwrap();
    assert_eq!(open(&mut io, false), Ok(()));
    assert_eq!(io.listings, 1);
    assert!(!io.names.contains_key(&stale));
    assert!(io.names.contains_key(&young));
    assert_eq!(io.get("a"), Ok(Some(b"1".to_vec())));
}

impl Fake {
    /// A durable file of these bytes at `name`.
    fn put_raw(&mut self, name: &str, bytes: &[u8]) {
        let ino = self.new_inode(bytes);
        self.inodes.get_mut(&ino).unwrap().durable = bytes.to_vec();
        self.names.insert(name.into(), Entry::File(ino));
        self.durable_names.insert(name.into(), Entry::File(ino));
    }

    fn put_dir(&mut self, name: &str) {
        self.names.insert(name.into(), Entry::Dir);
        self.durable_names.insert(name.into(), Entry::Dir);
    }

    /// Whether the marker is in place and says this format (and, after a crash of
    /// the machine, would still).
    fn marked(&mut self) -> bool {
        self.read_small(crate::store_dir::FORMAT).as_deref()
            == Some(crate::store_dir::MARKER_TEXT.as_bytes())
    }

    /// The old host layout: raw values in `keys/`, a `tmp/` with a leftover, the
    /// advisory `lock` and the `turn`.
    fn old_host(values: &[(&str, &[u8])]) -> Fake {
        let mut io = Fake::default();
        io.put_dir("keys");
        for (k, v) in values {
            let name = crate::store_dir::file_name(k).unwrap();
            io.put_raw(&format!("keys/{name}"), v);
        }
        io.put_dir("tmp");
        io.put_raw("tmp/half-written", b"x");
        io.put_raw("lock", b"");
        io.put_raw("turn", b"");
        io
    }
}

const VALUES: [(&str, &[u8]); 3] = [("head", b"h1"), ("blob/1", b"one"), ("tree/A", b"two")];

fn holds_all(io: &mut Fake, values: &[(&str, &[u8])], what: &str) {
    for (k, v) in values {
        assert_eq!(io.get(k).unwrap().as_deref(), Some(*v), "{what}: {k}");
    }
}

#[test]
fn an_empty_or_missing_directory_gets_a_durable_marker() {
    for convert in [false, true] {
        for root in [Root::Dir, Root::Missing] {
            let mut io = Fake {
                root,
                ..Fake::default()
            };
            assert_eq!(open(&mut io, convert), Ok(()));
            assert_eq!(io.root, Root::Dir);
            assert!(io.after_power_loss().marked(), "{root:?}");
            assert_eq!(
                io.list().unwrap(),
                [crate::store_dir::FORMAT],
                "no temporary left"
            );
            // Opened again, it is a store as it is: nothing more is written.
            let changes = io.changes;
            assert_eq!(open(&mut io, convert), Ok(()));
            assert_eq!(io.changes, changes);
        }
    }
}

#[test]
fn the_node_layout_from_before_the_marker_is_marked_in_place() {
    let mut io = Fake::default();
    for (k, v) in VALUES {
        io.put(k, v);
    }
    let mut before = io.list().unwrap();
    assert_eq!(open(&mut io, false), Ok(()));
    before.push(crate::store_dir::FORMAT.into());
    before.sort();
    assert_eq!(io.list().unwrap(), before);
    assert!(io.after_power_loss().marked());
    holds_all(&mut io, &VALUES, "marked");
}

#[test]
fn a_directory_that_is_not_a_store_is_refused_with_nothing_written() {
    use crate::store_dir::{EntryKind, FORMAT};
    let store = || {
        let mut io = Fake::default();
        io.put("head", b"h");
        io
    };
    let marked = |text: &[u8]| {
        let mut io = store();
        io.put_raw(FORMAT, text);
        io
    };
    let with = |f: &dyn Fn(&mut Fake)| {
        let mut io = store();
        f(&mut io);
        io
    };
    let cases: Vec<(&str, Fake, DirError)> = vec![
        (
            "foreign",
            with(&|io| io.put_raw("notes.txt", b"mine")),
            DirError::NotAStore,
        ),
        (
            "a name that is not UTF-8",
            with(&|io| io.put_raw(".tmp-\u{fffd}", b"")),
            DirError::NotAStore,
        ),
        (
            "symlink",
            Fake {
                root: Root::Is(EntryKind::Symlink),
                ..Fake::default()
            },
            DirError::Symlink,
        ),
        (
            "file",
            Fake {
                root: Root::Is(EntryKind::File),
                ..Fake::default()
            },
            DirError::NotADirectory,
        ),
        (
            "unreachable",
            Fake {
                root: Root::Denied,
                ..Fake::default()
            },
            DirError::Unreadable,
        ),
        (
            "unlistable",
            Fake {
                root: Root::Unlistable,
                ..Fake::default()
            },
            DirError::Unreadable,
        ),
        (
            "damaged",
            marked(b"memdir-store one\n"),
            DirError::DamagedMarker,
        ),
        (
            "other",
            marked(b"some-other-tool 1\n"),
            DirError::OtherFormat,
        ),
        (
            "newer",
            marked(b"memdir-store 2\n"),
            DirError::NewerVersion(2),
        ),
        (
            "marker a directory",
            with(&|io| io.put_dir(FORMAT)),
            DirError::DamagedMarker,
        ),
        (
            "marker a symlink",
            with(&|io| {
                io.names.insert(FORMAT.into(), Entry::Symlink);
            }),
            DirError::DamagedMarker,
        ),
    ];
    for (name, base, want) in cases {
        for convert in [false, true] {
            let mut io = base.clone();
            assert_eq!(open(&mut io, convert), Err(want), "{name}");
            assert_eq!(io.changes, 0, "{name}: nothing written");
            assert_eq!(io.names, base.names, "{name}");
        }
    }
    // The old host layout, in a tool that does not convert it.
    let base = Fake::old_host(&VALUES);
    let mut io = base.clone();
    assert_eq!(open(&mut io, false), Err(DirError::OldHostLayout));
    assert_eq!((io.changes, &io.names), (0, &base.names));
}

#[test]
fn the_old_host_layout_is_converted_once_under_its_lock() {
    let mut io = Fake::old_host(&VALUES);
    assert_eq!(open(&mut io, true), Ok(()));
    assert_eq!(io.flocks, 1, "under the old layout's lock");
    holds_all(&mut io, &VALUES, "converted");
    holds_all(&mut io.after_power_loss(), &VALUES, "converted, power lost");
    assert!(io.marked());
    let mut want: Vec<String> = VALUES
        .iter()
        .map(|(k, _)| crate::store_dir::file_name(k).unwrap())
        .collect();
    want.push(crate::store_dir::FORMAT.into());
    want.sort();
    assert_eq!(
        io.names.keys().cloned().collect::<Vec<_>>(),
        want,
        "the old layout is gone, the new one in its place"
    );
    // Node opens it as it is now.
    let changes = io.changes;
    assert_eq!(open(&mut io, false), Ok(()));
    assert_eq!(io.changes, changes);
}

#[test]
fn the_leftovers_of_a_conversion_are_removed_by_a_converting_tool_only() {
    let mut base = Fake::old_host(&VALUES);
    base.put_raw(
        crate::store_dir::FORMAT,
        crate::store_dir::MARKER_TEXT.as_bytes(),
    );
    for (k, v) in VALUES {
        base.put(k, v);
    }
    let mut io = base.clone();
    assert_eq!(open(&mut io, false), Ok(()));
    assert_eq!(io.names, base.names, "Node leaves them");
    assert_eq!(open(&mut io, true), Ok(()));
    assert!(!io.names.keys().any(|n| {
        ["keys", "tmp", "lock", "turn"]
            .iter()
            .any(|old| n == old || n.starts_with(&format!("{old}/")))
    }));
    holds_all(&mut io, &VALUES, "cleaned");
}

/// After a crash at any step of opening `base`, a tool that does not convert the
/// old host layout opens the directory with every value, or refuses it with
/// nothing written; then one that converts opens it, with every value, marked,
/// and nothing left of the old layout's values.
fn open_survives_every_crash(base: &Fake, values: &[(&str, &[u8])], convert: bool) {
    every_crash(
        base,
        |io| open(io, convert).is_ok(),
        |io, ok, what| {
            let mut node = io.clone();
            let seen = node.clone();
            match open(&mut node, false) {
                Ok(()) => {
                    assert!(node.marked(), "{what}");
                    holds_all(&mut node, values, what);
                }
                refused => {
                    assert_eq!(refused, Err(DirError::OldHostLayout), "{what}");
                    assert!(!ok, "{what}: refused after a whole conversion");
                    assert_eq!(node.changes, seen.changes, "{what}: nothing written");
                    assert_eq!(node.names, seen.names, "{what}: nothing written");
                }
            }
            assert_eq!(open(io, true), Ok(()), "{what}");
            assert!(io.marked(), "{what}");
            holds_all(io, values, what);
            // A marker found in place is not synced again: lost with the power, the
            // directory is one to mark again, its values whole.
            let mut lost = io.after_power_loss();
            assert_eq!(open(&mut lost, true), Ok(()), "{what}: power lost");
            holds_all(&mut lost, values, what);
            // The old values' copies are gone (a crash within the removal may
            // leave `tmp/`, `lock` and `turn`, which are left alone as before).
            assert!(
                !io.names.keys().any(|n| n.starts_with("keys")),
                "{what}: {:?}",
                io.names.keys()
            );
        },
    );
}

#[test]
fn opening_dies_at_every_step_and_the_next_open_finishes_or_refuses_cleanly() {
    let mut flat = Fake::default();
    for (k, v) in VALUES {
        flat.put(k, v);
    }
    for convert in [false, true] {
        open_survives_every_crash(&Fake::default(), &[], convert);
        open_survives_every_crash(
            &Fake {
                root: Root::Missing,
                ..Fake::default()
            },
            &[],
            convert,
        );
        open_survives_every_crash(&flat, &VALUES, convert);
    }
    open_survives_every_crash(&Fake::old_host(&VALUES), &VALUES, true);
    let mut leftovers = Fake::old_host(&VALUES);
    leftovers.put_raw(
        crate::store_dir::FORMAT,
        crate::store_dir::MARKER_TEXT.as_bytes(),
    );
    for (k, v) in VALUES {
        leftovers.put(k, v);
    }
    open_survives_every_crash(&leftovers, &VALUES, true);
    // Its marker in place but not yet durable (the converter died before the sync).
    leftovers.durable_names.remove(crate::store_dir::FORMAT);
    open_survives_every_crash(&leftovers, &VALUES, true);
}

#[test]
fn a_paged_listing_reads_the_directory_once() {
    let mut io = Fake::default();
    let keys: Vec<String> = (0..2500).map(|i| format!("blob/{i:04}")).collect();
    for k in &keys {
        io.put(k, b"x");
    }
    io.put("head", b"h");
    // Pages as Node's store asks for them: one key over the page, to know whether
    // another follows; the next starts after the page's last key.
    let mut listing = Listing::default();
    let mut listed = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut page = listing
            .page(&mut io, "blob/", after.as_deref(), 1001)
            .unwrap();
        let more = page.len() > 1000;
        page.truncate(1000);
        after = page.last().cloned();
        listed.extend(page);
        if !more {
            break;
        }
    }
    assert_eq!(listed, keys);
    assert_eq!(io.listings, 1);
    // What reads the directory again: a listing starting over, another prefix, a
    // listing kept too long, and one forgotten (after a change).
    let first = listing.page(&mut io, "blob/", None, 1000).unwrap();
    assert_eq!(first.len(), 1000);
    assert_eq!(io.listings, 2);
    assert_eq!(
        listing
            .page(&mut io, "", Some("blob/0999"), 1000)
            .unwrap()
            .first()
            .map(String::as_str),
        Some("blob/1000")
    );
    assert_eq!(io.listings, 3);
    let page = listing.page(&mut io, "", Some("blob/1999"), 1000).unwrap();
    assert_eq!(page.len(), 501);
    assert_eq!(page.last().map(String::as_str), Some("head"));
    assert_eq!(io.listings, 3, "the last page is cut from the kept keys");
    // The pages after a read show the directory as it found it, until a change
    // through the store forgets them.
    listing.page(&mut io, "blob/", None, 10).unwrap();
    assert_eq!(io.listings, 4);
    io.put("blob/0005a", b"y");
    assert_eq!(
        listing
            .page(&mut io, "blob/", Some("blob/0005"), 1)
            .unwrap(),
        ["blob/0006"]
    );
    assert_eq!(io.listings, 4);
    listing.forget();
    assert_eq!(
        listing
            .page(&mut io, "blob/", Some("blob/0005"), 1)
            .unwrap(),
        ["blob/0005a"]
    );
    assert_eq!(io.listings, 5);
    // Kept too long; and a cursor before the keys a read kept.
    listing.page(&mut io, "blob/", None, 10).unwrap();
    io.now += crate::config::STORE_DIR_LISTING_KEEP_MS + 1;
    listing
        .page(&mut io, "blob/", Some("blob/0009"), 10)
        .unwrap();
    assert_eq!(io.listings, 7);
    assert_eq!(
        listing
            .page(&mut io, "blob/", Some("blob/0004"), 1)
            .unwrap(),
        ["blob/0005"]
    );
    assert_eq!(io.listings, 8);
}

#[test]
fn a_commit_of_more_keys_than_a_file_may_have_links_copies_its_pack_once_per_full_file() {
    for (max_links, no_links) in [(Some(4), false), (None, true)] {
        let mut io = Fake {
            max_links,
            no_links,
            ..Fake::default()
        };
        let keys: Vec<String> = (0..10).map(|i| format!("obj{i}")).collect();
        let objects: Vec<(&str, &[u8])> =
            keys.iter().map(|k| (k.as_str(), &b"value"[..])).collect();
        commit(&mut io, &objects, "head", None, b"h1", Durability::strict()).unwrap();
        for k in &keys {
            assert_eq!(io.get(k).unwrap().as_deref(), Some(&b"value"[..]), "{k}");
        }
        assert_eq!(io.get("head").unwrap().as_deref(), Some(&b"h1"[..]));
        // The files the keys' names are: with 4 names a file, 10 keys take 3 (the
        // staged name counts as one of the first file's four); without links, one
        // copy a key. Never a copy a key when links work.
        let mut files: Vec<Entry> = keys
            .iter()
            .map(|k| io.names[&crate::store_dir::file_name(k).unwrap()].clone())
            .collect();
        files.dedup();
        let want = if no_links { 10 } else { 4 };
        assert_eq!(files.len(), want, "max_links {max_links:?}");
        // No staged pack is left behind.
        assert!(
            io.names
                .keys()
                .all(|n| !n.starts_with(crate::store_dir::TMP_PREFIX)),
            "{:?}",
            io.names.keys().collect::<Vec<_>>()
        );
    }
}
