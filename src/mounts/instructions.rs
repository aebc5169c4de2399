//! The text an application puts in its system prompt for a memory's mounts.

use alloc::format;
use alloc::string::String;

use super::{Access, Mount};
use crate::path;
/// Whether a reader of the system prompt may take `c` for the end of a line: a
/// line break of any kind, or any other control character.
fn breaks_line(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// The text an application puts in its system prompt for these mounts. Each store
/// is one line starting with `- /memories`, its instructions indented beneath it,
/// so no description or instruction can start a line of its own that claims
/// another store or access: a description's line breaks fold to spaces, and every
/// instruction line is indented whatever broke it.
pub fn instructions(mounts: &[Mount]) -> String {
    let mut out = String::new();
    let line = |m: &Mount| {
        let at = if m.name.is_empty() {
            String::from(path::ROOT)
        } else {
            format!("{}/{}", path::ROOT, m.name)
        };
        let mut s = format!("- {at} ({})", m.access.name().replace('_', "-"));
        if !m.description.is_empty() {
            s.push_str(": ");
            s.extend(
                m.description
                    .chars()
                    .map(|c| if breaks_line(c) { ' ' } else { c }),
            );
        }
        s.push('\n');
        let text = m.instructions.replace("\r\n", "\n");
        let mut lines = text.split(breaks_line).peekable();
        while let Some(l) = lines.next() {
            // A trailing break ends the last line; it does not open an empty one.
            if l.is_empty() && lines.peek().is_none() {
                break;
            }
            s.push_str("  ");
            s.push_str(l);
            s.push('\n');
        }
        s
    };
    match mounts {
        [one] if one.name.is_empty() => out.push_str("Your memory directory is /memories:\n"),
        _ => out.push_str(&format!(
            "Your memory directory is /memories. It holds {} memory stores:\n",
            mounts.len()
        )),
    }
    for m in mounts {
        out.push_str(&line(m));
    }
    if mounts.iter().any(|m| m.access == Access::ReadOnly) {
        out.push_str("A read-only store can be viewed but not changed.\n");
    }
    out
}
