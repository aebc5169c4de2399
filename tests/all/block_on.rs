//! The two ways a runtime without an executor finishes an engine future:
//! `block_on` sleeps until the future's waker is called (it never spins), and
//! `now_or_never` takes only a future that is ready at once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use memdir::config::Config;
use memdir::{Engine, MemoryStore, block_on, now_or_never};

/// Ready once another thread has set `done` and called the waker it was given.
struct Remote {
    done: Arc<AtomicBool>,
    waker: Arc<Mutex<Option<Waker>>>,
    polls: Arc<AtomicUsize>,
}

impl Future for Remote {
    type Output = &'static str;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<&'static str> {
        self.polls.fetch_add(1, Ordering::SeqCst);
        *self.waker.lock().unwrap() = Some(cx.waker().clone());
        if self.done.load(Ordering::SeqCst) {
            Poll::Ready("answered")
        } else {
            Poll::Pending
        }
    }
}

#[test]
fn block_on_sleeps_until_woken_and_polls_twice() {
    let (done, waker, polls) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(Mutex::new(None::<Waker>)),
        Arc::new(AtomicUsize::new(0)),
    );
    let answerer = {
        let (done, waker) = (done.clone(), waker.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            done.store(true, Ordering::SeqCst);
            let w: Option<Waker> = waker.lock().unwrap().take();
            w.unwrap().wake();
        })
    };
    let out = block_on(Remote {
        done,
        waker,
        polls: polls.clone(),
    });
    answerer.join().unwrap();
    assert_eq!(out, "answered");
    // Once to start, once when woken: a spinning loop would have polled it
    // thousands of times in 200 ms.
    assert_eq!(polls.load(Ordering::SeqCst), 2);
}

#[test]
fn now_or_never_takes_a_synchronous_store_and_refuses_a_waiting_future() {
    let engine = Engine::new(MemoryStore::default(), Config::default());
    let created = now_or_never(
        engine.execute_json(r#"{"command":"create","path":"/memories/a.md","file_text":"one\n"}"#),
    )
    .unwrap();
    assert_eq!(
        created.content,
        "File created successfully at: /memories/a.md"
    );
    assert_eq!(now_or_never(std::future::pending::<()>()), None);
}
