//! The lock files: a key's lock for its read-compare-rename ([`Acquire`]), the
//! process's turn for a whole command ([`Turn`]), and breaking a lock whose holder
//! is gone.

use alloc::string::String;

use super::{DirIo, Error, IoKind};
use crate::store_dir as dir;

/// A lock file this process holds.
#[derive(Debug)]
pub struct Held {
    name: String,
    token: String,
}

impl Held {
    /// Removes the lock only if it is still ours (it may have been broken as stale).
    pub fn release<I: DirIo>(self, io: &mut I) {
        if io.still_holds(&self.name, self.token.as_bytes()) {
            let _ = io.unlink(&self.name);
        }
    }
}

/// Breaks the lock `name` if its owner is gone or it is too old to be live; true
/// when it may be free now.
pub fn break_if_stale<I: DirIo>(io: &mut I, name: &str) -> bool {
    let age = match io.age_ms(name) {
        Ok(a) => a,
        Err(e) => return I::kind(&e) == IoKind::NotFound, // released meanwhile
    };
    let token = io.read_small(name);
    let text = token.as_deref().and_then(|t| core::str::from_utf8(t).ok());
    let (pid, host) = (io.pid(), String::from(io.host()));
    let mut alive = |p| io.alive(p);
    if !dir::lock_is_stale(text, age, &host, pid, &mut alive) {
        return false;
    }
    // Moved aside first: of two processes breaking one lock, one wins the rename.
    let aside = alloc::format!("{name}.stale-{}", io.unique());
    if io.rename(name, &aside).is_err() {
        return true;
    }
    if token.is_some() && io.read_small(&aside) != token {
        // A lock taken after our check: put it back unless a newer one exists.
        let _ = io.link(&aside, name);
    }
    if io.unlink(&aside).is_err() {
        // A directory with something in it stays aside, under a name no lock uses.
        let _ = io.remove_dir(&aside);
    }
    true
}

/// Taking one lock file: polled until had, or its deadline passed.
#[derive(Debug)]
pub struct Acquire {
    name: String,
    token: String,
    wait_ms: u64,
    deadline: Option<u64>,
    pause_us: u64,
}

/// The first pause between two looks at a busy lock, doubled up to [`MAX_PAUSE_US`].
const FIRST_PAUSE_US: u64 = 200;
const MAX_PAUSE_US: u64 = 25_000;

impl Acquire {
    /// Waits at most `wait_ms` for the lock file `lock` (a [`dir::lock_name`]).
    pub fn new<I: DirIo>(io: &mut I, lock: String, wait_ms: u64) -> Self {
        let unique = io.unique();
        let token = dir::lock_token(io.pid(), io.host(), &unique);
        Acquire {
            name: lock,
            token,
            wait_ms,
            deadline: None,
            pause_us: FIRST_PAUSE_US,
        }
    }

    /// `Ok(Some)` once had, `Ok(None)` to poll again after [`Acquire::pause_us`].
    /// Every way round passes the deadline check, whatever sits at the lock's path.
    pub fn poll<I: DirIo>(&mut self, io: &mut I) -> Result<Option<Held>, Error<I::Error>> {
        let deadline = *self
            .deadline
            .get_or_insert_with(|| io.now_ms().saturating_add(self.wait_ms));
        loop {
            match io.create_excl(&self.name, self.token.as_bytes()) {
                Ok(()) => {
                    return Ok(Some(Held {
                        name: core::mem::take(&mut self.name),
                        token: core::mem::take(&mut self.token),
                    }));
                }
                Err(e) if I::kind(&e) == IoKind::Exists => {}
                Err(e) => return Err(Error::Io(e)),
            }
            let broke = break_if_stale(io, &self.name);
            if io.now_ms() >= deadline {
                return Err(Error::Locked);
            }
            if !broke {
                return Ok(None);
            }
        }
    }

    /// How long to wait before the next poll; each call doubles the next.
    pub fn pause_us(&mut self) -> u64 {
        let p = self.pause_us;
        self.pause_us = (p * 2).min(MAX_PAUSE_US);
        p
    }
}

/// What taking the turn needs next.
#[derive(Debug)]
pub enum TurnPoll {
    /// Had: release it once the command is done.
    Held(Held),
    /// Poll again after this many microseconds.
    Wait(u64),
    /// Not had in time (or the lock cannot be made): the command runs without it,
    /// the compare-and-swap keeps it safe.
    GaveUp,
}

/// Taking the turn ([`dir::TURN_LOCK`]) for a whole command: first letting a
/// fresh waiter that is not us go ahead ([`dir::TURN_WANT`]), then saying that we
/// wait while we do. Fairness only.
#[derive(Debug)]
pub struct Turn {
    token: String,
    wait_ms: u64,
    deadline: Option<u64>,
}

impl Turn {
    /// Waits at most `wait_ms` ([`crate::config::TURN_WAIT_MS`] in both tools).
    pub fn new<I: DirIo>(io: &mut I, wait_ms: u64) -> Self {
        let unique = io.unique();
        Turn {
            token: dir::lock_token(io.pid(), io.host(), &unique),
            wait_ms,
            deadline: None,
        }
    }

    /// One step of taking the turn: the lock had, a wait before the next poll, or
    /// given up once the deadline has passed.
    pub fn poll<I: DirIo>(&mut self, io: &mut I) -> TurnPoll {
        let deadline = *self
            .deadline
            .get_or_insert_with(|| io.now_ms().saturating_add(self.wait_ms));
        if io.now_ms() >= deadline {
            return TurnPoll::GaveUp;
        }
        let pause = crate::config::TURN_POLL_MS * 1000;
        let wanted = io
            .age_ms(dir::TURN_WANT)
            .is_ok_and(|a| a < crate::config::WANT_FRESH_MS);
        if wanted && io.read_small(dir::TURN_WANT).as_deref() != Some(self.token.as_bytes()) {
            return TurnPoll::Wait(pause);
        }
        match io.create_excl(dir::TURN_LOCK, self.token.as_bytes()) {
            Ok(()) => {
                if wanted {
                    let _ = io.unlink(dir::TURN_WANT);
                }
                return TurnPoll::Held(Held {
                    name: dir::TURN_LOCK.into(),
                    token: core::mem::take(&mut self.token),
                });
            }
            Err(e) if I::kind(&e) == IoKind::Exists => {}
            Err(_) => return TurnPoll::GaveUp,
        }
        break_if_stale(io, dir::TURN_LOCK);
        // A waiter that cannot say so still waits, only unfavoured.
        let _ = io.replace(dir::TURN_WANT, self.token.as_bytes());
        TurnPoll::Wait(pause)
    }
}
