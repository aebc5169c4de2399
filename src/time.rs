//! RFC 3339 times, as the API spells them: milliseconds since the Unix epoch to
//! `2026-11-22T17:41:17.123Z`, and back from any RFC 3339 form a client sends.

use alloc::format;
use alloc::string::String;

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// (year, month, day) to days since 1970-01-01 (`days_from_civil`).
fn days(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `ms` since the epoch as RFC 3339 in UTC with milliseconds.
pub(crate) fn format_ms(ms: u64) -> String {
    let secs = (ms / 1000) as i64;
    let (y, mo, d) = civil(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// An RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`) as ms since
/// the epoch, or `None` if it is not one or is before 1970.
pub(crate) fn parse_ms(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' '))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return None;
    }
    let y = i64::from(digits(s.get(0..4)?)?);
    let mo = digits(s.get(5..7)?)?;
    let d = digits(s.get(8..10)?)?;
    let h = digits(s.get(11..13)?)?;
    let mi = digits(s.get(14..16)?)?;
    let se = digits(s.get(17..19)?)?;
    let mut rest = s.get(19..)?;
    let mut millis = 0u64;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        let f = frac.get(..n)?;
        for (i, c) in f.bytes().take(3).enumerate() {
            millis += u64::from(c - b'0') * [100, 10, 1].get(i).copied().unwrap_or(0);
        }
        rest = frac.get(n..)?;
    }
    let offset_min: i64 = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            if rest.len() != 6 || rest.as_bytes().get(3) != Some(&b':') {
                return None;
            }
            let oh = i64::from(digits(rest.get(1..3)?)?);
            let om = i64::from(digits(rest.get(4..6)?)?);
            if oh > 23 || om > 59 {
                return None;
            }
            sign * (oh * 60 + om)
        }
    };
    let month_days = [
        31,
        if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) {
            29
        } else {
            28
        },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo)
        || d == 0
        || d > *month_days.get(mo as usize - 1)?
        || h > 23
        || mi > 59
        || se > 60
    {
        return None;
    }
    let secs = days(y, mo, d) * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(se)
        - offset_min * 60;
    let ms = secs.checked_mul(1000)?.checked_add(millis as i64)?;
    u64::try_from(ms).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        assert_eq!(format_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_ms(1_795_369_277_123), "2026-11-22T17:41:17.123Z");
        assert_eq!(
            parse_ms("2026-11-22T17:41:17.123Z"),
            Some(1_795_369_277_123)
        );
        assert_eq!(
            parse_ms("2026-11-22T18:41:17.123+01:00"),
            Some(1_795_369_277_123)
        );
        assert_eq!(parse_ms("2026-02-29T00:00:00Z"), None);
        assert_eq!(parse_ms("2026-11-22"), None);
        assert_eq!(parse_ms("1969-12-31T23:59:59Z"), None);
    }
}
