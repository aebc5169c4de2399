//! Planning a change: what each mutating command does to one version of the tree,
//! computed beside it in an [`Overlay`] (nothing is written here), or the refusal
//! it gets. Also the checks that need no storage, so refusing them costs nothing.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use crate::command::input::Checked;
use crate::command::lines;
use crate::command::render;
use crate::config::Limits;
use crate::error::{LimitError, Refusal, ToolError};
use crate::path::ValidPath;
use crate::secrets::{self, SecretPolicy};
use crate::storage::Engine;
use crate::storage::overlay::Overlay;
use crate::storage::tree::{Child, Hash, Kind};
use crate::storage::versions::Op;
use crate::store::Store;

/// A memory-tool path as the store names it: `/memories/a/b` is `/a/b`.
pub(crate) fn store_path(path: &ValidPath) -> &str {
    path.local()
}

/// What a path names in one version of the tree.
pub(crate) enum Found {
    Root,
    Entry(Child),
    Missing,
    /// An ancestor at this depth is a file, so nothing can be beneath it.
    UnderFile(usize),
}

/// A planned change: the new root and the success message.
pub(crate) struct Plan {
    pub root: Hash,
    pub message: String,
}

impl<S: Store> Engine<S> {
    pub(crate) async fn lookup(
        &self,
        overlay: &Overlay,
        root: Hash,
        path: &ValidPath,
    ) -> Result<Found, ToolError> {
        let names: Vec<&str> = path.names().collect();
        let mut dir = root;
        for (depth, name) in names.iter().enumerate() {
            let Some(child) = self.dir_get(overlay, dir, name).await? else {
                return Ok(Found::Missing);
            };
            if depth + 1 == names.len() {
                return Ok(Found::Entry(child));
            }
            if child.kind == Kind::File {
                return Ok(Found::UnderFile(depth + 1));
            }
            dir = self.subdir(overlay, &child).await?;
        }
        Ok(Found::Root)
    }

    /// The top node of the directory `child` names, checked to hold the size its
    /// parent records for it (so sizes, and the quota, cannot be faked in one place).
    pub(crate) async fn subdir(&self, overlay: &Overlay, child: &Child) -> Result<Hash, ToolError> {
        if child.kind != Kind::Dir || self.stored(overlay, child.hash).await?.size() != child.size {
            return Err(ToolError::Damaged);
        }
        Ok(child.hash)
    }

    /// The file at `path` and its content, or `None` if it names no file.
    async fn file(
        &self,
        overlay: &Overlay,
        root: Hash,
        path: &ValidPath,
    ) -> Result<Option<(Child, Rc<str>)>, ToolError> {
        match self.lookup(overlay, root, path).await? {
            Found::Entry(c) if c.kind == Kind::File => Ok(Some((c, self.blob(&c).await?))),
            _ => Ok(None),
        }
    }

    /// Records a version for every memory at or beneath `child`, now at `path`:
    /// `deleted` ones (`moved_to: None`) or `modified` ones with their new paths.
    /// A file without an id yet gets none here: a rename of a file (not a
    /// directory) gives it one, in `plan`.
    async fn versions_beneath(
        &self,
        overlay: &mut Overlay,
        child: &Child,
        path: &ValidPath,
        op: Op,
    ) -> Result<(), ToolError> {
        let files = self.files_beneath(overlay, store_path(path), child).await?;
        for (p, c) in files {
            if c.mem != 0 {
                let content = (op != Op::Deleted).then_some(&c);
                overlay.version(c.mem, op, &p, content, Some(&c));
            }
        }
        Ok(())
    }

    /// Sets (or, with `None`, removes) the entry at `path`, making missing parent
    /// directories; returns the new root. Callers have checked that no ancestor is
    /// a file. Only the directories on the path are rewritten, and of each only
    /// the part that holds the name on the way (see `shard`).
    pub(crate) async fn put(
        &self,
        overlay: &mut Overlay,
        root: Hash,
        path: &ValidPath,
        entry: Option<Child>,
    ) -> Result<Hash, ToolError> {
        self.put_all(overlay, root, &[(path, entry)]).await
    }

    /// [`Engine::put`] of several paths at once, each directory on their ways
    /// rewritten (encoded, hashed) once: a move's removal and its arrival in the
    /// same directory, or under the same parents, rewrite those once, not twice.
    /// Paths of which one is at or inside another are put one after another.
    pub(crate) async fn put_all(
        &self,
        overlay: &mut Overlay,
        root: Hash,
        changes: &[(&ValidPath, Option<Child>)],
    ) -> Result<Hash, ToolError> {
        let nested = changes.iter().enumerate().any(|(i, (a, _))| {
            changes
                .iter()
                .skip(i + 1)
                .any(|(b, _)| a == b || a.is_inside(b) || b.is_inside(a))
        });
        let names: Vec<(Vec<&str>, Option<Child>)> = changes
            .iter()
            .map(|(path, entry)| (path.names().collect(), *entry))
            .filter(|(names, _): &(Vec<&str>, _)| !names.is_empty())
            .collect();
        let ways: Vec<(&[&str], Option<Child>)> =
            names.iter().map(|(n, e)| (n.as_slice(), *e)).collect();
        if ways.is_empty() {
            return Ok(root);
        }
        if !nested {
            return Ok(self.put_in(overlay, root, 0, &ways).await?.hash);
        }
        let mut root = root;
        for way in ways.chunks(1) {
            root = self.put_in(overlay, root, 0, way).await?.hash;
        }
        Ok(root)
    }

    /// The directory `dir`, at `depth` names down, with `changes` made beneath it
    /// (each a path's names from the top, and its entry).
    fn put_in<'a>(
        &'a self,
        overlay: &'a mut Overlay,
        dir: Hash,
        depth: usize,
        changes: &'a [(&'a [&'a str], Option<Child>)],
    ) -> core::pin::Pin<
        alloc::boxed::Box<dyn core::future::Future<Output = Result<Child, ToolError>> + 'a>,
    > {
        alloc::boxed::Box::pin(async move {
            // Entries of this directory itself, then one per subdirectory on a way.
            let mut sets: Vec<(&str, Option<Child>)> = changes
                .iter()
                .filter_map(|(names, entry)| match names.get(depth..) {
                    Some([last]) => Some((*last, *entry)),
                    _ => None,
                })
                .collect();
            let mut below: Vec<&str> = Vec::new();
            for (names, _) in changes {
                if let (Some(name), true) = (names.get(depth), names.len() > depth + 1)
                    && !below.contains(name)
                {
                    below.push(name);
                }
            }
            for name in below {
                let deeper: Vec<(&[&str], Option<Child>)> = changes
                    .iter()
                    .filter(|(names, _)| names.len() > depth + 1 && names.get(depth) == Some(&name))
                    .copied()
                    .collect();
                let sub = match self.dir_get(overlay, dir, name).await? {
                    Some(c) if c.kind == Kind::Dir => c.hash,
                    Some(_) => return Err(ToolError::Damaged),
                    None => self.empty_root(),
                };
                let rebuilt = self.put_in(overlay, sub, depth + 1, &deeper).await?;
                sets.push((name, Some(rebuilt)));
            }
            self.dir_set(overlay, dir, &sets).await
        })
    }

    /// Decides a mutating command against the tree at `root`.
    pub(crate) async fn plan(
        &self,
        overlay: &mut Overlay,
        root: Hash,
        cmd: &Checked,
    ) -> Result<Plan, ToolError> {
        let old_total = self.stored(overlay, root).await?.size();
        let (path, plan) = match cmd {
            // `run` sends views to `view`; a view here changes nothing.
            Checked::View { .. } => {
                return Ok(Plan {
                    root,
                    message: String::new(),
                });
            }
            Checked::Create { path, file_text } => {
                match self.lookup(overlay, root, path).await? {
                    Found::Root | Found::Entry(_) => {
                        return Err(Refusal::AlreadyExists(path.clone()).into());
                    }
                    Found::UnderFile(d) => {
                        return Err(Refusal::CreateUnderFile {
                            path: path.clone(),
                            file: path.ancestor(d),
                        }
                        .into());
                    }
                    Found::Missing => {}
                }
                let blob = overlay.add_memory(file_text, None, store_path(path));
                let root = self.put(overlay, root, path, Some(blob)).await?;
                let message = render::created(path);
                (path, Plan { root, message })
            }
            Checked::StrReplace {
                path,
                old_str,
                new_str,
            } => {
                let Some((old, content)) = self.file(overlay, root, path).await? else {
                    return Err(Refusal::NotFoundHint(path.clone()).into());
                };
                let found = lines::occurrences(&content, old_str);
                let at = match found.as_slice() {
                    [] => {
                        return Err(Refusal::NoMatch {
                            old: old_str.clone(),
                            path: path.clone(),
                        }
                        .into());
                    }
                    [at] => *at,
                    many => {
                        let at = lines::lines_of(&content, many);
                        let limit = self.config().limits.read_limit_chars;
                        return Err(Refusal::many_matches(old_str, &at, limit).into());
                    }
                };
                let mut edited = String::with_capacity(content.len() + new_str.len());
                edited.push_str(content.get(..at).unwrap_or_default());
                edited.push_str(new_str);
                edited.push_str(content.get(at + old_str.len()..).unwrap_or_default());
                fits(&self.config().limits, path, &edited)?;
                let first = lines::lines_of(&content, &[at])
                    .first()
                    .copied()
                    .unwrap_or(1);
                let message = render::snippet(&edited, first, lines::count(new_str) - 1);
                let blob = overlay.add_memory(&edited, Some(&old), store_path(path));
                let root = self.put(overlay, root, path, Some(blob)).await?;
                (path, Plan { root, message })
            }
            Checked::Insert {
                path,
                insert_line,
                insert_text,
            } => {
                let Some((old, content)) = self.file(overlay, root, path).await? else {
                    return Err(Refusal::NotFoundHint(path.clone()).into());
                };
                let n = lines::count(&content);
                let after = match insert_line.as_u64() {
                    Some(k) if k <= n as u64 => k as usize,
                    _ => {
                        return Err(Refusal::BadInsertLine {
                            line: insert_line.clone(),
                            lines: n,
                        }
                        .into());
                    }
                };
                let edited = lines::insert(&content, after, insert_text);
                fits(&self.config().limits, path, &edited)?;
                let blob = overlay.add_memory(&edited, Some(&old), store_path(path));
                let root = self.put(overlay, root, path, Some(blob)).await?;
                let message = render::inserted(path);
                (path, Plan { root, message })
            }
            Checked::Delete { path } => {
                let Found::Entry(gone) = self.lookup(overlay, root, path).await? else {
                    return Err(Refusal::NotFound(path.clone()).into());
                };
                self.versions_beneath(overlay, &gone, path, Op::Deleted)
                    .await?;
                let root = self.put(overlay, root, path, None).await?;
                let message = render::deleted(path);
                (path, Plan { root, message })
            }
            Checked::Rename { old_path, new_path } => {
                let Found::Entry(moved) = self.lookup(overlay, root, old_path).await? else {
                    return Err(Refusal::NotFound(old_path.clone()).into());
                };
                match self.lookup(overlay, root, new_path).await? {
                    Found::Root | Found::Entry(_) => {
                        return Err(Refusal::DestinationExists(new_path.clone()).into());
                    }
                    Found::UnderFile(d) => {
                        return Err(Refusal::RenameUnderFile {
                            from: old_path.clone(),
                            to: new_path.clone(),
                            file: new_path.ancestor(d),
                        }
                        .into());
                    }
                    Found::Missing => {}
                }
                let mut moved = moved;
                if moved.kind == Kind::File && moved.mem == 0 {
                    moved.mem =
                        overlay.version(0, Op::Created, store_path(new_path), Some(&moved), None);
                    moved.created = overlay.now;
                } else {
                    self.versions_beneath(overlay, &moved, new_path, Op::Modified)
                        .await?;
                }
                let root = self
                    .put_all(overlay, root, &[(old_path, None), (new_path, Some(moved))])
                    .await?;
                let message = render::renamed(old_path, new_path);
                (new_path, Plan { root, message })
            }
        };
        let new_total = self.stored(overlay, plan.root).await?.size();
        let quota = self.config().limits.max_total_bytes;
        if new_total > quota && new_total > old_total {
            return Err(LimitError::OverQuota {
                path: path.clone(),
                total: new_total,
                quota,
            }
            .into());
        }
        Ok(plan)
    }
}

/// The per-file limit.
pub(crate) fn fits(limits: &Limits, path: &ValidPath, content: &str) -> Result<(), ToolError> {
    let max = limits.max_file_bytes;
    if content.len() > max {
        return Err(LimitError::FileTooLarge {
            path: path.clone(),
            bytes: content.len(),
            max,
        }
        .into());
    }
    Ok(())
}

/// The checks that need no storage at all, so refusing costs no store operation.
pub(crate) fn refuse_without_storage(cmd: &Checked, limits: &Limits) -> Result<(), ToolError> {
    let refusal = match cmd {
        Checked::Create { path, .. } if path.is_root() => Refusal::CreateRoot,
        Checked::Create { path, file_text } => return fits(limits, path, file_text),
        Checked::Delete { path } if path.is_root() => Refusal::DeleteRoot,
        Checked::Rename { old_path, .. } if old_path.is_root() => Refusal::RenameRoot,
        Checked::Rename { old_path, new_path } if new_path.is_root() => {
            Refusal::RenameOntoRoot(old_path.clone())
        }
        Checked::Rename { old_path, new_path } if new_path.is_inside(old_path) => {
            Refusal::RenameIntoItself {
                from: old_path.clone(),
                to: new_path.clone(),
            }
        }
        _ => return Ok(()),
    };
    Err(refusal.into())
}

/// Applies the store's secret policy to the text a command would write: refuses it,
/// or rewrites it with each credential redacted. Pure, so a refusal costs no storage.
pub(crate) fn screen_secrets(cmd: Checked, policy: SecretPolicy) -> Result<Checked, ToolError> {
    if policy == SecretPolicy::Allow {
        return Ok(cmd);
    }
    let screen = |path: &ValidPath, text: String| -> Result<String, ToolError> {
        let found = secrets::find(&text);
        match found.first() {
            None => Ok(text),
            Some(first) if policy == SecretPolicy::Refuse => Err(ToolError::Secret {
                path: path.clone(),
                kind: first.kind,
            }),
            Some(_) => Ok(secrets::redact(&text, &found)),
        }
    };
    Ok(match cmd {
        Checked::Create { path, file_text } => {
            let file_text = screen(&path, file_text)?;
            Checked::Create { path, file_text }
        }
        Checked::StrReplace {
            path,
            old_str,
            new_str,
        } => {
            let new_str = screen(&path, new_str)?;
            Checked::StrReplace {
                path,
                old_str,
                new_str,
            }
        }
        Checked::Insert {
            path,
            insert_line,
            insert_text,
        } => {
            let insert_text = screen(&path, insert_text)?;
            Checked::Insert {
                path,
                insert_line,
                insert_text,
            }
        }
        other => other,
    })
}
