//! Whether results read back from a file (`bench --json`, for `compare` and
//! `report`) hold what a measurement can: every sample a positive time,
//! every other quantity non-negative. A file edited by hand or by another
//! program may hold anything JSON can; the statistics and charts are
//! written for measurements, so what no measurement gives is refused here,
//! once, with the place it was found.

use std::fmt;

use crate::report::Report;

/// The first thing in a results file that no measurement gives.
#[derive(Debug, Clone, PartialEq)]
pub struct Unusable {
    /// Where, as a path into the file's JSON: `cells[3].samples[0]`.
    pub place: String,
    pub value: f64,
    /// What the value should be.
    pub expected: &'static str,
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is {}, not {}: not a measurement",
            self.place, self.value, self.expected
        )
    }
}

impl std::error::Error for Unusable {}

/// Checks `report` as [`Unusable`] says.
pub fn check_usable(report: &Report) -> Result<(), Unusable> {
    for (i, cell) in report.cells.iter().enumerate() {
        if cell.batch == 0 {
            return Err(Unusable {
                place: format!("cells[{i}].batch"),
                value: 0.0,
                expected: "a count of messages (1 or more)",
            });
        }
        for (j, &sample) in cell.samples.iter().enumerate() {
            if !(sample.is_finite() && sample > 0.0) {
                return Err(Unusable {
                    place: format!("cells[{i}].samples[{j}]"),
                    value: sample,
                    expected: "a positive time in seconds",
                });
            }
        }
    }
    // Every number of the file as it is written out again: one walk covers
    // every field, present and future.
    let value = serde_json::to_value(report).map_err(|_| Unusable {
        place: "the results".to_string(),
        value: f64::NAN,
        expected: "numbers JSON can hold",
    })?;
    let mut place = String::new();
    non_negative(&value, &mut place)
}

fn non_negative(value: &serde_json::Value, place: &mut String) -> Result<(), Unusable> {
    use serde_json::Value;
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(()),
            x => Err(Unusable {
                place: place.clone(),
                value: x.unwrap_or(f64::NAN),
                expected: "a non-negative number",
            }),
        },
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = place.len();
                place.push_str(&format!("[{i}]"));
                non_negative(item, place)?;
                place.truncate(len);
            }
            Ok(())
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                let len = place.len();
                if !place.is_empty() {
                    place.push('.');
                }
                place.push_str(key);
                non_negative(item, place)?;
                place.truncate(len);
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::String(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Report {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/results/zen4-plain.json"
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn measured_results_are_usable() {
        assert_eq!(check_usable(&fixture()), Ok(()));
    }

    #[test]
    fn negative_zero_and_unbounded_quantities_are_not() {
        let mut r = fixture();
        r.cells[2].samples[1] = -1e-9;
        let e = check_usable(&r).unwrap_err();
        assert_eq!(e.place, "cells[2].samples[1]");
        assert_eq!(
            e.to_string(),
            "cells[2].samples[1] is -0.000000001, not a positive time in seconds: not a measurement"
        );
        let mut r = fixture();
        r.cells[0].samples[0] = 0.0;
        assert!(check_usable(&r).is_err());
        let mut r = fixture();
        r.cells[1].batch = 0;
        assert_eq!(check_usable(&r).unwrap_err().place, "cells[1].batch");
        let mut r = fixture();
        if let Some(s) = r.cells[4].summary.as_mut() {
            s.median = -3.0;
        }
        assert_eq!(
            check_usable(&r).unwrap_err().place,
            "cells[4].summary.median"
        );
    }
}
