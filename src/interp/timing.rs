//! The `time` keyword: how long a pipeline took, in wall-clock time and in the CPU time of the
//! shell and of the children it waited for, reported as bash reports it (`TIMEFORMAT`, or
//! POSIX's format for `time -p`).

use std::time::Instant;

use nix::sys::resource::{UsageWho, getrusage};

use crate::parse::TimeFormat;

/// bash's format when `TIMEFORMAT` is unset.
const DEFAULT_FORMAT: &str = "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS";
const POSIX_FORMAT: &str = "real %2R\nuser %2U\nsys %2S";

/// Where a timed pipeline started.
pub(super) struct Clock {
    started: Instant,
    /// User and system CPU seconds so far, of the shell and its waited-for children.
    cpu: (f64, f64),
}

impl Clock {
    pub(super) fn start() -> Clock {
        Clock {
            started: Instant::now(),
            cpu: cpu_seconds(),
        }
    }

    /// The report for the time since `start`, with the trailing newline; None when the
    /// format is empty. Err: a `%` sequence bash does not know (its character).
    pub(super) fn report(
        &self,
        format: TimeFormat,
        timeformat: Option<&str>,
    ) -> Result<Option<String>, char> {
        let format = match (format, timeformat) {
            (TimeFormat::Posix, _) => POSIX_FORMAT,
            (TimeFormat::Default, None) => DEFAULT_FORMAT,
            (TimeFormat::Default, Some("")) => return Ok(None),
            (TimeFormat::Default, Some(format)) => format,
        };
        let real = self.started.elapsed().as_secs_f64();
        let (user, sys) = cpu_seconds();
        let times = Times {
            real,
            user: (user - self.cpu.0).max(0.0),
            sys: (sys - self.cpu.1).max(0.0),
        };
        render(format, &times).map(|text| Some(text + "\n"))
    }
}

fn cpu_seconds() -> (f64, f64) {
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    [UsageWho::RUSAGE_SELF, UsageWho::RUSAGE_CHILDREN]
        .into_iter()
        .filter_map(|who| getrusage(who).ok())
        .fold((0.0, 0.0), |(user, sys), usage| {
            (
                user + seconds(usage.user_time()),
                sys + seconds(usage.system_time()),
            )
        })
}

struct Times {
    real: f64,
    user: f64,
    sys: f64,
}

/// `TIMEFORMAT`: `%[p][l]R`, `U` and `S` (seconds with `p` decimals, at most 3; `l`: minutes
/// and seconds), `%P` (CPU percentage), `%%`; everything else as it is.
fn render(format: &str, times: &Times) -> Result<String, char> {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(mut c) = chars.next() else {
            out.push('%');
            break;
        };
        if c == '%' {
            out.push('%');
            continue;
        }
        if c == 'P' {
            out.push_str(&percent(times));
            continue;
        }
        let mut precision = 3;
        if let Some(digit) = c.to_digit(10) {
            precision = digit.min(3) as usize;
            c = chars.next().ok_or(c)?;
        }
        let long = c == 'l';
        if long {
            c = chars.next().ok_or(c)?;
        }
        let seconds = match c {
            'R' => times.real,
            'U' => times.user,
            'S' => times.sys,
            other => return Err(other),
        };
        out.push_str(&seconds_text(seconds, precision, long));
    }
    Ok(out)
}

/// Seconds as bash writes them: the fraction cut (not rounded) to `precision` digits.
fn seconds_text(seconds: f64, precision: usize, long: bool) -> String {
    let millis = (seconds * 1000.0) as u64;
    let (whole, frac) = (millis / 1000, millis % 1000);
    let fraction = match precision {
        0 => String::new(),
        p => format!(".{:0width$}", frac / 10u64.pow(3 - p as u32), width = p),
    };
    if long {
        format!("{}m{}{fraction}s", whole / 60, whole % 60)
    } else {
        format!("{whole}{fraction}")
    }
}

/// `%P`: (user + system) / real, in percent with two decimals, at most 100.
fn percent(times: &Times) -> String {
    if times.real <= 0.0 {
        return "0.00".to_owned();
    }
    let hundredths = (((times.user + times.sys) / times.real) * 10_000.0).min(10_000.0) as u64;
    format!("{}.{:02}", hundredths / 100, hundredths % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(format: &str, real: f64, user: f64, sys: f64) -> Result<String, char> {
        render(format, &Times { real, user, sys })
    }

    #[test]
    fn formats_as_bash_does() {
        assert_eq!(
            shown(DEFAULT_FORMAT, 75.1239, 0.0019, 0.5).unwrap(),
            "\nreal\t1m15.123s\nuser\t0m0.001s\nsys\t0m0.500s"
        );
        assert_eq!(
            shown(POSIX_FORMAT, 0.1059, 0.0, 0.011).unwrap(),
            "real 0.10\nuser 0.00\nsys 0.01"
        );
        assert_eq!(
            shown("%R|%3lR|%0R|%lU|%P|%%|%2S|%0lR", 0.0519, 0.001, 0.0003,).unwrap(),
            "0.051|0m0.051s|0|0m0.001s|2.50|%|0.00|0m0s"
        );
        assert_eq!(shown("%9R %P", 2.0, 3.0, 0.0).unwrap(), "2.000 100.00");
        assert_eq!(shown("a%Xb", 1.0, 0.0, 0.0), Err('X'));
        assert_eq!(shown("%2", 1.0, 0.0, 0.0), Err('2'));
        assert_eq!(shown("100%", 1.0, 0.0, 0.0).unwrap(), "100%");
    }
}
