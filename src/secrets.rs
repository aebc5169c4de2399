//! Whether text the model writes looks like it holds a credential: API keys of the
//! common providers, private key blocks, payment card numbers. The spec's security
//! notes ask for "stricter checks for sensitive information"; a store opts in with
//! [`SecretPolicy::Refuse`] or [`SecretPolicy::Redact`].
//!
//! Patterns are literal prefixes with a length and an alphabet (no regex engine in
//! the wasm): a match needs a word boundary before it and the full length after the
//! prefix, so ordinary prose ("risk-free", "AKIA" alone) passes.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// What a store does with text that looks like a credential.
/// Deliberately exhaustive: faces map each policy to their own (WIT, JS), and a
/// new one must fail their build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SecretPolicy {
    /// Store it as written (the protocol's own behaviour).
    #[default]
    Allow,
    /// Refuse the command; nothing is written.
    Refuse,
    /// Store the text with each credential replaced by `[redacted: {kind}]`.
    Redact,
}

impl SecretPolicy {
    /// Every policy, by the name each face spells it with.
    pub const ALL: [SecretPolicy; 3] = [
        SecretPolicy::Allow,
        SecretPolicy::Refuse,
        SecretPolicy::Redact,
    ];

    /// The policy's name, as every face's option spells it.
    pub fn name(self) -> &'static str {
        match self {
            SecretPolicy::Allow => "allow",
            SecretPolicy::Refuse => "refuse",
            SecretPolicy::Redact => "redact",
        }
    }

    /// The policy of that name, or `None` for a name no face accepts.
    pub fn from_name(name: &str) -> Option<SecretPolicy> {
        SecretPolicy::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// One credential found in a text, as a byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    pub kind: &'static str,
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Copy)]
enum Alphabet {
    /// `A-Z a-z 0-9 _ -`
    Token,
    /// `A-Z 0-9`
    Upper,
    /// `A-Z a-z 0-9`
    Alnum,
}

impl Alphabet {
    fn has(self, b: u8) -> bool {
        match self {
            Alphabet::Token => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Alphabet::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Alphabet::Alnum => b.is_ascii_alphanumeric(),
        }
    }
}

/// (prefix, alphabet of the rest, shortest rest, longest rest, kind). Longer
/// prefixes of one provider come first so `sk-ant-` is not taken for `sk-`.
const TOKENS: &[(&str, Alphabet, usize, usize, &str)] = &[
    ("sk-ant-", Alphabet::Token, 32, 200, "Anthropic API key"),
    ("sk-proj-", Alphabet::Token, 32, 200, "OpenAI API key"),
    ("sk-", Alphabet::Alnum, 32, 64, "OpenAI API key"),
    ("AKIA", Alphabet::Upper, 16, 16, "AWS access key"),
    ("ASIA", Alphabet::Upper, 16, 16, "AWS access key"),
    ("github_pat_", Alphabet::Token, 22, 255, "GitHub token"),
    ("ghp_", Alphabet::Alnum, 36, 36, "GitHub token"),
    ("gho_", Alphabet::Alnum, 36, 36, "GitHub token"),
    ("ghu_", Alphabet::Alnum, 36, 36, "GitHub token"),
    ("ghs_", Alphabet::Alnum, 36, 36, "GitHub token"),
    ("ghr_", Alphabet::Alnum, 36, 36, "GitHub token"),
    ("xoxb-", Alphabet::Token, 10, 255, "Slack token"),
    ("xoxp-", Alphabet::Token, 10, 255, "Slack token"),
    ("xoxa-", Alphabet::Token, 10, 255, "Slack token"),
    ("AIza", Alphabet::Token, 35, 35, "Google API key"),
];

const KEY_BEGIN: &str = "-----BEGIN ";
const KEY_LABEL_END: &str = "PRIVATE KEY-----";

/// Every credential in `text`, in order, not overlapping.
pub(crate) fn find(text: &str) -> Vec<Finding> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || bytes.get(i - 1).is_none_or(|&b| !Alphabet::Token.has(b));
        let found = if boundary {
            token_at(bytes, i)
                .or_else(|| key_block_at(text, i))
                .or_else(|| card_at(bytes, i))
        } else {
            None
        };
        match found {
            Some(f) => {
                i = f.end;
                out.push(f);
            }
            None => i += 1,
        }
    }
    out
}

fn token_at(bytes: &[u8], at: usize) -> Option<Finding> {
    let rest = bytes.get(at..)?;
    for &(prefix, alphabet, min, max, kind) in TOKENS {
        if !rest.starts_with(prefix.as_bytes()) {
            continue;
        }
        let body = rest.get(prefix.len()..).unwrap_or_default();
        let len = body.iter().take_while(|&&b| alphabet.has(b)).count();
        // A token that runs on past its longest form, or into more word
        // characters, is some other word.
        let runs_on = body.get(len).is_some_and(|&b| Alphabet::Token.has(b));
        if len >= min && len <= max && !runs_on {
            return Some(Finding {
                kind,
                start: at,
                end: at + prefix.len() + len,
            });
        }
    }
    None
}

/// `-----BEGIN … PRIVATE KEY-----` through its END line (or the end of the text).
fn key_block_at(text: &str, at: usize) -> Option<Finding> {
    let rest = text.get(at..)?;
    let label = rest.strip_prefix(KEY_BEGIN)?;
    let line_end = label.find('\n').unwrap_or(label.len());
    if !label.get(..line_end)?.trim_end().ends_with(KEY_LABEL_END) {
        return None;
    }
    let end = match rest.find("-----END ") {
        Some(e) => {
            let tail = rest.get(e..)?;
            let close = tail
                .find(KEY_LABEL_END)
                .map_or(tail.len(), |c| c + KEY_LABEL_END.len());
            e + close
        }
        None => rest.len(),
    };
    Some(Finding {
        kind: "private key",
        start: at,
        end: at + end,
    })
}

/// 13 to 19 digits, in groups split by single spaces or dashes, that pass the Luhn
/// check and stand alone (no digit or letter right before or after).
fn card_at(bytes: &[u8], at: usize) -> Option<Finding> {
    if !bytes.get(at)?.is_ascii_digit() {
        return None;
    }
    let mut digits: Vec<u8> = Vec::with_capacity(19);
    let mut end = at;
    let mut i = at;
    while let Some(&b) = bytes.get(i) {
        if b.is_ascii_digit() {
            digits.push(b - b'0');
            end = i + 1;
            if digits.len() > 19 {
                return None;
            }
        } else if (b == b' ' || b == b'-')
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
            && i > at
        {
            // a separator between digit groups
        } else {
            break;
        }
        i += 1;
    }
    let alone = bytes.get(end).is_none_or(|b| !b.is_ascii_alphanumeric());
    (alone && (13..=19).contains(&digits.len()) && luhn(&digits)).then_some(Finding {
        kind: "card number",
        start: at,
        end,
    })
}

fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// `text` with each finding replaced by `[redacted: {kind}]`.
pub(crate) fn redact(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for f in findings {
        out.push_str(text.get(last..f.start).unwrap_or_default());
        out.push_str(&format!("[redacted: {}]", f.kind));
        last = f.end;
    }
    out.push_str(text.get(last..).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        find(text).iter().map(|f| f.kind).collect()
    }

    #[test]
    fn finds_each_kind() {
        let ant = ["sk-ant-api03-", &"a1B2_c3-".repeat(10)].concat();
        assert_eq!(kinds(&format!("key: {ant} ok")), ["Anthropic API key"]);
        assert_eq!(kinds("id AKIAIOSFODNN7EXAMPLE here"), ["AWS access key"]);
        assert_eq!(
            kinds(&["token=ghp_", &"x".repeat(36)].concat()),
            ["GitHub token"]
        );
        assert_eq!(kinds("card 4111 1111 1111 1111."), ["card number"]);
        assert_eq!(kinds("card 4111-1111-1111-1111"), ["card number"]);
        let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\nafter";
        let f = find(pem);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f.first().map(|f| (f.kind, f.end)),
            Some(("private key", pem.len() - "\nafter".len()))
        );
    }

    #[test]
    fn leaves_prose_alone() {
        for text in [
            "risk-free task list",
            "AKIA alone",
            "sk-short",
            "call 555 0100 1234",
            "4111 1111 1111 1112",
            "order #12345678901234567890123",
            "mask-ant-xyz",
            "-----BEGIN PUBLIC KEY-----\nabc",
            "xask-ant-api03-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ] {
            assert_eq!(kinds(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn redacts_in_place() {
        let text = "a AKIAIOSFODNN7EXAMPLE b 4111111111111111 c";
        assert_eq!(
            redact(text, &find(text)),
            "a [redacted: AWS access key] b [redacted: card number] c"
        );
    }
}
