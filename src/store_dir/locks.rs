//! A lock file's name and token, and when a lock may be broken. The order in which
//! locks are taken and waited for is the protocol's (`protocol/lock.rs`).

use alloc::format;
use alloc::string::String;

use super::names::LOCK_PREFIX;
use crate::config::LOCK_STALE_MS;

/// The name of the lock file guarding the file `name`.
pub fn lock_name(name: &str) -> String {
    format!("{LOCK_PREFIX}{name}")
}

/// A lock file's contents: who holds it (`unique` tells two holders of one
/// process apart).
pub fn lock_token(pid: u32, host: &str, unique: &str) -> String {
    format!("{pid} {host} {unique}")
}

/// The process id and host a lock's token names, when it is a token at all.
pub fn lock_owner(token: &str) -> Option<(u32, &str)> {
    let mut parts = token.split(' ');
    let pid = parts.next()?;
    let host = parts.next()?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) || host.is_empty() {
        return None;
    }
    Some((pid.parse().ok()?, host))
}

/// Whether a lock may be broken: its owner is a process of this host that is gone,
/// or it is older than [`LOCK_STALE_MS`]. `token` is `None` when the lock could not
/// be read (a directory, a dangling symlink, an unreadable file): only its age
/// counts then, so a wait for it still ends at the deadline.
pub fn lock_is_stale(
    token: Option<&str>,
    age_ms: u64,
    host: &str,
    pid: u32,
    alive: impl FnOnce(u32) -> bool,
) -> bool {
    if age_ms > LOCK_STALE_MS {
        return true;
    }
    match token.and_then(lock_owner) {
        Some((owner, h)) => h == host && owner != pid && !alive(owner),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_break_only_when_their_owner_is_gone_or_they_are_old() {
        let token = lock_token(42, "h", "u");
        assert_eq!(lock_owner(&token), Some((42, "h")));
        assert!(lock_is_stale(Some(&token), 0, "h", 1, |_| false));
        assert!(!lock_is_stale(Some(&token), 0, "h", 1, |_| true));
        assert!(!lock_is_stale(Some(&token), 0, "other", 1, |_| false));
        assert!(
            !lock_is_stale(Some(&token), 0, "h", 42, |_| false),
            "never our own"
        );
        assert!(
            !lock_is_stale(None, 0, "h", 1, |_| false),
            "unreadable: only age counts"
        );
        assert!(lock_is_stale(None, LOCK_STALE_MS + 1, "h", 1, |_| true));
        assert_eq!(lock_owner("garbage"), None);
    }
}
