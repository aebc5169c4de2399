//! What a path may name: one pure function from the model's raw string to a
//! validated path under `/memories`, or the rule it broke. Runs before any storage
//! access, so a refused path costs no store operation (as cap-std decides what a
//! path may reach before opening anything).
//!
//! A suspicious path is refused, never repaired: nothing here decodes or normalises
//! a path into a different valid one. The only rewrite is dropping one trailing `/`.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

pub const ROOT: &str = "/memories";
pub const MAX_PATH_BYTES: usize = 1024;
pub const MAX_NAME_BYTES: usize = 255;

/// A path that passed every rule: `/memories` or `/memories/<name>(/<name>)*`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ValidPath(String);

impl ValidPath {
    pub fn root() -> Self {
        ValidPath(ROOT.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0 == ROOT
    }

    /// The names below `/memories`, outermost first (empty for the root).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0
            .get(ROOT.len() + 1..)
            .unwrap_or("")
            .split('/')
            .filter(|s| !s.is_empty())
    }

    /// True if `self` lies strictly beneath `dir`.
    pub fn is_inside(&self, dir: &ValidPath) -> bool {
        self.0.len() > dir.0.len()
            && self.0.starts_with(dir.as_str())
            && self.0.as_bytes().get(dir.0.len()) == Some(&b'/')
    }

    /// The path of the `depth` outermost names (0 = `/memories`).
    pub fn ancestor(&self, depth: usize) -> ValidPath {
        let mut s = String::from(ROOT);
        for name in self.names().take(depth) {
            s.push('/');
            s.push_str(name);
        }
        ValidPath(s)
    }

    /// `self` with `name` appended; `name` must itself be a valid name.
    pub(crate) fn join(&self, name: &str) -> ValidPath {
        let mut s = self.0.clone();
        s.push('/');
        s.push_str(name);
        ValidPath(s)
    }
}

impl fmt::Display for ValidPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The rule a path broke. `Display` is the exact message the model sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    TooLong { bytes: usize },
    OutsideRoot { raw: String },
    Escape { raw: String },
    EmptySegment { path: String },
    Control { path: String, ch: char },
    Format { path: String, ch: char },
    NotNfc { path: String },
    NameTooLong { path: String, bytes: usize },
}

impl PathError {
    /// The rule's short name, as the conformance data spells it.
    pub fn rule(&self) -> &'static str {
        match self {
            PathError::TooLong { .. } => "length",
            PathError::OutsideRoot { .. } => "prefix",
            PathError::Escape { .. } => "escape",
            PathError::EmptySegment { .. } => "empty",
            PathError::Control { .. } => "control",
            PathError::Format { .. } => "format",
            PathError::NotNfc { .. } => "nfc",
            PathError::NameTooLong { .. } => "segment",
        }
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::render::Thousands;
        match self {
            PathError::TooLong { bytes } => write!(
                f,
                "Path is too long: {} bytes, over the limit of {} bytes",
                Thousands(*bytes as u64),
                Thousands(MAX_PATH_BYTES as u64)
            ),
            PathError::OutsideRoot { raw } => {
                write!(f, "Path must start with /memories, got: {raw}")
            }
            PathError::Escape { raw } => write!(f, "Path {raw} would escape /memories directory"),
            PathError::EmptySegment { path } => {
                write!(
                    f,
                    "Path {path} has an empty segment (//), which is not allowed"
                )
            }
            PathError::Control { path, ch } => write!(
                f,
                "Path {} contains the control character U+{:04X}, which is not allowed",
                Shown(path),
                u32::from(*ch)
            ),
            PathError::Format { path, ch } => write!(
                f,
                "Path {} contains the invisible format character U+{:04X}, which is not allowed",
                Shown(path),
                u32::from(*ch)
            ),
            PathError::NotNfc { path } => write!(
                f,
                "Path {path} is not in Unicode NFC form; use the composed (NFC) form of the name"
            ),
            PathError::NameTooLong { path, bytes } => write!(
                f,
                "Path {path} has a name of {} bytes, over the limit of {} bytes",
                Thousands(*bytes as u64),
                MAX_NAME_BYTES
            ),
        }
    }
}

/// A path with its invisible characters made visible as `<U+XXXX>`.
struct Shown<'a>(&'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if is_control(c) || is_format(c) {
                write!(f, "<U+{:04X}>", u32::from(c))?;
            } else {
                fmt::Write::write_char(f, c)?;
            }
        }
        Ok(())
    }
}

fn is_control(c: char) -> bool {
    c.general_category() == GeneralCategory::Control
}

fn is_format(c: char) -> bool {
    c.general_category() == GeneralCategory::Format
}

/// Slash look-alikes that NFKC leaves alone but a reader would take for `/`.
const SLASH_CONFUSABLES: [char; 3] = ['\u{2215}', '\u{2044}', '\u{29F8}'];

/// Decides whether `raw` names something under `/memories`, and which rule it broke
/// if not. Rules apply in a fixed order; the first that fails is reported.
pub fn validate(raw: &str) -> Result<ValidPath, PathError> {
    if raw.len() > MAX_PATH_BYTES {
        return Err(PathError::TooLong { bytes: raw.len() });
    }
    let path = match raw.strip_suffix('/') {
        Some(p) if p == ROOT || p.starts_with("/memories/") => p,
        _ => raw,
    };
    if path == ROOT {
        return Ok(ValidPath::root());
    }
    let Some(rest) = path.strip_prefix("/memories/") else {
        return Err(PathError::OutsideRoot { raw: raw.into() });
    };
    let names: Vec<&str> = rest.split('/').collect();
    if would_escape(path, &names) {
        return Err(PathError::Escape { raw: raw.into() });
    }
    if names.iter().any(|n| n.is_empty()) {
        return Err(PathError::EmptySegment { path: path.into() });
    }
    if let Some(ch) = path.chars().find(|&c| is_control(c)) {
        return Err(PathError::Control {
            path: path.into(),
            ch,
        });
    }
    if let Some(ch) = path.chars().find(|&c| is_format(c)) {
        return Err(PathError::Format {
            path: path.into(),
            ch,
        });
    }
    if !unicode_normalization::is_nfc(path) {
        return Err(PathError::NotNfc { path: path.into() });
    }
    if let Some(name) = names.iter().find(|n| n.len() > MAX_NAME_BYTES) {
        return Err(PathError::NameTooLong {
            path: path.into(),
            bytes: name.len(),
        });
    }
    Ok(ValidPath(path.into()))
}

/// Every way a path could step outside its directory, raw or disguised.
fn would_escape(path: &str, names: &[&str]) -> bool {
    path.contains('\\')
        || path.contains(&SLASH_CONFUSABLES[..])
        || names
            .iter()
            .any(|n| is_dot_name(n) || nfkc_escapes(n) || decodes_to_separator(n))
}

fn is_dot_name(name: &str) -> bool {
    name == "." || name == ".."
}

/// Full-width and small dots and slashes (U+FF0E, U+2024, U+2025, U+FE52, U+FF0F,
/// U+FF3C, …) that a normalising layer somewhere else would turn into real ones.
fn nfkc_escapes(name: &str) -> bool {
    if name.is_ascii() {
        return false;
    }
    let folded: String = name.nfkc().collect();
    // Only real separators count here: `½` folds to `1⁄2` (U+2044) and is a fine name.
    is_dot_name(&folded) || folded.contains(['/', '\\'])
}

/// Deepest `%25` nesting we unwrap; deeper nesting is refused outright.
const MAX_DECODE_DEPTH: usize = 8;

/// True if percent-decoding the name, at any depth, yields a `.`, `/` or `\`, an
/// overlong UTF-8 form (the classic `%c0%ae`), or a look-alike of them.
fn decodes_to_separator(name: &str) -> bool {
    let mut bytes: Vec<u8> = name.as_bytes().to_vec();
    for _ in 0..MAX_DECODE_DEPTH {
        let Some(decoded) = decode_once(&bytes) else {
            return false; // no escapes left: nothing hidden
        };
        if decoded.suspicious {
            return true;
        }
        if let Ok(text) = core::str::from_utf8(&decoded.bytes)
            && (nfkc_escapes(text) || text.contains(&SLASH_CONFUSABLES[..]))
        {
            return true;
        }
        bytes = decoded.bytes;
    }
    true
}

struct Decoded {
    bytes: Vec<u8>,
    /// An escape decoded to a separator, a dot, or an overlong lead byte.
    suspicious: bool,
}

/// One layer of `%XX` and `%uXXXX` decoding; `None` if there was nothing to decode.
fn decode_once(input: &[u8]) -> Option<Decoded> {
    let mut out = Vec::with_capacity(input.len());
    let mut decoded_any = false;
    let mut suspicious = false;
    let mut i = 0;
    while let Some(&b) = input.get(i) {
        if b == b'%' {
            if let Some(v) = hex_at(input, i + 1, 2) {
                let v = v as u8;
                suspicious |= matches!(v, b'.' | b'/' | b'\\') || is_overlong_lead(v, input, i + 3);
                out.push(v);
                decoded_any = true;
                i += 3;
                continue;
            }
            if matches!(input.get(i + 1), Some(b'u' | b'U'))
                && let Some(v) = hex_at(input, i + 2, 4)
            {
                let c = char::from_u32(v).unwrap_or('\u{FFFD}');
                suspicious |= matches!(c, '.' | '/' | '\\');
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                decoded_any = true;
                i += 6;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    decoded_any.then_some(Decoded {
        bytes: out,
        suspicious,
    })
}

/// `%c0`/`%c1` lead bytes only ever start overlong forms; `%e0` followed by
/// `%80`–`%9f` and `%f0` followed by `%80`–`%8f` are overlong too.
fn is_overlong_lead(lead: u8, input: &[u8], next: usize) -> bool {
    let follow = || {
        (input.get(next) == Some(&b'%'))
            .then(|| hex_at(input, next + 1, 2))
            .flatten()
    };
    match lead {
        0xC0 | 0xC1 => true,
        0xE0 => matches!(follow(), Some(0x80..=0x9F)),
        0xF0 => matches!(follow(), Some(0x80..=0x8F)),
        _ => false,
    }
}

fn hex_at(input: &[u8], start: usize, len: usize) -> Option<u32> {
    let digits = input.get(start..start + len)?;
    digits
        .iter()
        .try_fold(0u32, |acc, &d| Some(acc * 16 + char::from(d).to_digit(16)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn rule(p: &str) -> &'static str {
        validate(p).err().map_or("ok", |e| e.rule())
    }

    #[test]
    fn accepts_plain_paths() {
        for p in [
            "/memories",
            "/memories/",
            "/memories/a.md",
            "/memories/a/b/c.txt",
            "/memories/.hidden",
            "/memories/a..b",
            "/memories/...",
            "/memories/v1%41",
            "/memories/é",
        ] {
            assert_eq!(rule(p), "ok", "{p}");
        }
        assert_eq!(
            validate("/memories/a/").map(|p| p.to_string()),
            Ok("/memories/a".to_string())
        );
    }

    #[test]
    fn refuses_each_rule() {
        let cases = [
            ("/memories_backup/x", "prefix"),
            ("/memoriesx", "prefix"),
            ("", "prefix"),
            ("/memories/../etc", "escape"),
            ("/memories/a/.", "escape"),
            ("/memories/a\\b", "escape"),
            ("/memories/%2e%2e%2fetc", "escape"),
            ("/memories/%252e%252e", "escape"),
            ("/memories/%c0%ae%c0%ae", "escape"),
            ("/memories/%e0%80%ae", "escape"),
            ("/memories/%u002e%u002e", "escape"),
            ("/memories/\u{FF0E}\u{FF0E}", "escape"),
            ("/memories/\u{2025}", "escape"),
            ("/memories/a\u{2215}b", "escape"),
            ("/memories/a\u{FF0F}b", "escape"),
            ("/memories//a", "empty"),
            ("/memories//", "empty"),
            ("/memories/a\u{0}", "control"),
            ("/memories/a\u{202E}", "format"),
            ("/memories/e\u{301}", "nfc"),
        ];
        for (p, want) in cases {
            assert_eq!(rule(p), want, "{p:?}");
        }
        assert_eq!(rule(&["/memories/", &"a".repeat(256)].concat()), "segment");
        assert_eq!(rule(&["/memories/", &"a/".repeat(600)].concat()), "length");
    }

    #[test]
    fn messages_show_invisible_characters() {
        let e = validate("/memories/a\u{202E}b")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some(
                "Path /memories/a<U+202E>b contains the invisible format character U+202E, which is not allowed"
            )
        );
    }
}
