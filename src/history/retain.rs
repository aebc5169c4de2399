//! Version retention: which versions a retention period keeps, and dropping the
//! others from the log in one commit.
//!
//! A version is kept while it is younger than the period, and for as long as it
//! holds a live memory's current content; any other version is dropped (its slot
//! names no record and no blob; a memory's first slot keeps the memory's index
//! until the memory is deleted and its last version goes too). Slots left with
//! nothing are pruned from the log whole, and gc then deletes the records and blobs
//! no kept commit reaches, so a store's size follows what is live plus what the
//! period keeps, not every version ever made.
//!
//! A pass reads at most [`MAX_RETAIN_SCAN`] slots and stops at the first version
//! younger than the period (versions are numbered in time order); the engine
//! remembers where a cut-short pass stopped, so the next one goes on from there.

use alloc::collections::BTreeMap;

use crate::error::ToolError;
use crate::history::log::Place;
use crate::storage::Engine;
use crate::storage::overlay::Overlay;
use crate::storage::publish::Attempt;
use crate::storage::versions::{DROPPED, Op, Slot};
use crate::store::Store;

use crate::config::MAX_RETAIN_SCAN;

/// What a retention pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RetainReport {
    /// Versions dropped.
    pub dropped: u64,
    /// The pass stopped at [`MAX_RETAIN_SCAN`]: another pass goes on.
    pub more: bool,
}

impl<S: Store> Engine<S> {
    /// Drops, in one commit, the versions older than `older_than_ms` (by the
    /// runtime's clock) that hold no live memory's current content. Read-only
    /// stores are left alone.
    pub async fn retain(&self, older_than_ms: u64) -> Result<RetainReport, ToolError> {
        if self.config().read_only {
            return Ok(RetainReport::default());
        }
        let start = self.retain_cursor();
        let (report, stopped) = self
            .transact(false, async |head| {
                let now = self.now();
                let cutoff = now.saturating_sub(older_than_ms);
                let log = &head.log;
                let mut overlay = Overlay::on(head, now);
                let mut edit: BTreeMap<u64, Slot> = BTreeMap::new();
                // Each memory's newest version and its time, as a slot (head 0: no
                // memory), the map type `edit` already is.
                let mut known: BTreeMap<u64, Slot> = BTreeMap::new();
                let mut report = RetainReport::default();
                let mut seq = start;
                let mut read = 0;
                // Where the next pass starts: here again if this one was cut short.
                let mut stopped = 1;
                while seq <= log.versions {
                    if read == MAX_RETAIN_SCAN {
                        report.more = true;
                        stopped = seq;
                        break;
                    }
                    read += 1;
                    let slot = match self.place(&overlay, log, seq).await? {
                        Place::Pruned { last, .. } => {
                            seq = last + 1;
                            continue;
                        }
                        Place::Slot(s) => edit.get(&seq).copied().unwrap_or(s),
                    };
                    if slot.is_dropped() {
                        seq += 1;
                        continue;
                    }
                    let record = self.record(&overlay, slot.record, seq).await?;
                    if record.at >= cutoff {
                        break;
                    }
                    // The memory's newest version, once a pass: a pass drops no
                    // memory's newest but a deleted one's, which stays the newest.
                    let newest = match known.get(&record.mem) {
                        Some(s) => *s,
                        None => {
                            let l = self.latest_of(&overlay, head.root, log, record.mem).await?;
                            let s = l.map_or(Slot::EMPTY, |l| Slot {
                                head: l.head,
                                updated: l.updated,
                                ..Slot::EMPTY
                            });
                            known.insert(record.mem, s);
                            s
                        }
                    };
                    let current = newest.head == seq;
                    if current && record.op != Op::Deleted {
                        seq += 1;
                        continue;
                    }
                    let mut dropped = Slot {
                        record: DROPPED,
                        blob: None,
                        ..slot
                    };
                    // What the memory's first slot becomes: without an index, once
                    // a deleted memory's last version goes; naming the newest
                    // version, once the version it named goes (its record says
                    // where the memory is, and the newest was written there since).
                    let mut first = if record.mem == seq {
                        slot
                    } else {
                        match edit.get(&record.mem) {
                            Some(s) => *s,
                            None => self.slot(&overlay, log, record.mem).await?,
                        }
                    };
                    let index = if newest.head == 0 {
                        None
                    } else if current {
                        Some((0, 0))
                    } else if first.head == seq {
                        Some((newest.head, newest.updated))
                    } else {
                        None
                    };
                    if let Some((head, updated)) = index {
                        if record.mem == seq {
                            dropped.head = head;
                            dropped.updated = updated;
                        } else {
                            first.head = head;
                            first.updated = updated;
                            edit.insert(record.mem, first);
                        }
                    }
                    edit.insert(seq, dropped);
                    report.dropped += 1;
                    seq += 1;
                }
                if edit.is_empty() {
                    return Ok(Attempt::Unchanged((report, stopped)));
                }
                overlay.log_edit = edit;
                Ok(Attempt::Publish {
                    overlay,
                    root: head.root,
                    summary: alloc::string::String::from("retain"),
                    value: (report, stopped),
                })
            })
            .await?;
        self.set_retain_cursor(stopped);
        Ok(report)
    }
}
