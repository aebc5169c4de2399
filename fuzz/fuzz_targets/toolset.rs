//! The memory-store toolset on any input: the first byte picks the tool and whether
//! paths show under a mount prefix, the rest is the tool's JSON input (`$M0`… stand
//! for seeded memory ids). Never panics, a refusal writes nothing, no answer names
//! a storage key, and the store stays whole.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use memdir::block_on;
use memdir::toolset::TOOLS;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let tool = TOOLS[usize::from(pick) % TOOLS.len()].name;
    let prefix = if pick & 0x80 == 0 { "" } else { "/mnt/team" };
    let s = common::seeded();
    let input = s.with_ids(text);
    let before = common::digest(&s.store);
    let answer = match block_on(s.engine.toolset_json(prefix, tool, &input)) {
        Ok(text) => text,
        Err(e) => {
            assert_eq!(
                common::digest(&s.store),
                before,
                "{tool} {input:?} was refused but wrote"
            );
            assert!(!e.kind().is_empty());
            e.to_string()
        }
    };
    assert!(!answer.is_empty(), "{tool} {input:?}");
    common::no_key_leaks(&answer, &input);
    common::still_whole(&s.engine);
});
