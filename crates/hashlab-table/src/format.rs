//! Numbers as every table prints them, terminal and page alike.

/// MB/s (and other speeds) with three significant digits or whole units: `45123`, `987`, `12.3`, `1.23`.
pub fn speed(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A share as a whole percentage: `97 %`.
pub fn percent(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}

/// A ratio as a speed-up: `1.53x`.
pub fn times(ratio: f64) -> String {
    format!("{ratio:.2}x")
}

/// The shortest text that reads back as the same f64 (HTML `data-` attributes, CSV).
pub fn exact(v: f64) -> String {
    format!("{v}")
}

/// A duration a person reads: `4.2 s`, `3.5 min`, `1.2 h`.
pub fn duration(seconds: f64) -> String {
    if seconds >= 3600.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else if seconds >= 60.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{seconds:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(speed(45123.4), "45123");
        assert_eq!(speed(12.34), "12.3");
        assert_eq!(speed(1.234), "1.23");
        assert_eq!(speed(-12.34), "-12.3");
        assert_eq!(speed(f64::NAN), "-");
        assert_eq!(percent(0.974), "97 %");
        assert_eq!(times(1.534), "1.53x");
        assert_eq!(exact(0.1 + 0.2).parse::<f64>().unwrap(), 0.1 + 0.2);
        assert_eq!(duration(42.0), "42.0 s");
        assert_eq!(duration(90.0), "1.5 min");
        assert_eq!(duration(5400.0), "1.5 h");
    }
}
