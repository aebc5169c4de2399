//! How a number is written in a text: with thousands separators (`102,400`), and
//! how many digits it takes (line-number columns, listed line numbers).

use alloc::format;
use core::fmt::{self, Write};

/// A count written with thousands separators: `102,400`.
pub(crate) struct Thousands(pub u64);

impl fmt::Display for Thousands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = format!("{}", self.0);
        for (i, d) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                f.write_char(',')?;
            }
            f.write_char(d)?;
        }
        Ok(())
    }
}

/// Decimal digits of `n`.
pub(crate) fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands() {
        assert_eq!(format!("{}", Thousands(0)), "0");
        assert_eq!(format!("{}", Thousands(999)), "999");
        assert_eq!(format!("{}", Thousands(1024)), "1,024");
        assert_eq!(format!("{}", Thousands(102_400)), "102,400");
        assert_eq!(format!("{}", Thousands(104_857_600)), "104,857,600");
    }
}
