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

/// The memory directory every path lives under.
pub const ROOT: &str = "/memories";
use crate::config::{MAX_DECODE_DEPTH, MAX_SEGMENTS, MAX_STORE_PATH_BYTES};
use crate::config::{MAX_NAME_BYTES, MAX_PATH_BYTES};

/// A path that passed every rule: `/memories` or `/memories/<name>(/<name>)*`.
///
/// A store mounted below `/memories` (at `/memories/<mount>`, beside others) sees
/// the same paths: `skip` says how many of the outer names are the mount's, so the
/// path names the same thing in that store's own tree while every answer still
/// shows it whole.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ValidPath {
    text: String,
    skip: usize,
}

impl ValidPath {
    /// `/memories` itself.
    pub fn root() -> Self {
        ValidPath {
            text: ROOT.into(),
            skip: 0,
        }
    }

    /// The whole path, as every answer shows it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// True for the top of the store's tree: `/memories`, or a mount's own path.
    pub fn is_root(&self) -> bool {
        self.names().next().is_none()
    }

    /// Every name below `/memories`, the mount's included.
    fn all_names(&self) -> impl Iterator<Item = &str> {
        self.text
            .get(ROOT.len() + 1..)
            .unwrap_or("")
            .split('/')
            .filter(|s| !s.is_empty())
    }

    /// The names below the store's top, outermost first (empty for the top).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.all_names().skip(self.skip)
    }

    /// The path as its store names it, from its top: `/memories/a/b` is `/a/b`, and
    /// so is `/memories/team/a/b` in the store mounted at `/memories/team`; `""` for
    /// the top itself.
    pub fn local(&self) -> &str {
        let mut at = ROOT.len();
        for name in self.all_names().take(self.skip) {
            at += 1 + name.len();
        }
        self.text.get(at..).unwrap_or("")
    }

    /// The same path, its first `skip` names being a mount's.
    pub fn mounted(mut self, skip: usize) -> ValidPath {
        self.skip = skip;
        self
    }

    /// True if `self` lies strictly beneath `dir`.
    pub fn is_inside(&self, dir: &ValidPath) -> bool {
        self.text.len() > dir.text.len()
            && self.text.starts_with(dir.as_str())
            && self.text.as_bytes().get(dir.text.len()) == Some(&b'/')
    }

    /// The path of the `depth` outermost names below the store's top (0: the top).
    pub fn ancestor(&self, depth: usize) -> ValidPath {
        let mut s = String::from(ROOT);
        for name in self.all_names().take(self.skip + depth) {
            s.push('/');
            s.push_str(name);
        }
        ValidPath {
            text: s,
            skip: self.skip,
        }
    }

    /// `self` with `name` appended; `name` must itself be a valid name.
    pub(crate) fn join(&self, name: &str) -> ValidPath {
        let mut s = self.text.clone();
        s.push('/');
        s.push_str(name);
        ValidPath {
            text: s,
            skip: self.skip,
        }
    }
}

impl fmt::Display for ValidPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The rule a path broke. `Display` is the exact message the model sees.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathError {
    /// Over [`MAX_PATH_BYTES`].
    TooLong {
        /// The path's length, in UTF-8 bytes.
        bytes: usize,
    },
    /// Not `/memories` nor under it.
    OutsideRoot {
        /// The path as given, as the text shows it.
        raw: String,
    },
    /// A `.` or `..` segment, or a name that normalises into one or into a
    /// separator: a way out of `/memories` on some layer.
    Escape {
        /// The path as given, as the text shows it.
        raw: String,
    },
    /// An empty name (`//`, or a trailing `/`).
    EmptySegment {
        /// The path.
        path: String,
    },
    /// A control character (Unicode Cc).
    Control {
        /// The path.
        path: String,
        /// The character.
        ch: char,
    },
    /// An invisible format character (Unicode Cf): two paths that look the same
    /// would name different files.
    Format {
        /// The path.
        path: String,
        /// The character.
        ch: char,
    },
    /// Not in Unicode NFC: the same name in two spellings would be two files.
    NotNfc {
        /// The path.
        path: String,
    },
    /// A name over [`MAX_NAME_BYTES`].
    NameTooLong {
        /// The path.
        path: String,
        /// The name's length, in UTF-8 bytes.
        bytes: usize,
    },
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
        use crate::number::Thousands;
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

impl core::error::Error for PathError {}

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

/// Unicode category Cc.
fn is_control(c: char) -> bool {
    c.is_control()
}

/// Unicode category Cf (zero-width joiners, bidi overrides, the BOM, …).
// For tests/all/unicode_tables.rs too, through `crate::__hooks`.
pub(crate) fn is_format(c: char) -> bool {
    let c = u32::from(c);
    FORMAT_RANGES
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                core::cmp::Ordering::Less
            } else if lo > c {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Slash look-alikes that NFKC leaves alone but a reader would take for `/`.
const SLASH_CONFUSABLES: [char; 3] = ['\u{2215}', '\u{2044}', '\u{29F8}'];

/// Which rule a Memory Stores API path (`/notes/a.md`: a memory's path without
/// `/memories`) breaks; the API words each one (`api::error`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum StorePathFault {
    /// It does not start with `/`.
    NoSlash,
    /// Its length in bytes, over [`MAX_STORE_PATH_BYTES`].
    TooLong(usize),
    /// An empty segment (`//`, or a trailing `/`).
    EmptySegment,
    /// How many segments it has, over [`MAX_SEGMENTS`].
    TooManySegments(usize),
    /// It names `/memories` itself.
    Directory,
    /// The memory tool's rules refuse it once under `/memories`.
    Invalid(PathError),
}

/// A store path (`/notes/a.md`) as the memory tool's path (`/memories/notes/a.md`),
/// or the rule it breaks. Rules apply in a fixed order; the first that fails is
/// reported.
pub(crate) fn store_path(p: &str) -> Result<ValidPath, StorePathFault> {
    if !p.starts_with('/') {
        return Err(StorePathFault::NoSlash);
    }
    if p.len() > MAX_STORE_PATH_BYTES {
        return Err(StorePathFault::TooLong(p.len()));
    }
    let segments = p.split('/').skip(1).count();
    if p == "/" || p.ends_with('/') || p.contains("//") {
        return Err(StorePathFault::EmptySegment);
    }
    if segments > MAX_SEGMENTS {
        return Err(StorePathFault::TooManySegments(segments));
    }
    let full = alloc::format!("{ROOT}{p}");
    match validate(&full) {
        Ok(v) if v.as_str() == full => Ok(v),
        Ok(_) => Err(StorePathFault::Directory),
        Err(e) => Err(StorePathFault::Invalid(e)),
    }
}

/// True if `p` is a store path memdir could have written (checked on stored records).
pub fn is_store_path(p: &str) -> bool {
    store_path(p).is_ok()
}

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
    // ASCII holds no format character (the first is U+00AD) and is NFC as it
    // stands: most paths are ASCII, and skip both scans.
    let ascii = path.is_ascii();
    if !ascii && let Some(ch) = path.chars().find(|&c| is_format(c)) {
        return Err(PathError::Format {
            path: path.into(),
            ch,
        });
    }
    if !ascii && !is_nfc(path) {
        return Err(PathError::NotNfc { path: path.into() });
    }
    if let Some(name) = names.iter().find(|n| n.len() > MAX_NAME_BYTES) {
        return Err(PathError::NameTooLong {
            path: path.into(),
            bytes: name.len(),
        });
    }
    Ok(ValidPath {
        text: path.into(),
        skip: 0,
    })
}

/// True if `name` is one name a path may hold beneath `/memories`: the same rules
/// as [`validate`], for a name read back from storage (a stored tree is input too).
pub(crate) fn is_valid_name(name: &str) -> bool {
    if name.is_empty() || name.contains('/') || name.len() > MAX_NAME_BYTES {
        return false;
    }
    let mut path = String::with_capacity(ROOT.len() + 1 + name.len());
    path.push_str(ROOT);
    path.push('/');
    path.push_str(name);
    validate(&path).is_ok_and(|p| p.as_str() == path)
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

/// True if the name's NFKC form is `.` or `..` or holds `/` or `\`: full-width and
/// small dots and slashes (U+FF0E, U+2024, U+2025, U+FE52, U+FF0F, U+FF3C, …) that a
/// normalising layer elsewhere would turn into real ones.
///
/// NFKC composes no sequence into or out of `.`, `/` or `\`, so the name's form is
/// the concatenation of its characters' forms as far as these three are concerned;
/// only characters in [`NFKC_SEPARATORS`] fold into them.
// For tests/all/unicode_tables.rs too, through `crate::__hooks`.
pub(crate) fn nfkc_escapes(name: &str) -> bool {
    let mut dots = 0;
    let mut only_dots = true;
    for c in name.chars() {
        // No ASCII character is in the table (its first is U+2024): not searched.
        let found = if c.is_ascii() {
            Err(0)
        } else {
            NFKC_SEPARATORS.binary_search_by_key(&c, |&(k, _)| k)
        };
        let folded = match found {
            Ok(i) => NFKC_SEPARATORS.get(i).map_or("", |&(_, f)| f),
            Err(_) if c == '.' => ".",
            Err(_) => {
                only_dots = false;
                continue;
            }
        };
        if folded.contains(['/', '\\']) {
            return true;
        }
        only_dots &= folded.bytes().all(|b| b == b'.');
        dots += folded.len();
    }
    only_dots && (dots == 1 || dots == 2)
}

/// True if percent-decoding the name, at any depth, yields a `.`, `/` or `\`, an
/// overlong UTF-8 form (the classic `%c0%ae`), or a look-alike of them.
fn decodes_to_separator(name: &str) -> bool {
    // Every escape starts with `%`: a name without one decodes to itself.
    if !name.contains('%') {
        return false;
    }
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

/// Whether `s` is in Unicode NFC. Same answer as `unicode_normalization::is_nfc`
/// (tests/all/unicode_tables.rs compares them), but built on the crate's canonical-only
/// primitives: its own `is_nfc` runs a normaliser that also links the compatibility
/// tables, which NFC never uses and which cost a third of the wasm.
// For tests/all/unicode_tables.rs too, through `crate::__hooks`.
pub(crate) fn is_nfc(s: &str) -> bool {
    use unicode_normalization::IsNormalized;
    match unicode_normalization::is_nfc_quick(s.chars()) {
        IsNormalized::Yes => true,
        IsNormalized::No => false,
        IsNormalized::Maybe => s.chars().eq(nfc(s)),
    }
}

/// Canonical decomposition, canonical ordering, canonical composition (UAX #15).
fn nfc(s: &str) -> Vec<char> {
    use unicode_normalization::char::{
        canonical_combining_class as ccc, compose, decompose_canonical,
    };
    let mut chars = Vec::with_capacity(s.len());
    for c in s.chars() {
        decompose_canonical(c, |d| chars.push(d));
    }
    // Canonical ordering: each run of non-starters sorted (stably) by class.
    let mut i = 0;
    while i < chars.len() {
        let run = chars
            .get(i..)
            .map_or(0, |rest| rest.iter().take_while(|&&c| ccc(c) != 0).count());
        if let Some(marks) = chars.get_mut(i..i + run) {
            marks.sort_by_key(|&c| ccc(c));
        }
        i += run.max(1);
    }
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut starter: Option<usize> = None;
    // Class of the last character kept since the starter; None right after it.
    let mut last: Option<u8> = None;
    for c in chars {
        let class = ccc(c);
        if let Some(si) = starter {
            let blocked = last.is_some_and(|l| l == 0 || l >= class);
            if !blocked && let Some(composed) = out.get(si).and_then(|&s| compose(s, c)) {
                if let Some(slot) = out.get_mut(si) {
                    *slot = composed;
                }
                continue;
            }
        }
        if class == 0 {
            starter = Some(out.len());
            last = None;
        } else {
            last = Some(class);
        }
        out.push(c);
    }
    out
}

/// Code point ranges of Unicode category Cf. Generated from unicode-properties and
/// checked against it by tests/all/unicode_tables.rs.
// For tests/all/unicode_tables.rs too, through `crate::__hooks`.
pub(crate) const FORMAT_RANGES: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

/// Every character whose NFKC form differs from it and holds `.`, `/` or `\`, with
/// that form, sorted. Generated from unicode-normalization and checked against it by
/// tests/all/unicode_tables.rs.
// For tests/all/unicode_tables.rs too, through `crate::__hooks`.
pub(crate) const NFKC_SEPARATORS: &[(char, &str)] = &[
    ('\u{2024}', "."),
    ('\u{2025}', ".."),
    ('\u{2026}', "..."),
    ('\u{2100}', "a/c"),
    ('\u{2101}', "a/s"),
    ('\u{2105}', "c/o"),
    ('\u{2106}', "c/u"),
    ('\u{2488}', "1."),
    ('\u{2489}', "2."),
    ('\u{248A}', "3."),
    ('\u{248B}', "4."),
    ('\u{248C}', "5."),
    ('\u{248D}', "6."),
    ('\u{248E}', "7."),
    ('\u{248F}', "8."),
    ('\u{2490}', "9."),
    ('\u{2491}', "10."),
    ('\u{2492}', "11."),
    ('\u{2493}', "12."),
    ('\u{2494}', "13."),
    ('\u{2495}', "14."),
    ('\u{2496}', "15."),
    ('\u{2497}', "16."),
    ('\u{2498}', "17."),
    ('\u{2499}', "18."),
    ('\u{249A}', "19."),
    ('\u{249B}', "20."),
    ('\u{33C2}', "a.m."),
    ('\u{33C7}', "Co."),
    ('\u{33D8}', "p.m."),
    ('\u{FE19}', "..."),
    ('\u{FE30}', ".."),
    ('\u{FE52}', "."),
    ('\u{FE68}', "\\"),
    ('\u{FF0E}', "."),
    ('\u{FF0F}', "/"),
    ('\u{FF3C}', "\\"),
    ('\u{1F100}', "0."),
];

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
