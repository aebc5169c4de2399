//! The host's own answers, for what never reaches the engine. Like the engine's,
//! they name no host path, no key and no backend text.

use crate::sandbox::Fault;

pub const NOT_UTF8: &str = "Invalid tool input: not valid UTF-8";

pub fn too_long(n: usize, max: usize) -> String {
    format!("Invalid tool input: the input is {} bytes, over the limit of {} bytes", commas(n), commas(max))
}

/// A call that ended without an answer. `published`: the command's swap had
/// already succeeded, so its change is saved and must not be denied.
pub fn fault(fault: Fault, published: bool) -> String {
    let what = match fault {
        Fault::Fuel => "The memory tool ran out of its compute budget and was stopped",
        Fault::Memory => "The memory tool ran out of memory and was stopped",
        Fault::Trap => "The memory tool stopped on an internal fault",
        Fault::Start => "The memory tool could not be started",
    };
    if published {
        format!("{what} after it had saved its change.")
    } else {
        format!("{what}; nothing was changed.")
    }
}

/// `1234567` as `1,234,567`.
pub fn commas(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn commas() {
        assert_eq!(super::commas(0), "0");
        assert_eq!(super::commas(999), "999");
        assert_eq!(super::commas(1000), "1,000");
        assert_eq!(super::commas(104_857_600), "104,857,600");
    }
}
