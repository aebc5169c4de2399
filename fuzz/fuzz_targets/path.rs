//! The path function on any string: never panics, and whatever it accepts is a
//! canonical path under /memories with no way out.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    match memdir::validate(raw) {
        Ok(p) => {
            let s = p.as_str();
            assert!(s == "/memories" || s.starts_with("/memories/"), "{s:?}");
            assert!(s.len() <= 1024);
            assert!(
                !s.contains('\\') && !s.contains('%') || !s.to_ascii_lowercase().contains("%2e")
            );
            for name in p.names() {
                assert!(!name.is_empty() && name != "." && name != "..", "{s:?}");
                assert!(name.len() <= 255);
                assert!(!name.chars().any(char::is_control), "{s:?}");
            }
            // Accepting is idempotent: the canonical form is accepted as itself.
            assert_eq!(memdir::validate(s).as_ref().map(|q| q.as_str()), Ok(s));
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.is_empty());
        }
    }
});
