//! `Engine::api` on any text, a request a line, against a seeded API store: never
//! panics, answers a status the API documents with the error envelope, never names
//! a storage key, leaves the store untouched whenever it refuses, and never damages
//! it. `$M0`… and `$V0`… in a line stand for the seeded memory and version ids.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use memdir::block_on;

const STATUSES: [u16; 8] = [200, 400, 403, 404, 409, 412, 413, 429];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let s = common::seeded();
    for line in text.split('\n').take(8) {
        let line = s.with_ids(line);
        let before = common::digest(&s.store);
        let answer = block_on(s.engine.api_json(&line));
        let v: serde_json::Value = serde_json::from_str(&answer).expect("the answer is JSON");
        let status = v["status"]
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .expect("a status");
        assert!(STATUSES.contains(&status), "{line:?} -> {answer}");
        if status != 200 {
            assert_eq!(v["body"]["type"], "error", "{line:?} -> {answer}");
            let message = v["body"]["error"]["message"].as_str().unwrap_or_default();
            assert!(!message.is_empty(), "{line:?} -> {answer}");
            assert_eq!(
                common::digest(&s.store),
                before,
                "{line:?} was refused but wrote"
            );
        }
        common::no_key_leaks(&answer, &line);
    }
    common::still_whole(&s.engine);
});
