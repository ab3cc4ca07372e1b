//! Runs one of rurban's families alone, from the default plan or the quick
//! one, to time it (`/usr/bin/time -v`): docs/quality.md gives the CPU
//! seconds measured this way.
//!
//! ```text
//! cargo run --release -p hashlab-quality --example family -- ALGO FAMILY [--quick] [--size N] [--json]
//! ```
//!
//! FAMILY is window, moment-chi2, prng or long-neighbors (or `count`: the
//! number of tests the plan makes of ALGO, each test's Bonferroni divisor);
//! `--size` replaces
//! the plan's size (window bits, moment step, prng outputs, long-neighbour
//! length step); `--json` prints the report as `hashlab quality --format
//! json` does (scripts/rurban_verdicts.py reads it).
//!
//! Each test is judged as in a full run of the plan it comes from: its
//! statistics share alpha with every test of that plan for this hash
//! (`Plan::tests`), not with the one test run here, so a verdict here is
//! the verdict of the full battery. `failing_statistics` is then the count
//! below the one-test threshold, an upper bound.

use std::process::ExitCode;

use hashlab::Registry;
use hashlab_quality::{run, Correction, Options, Plan, Report};

fn only(family: &str, from: Plan, size: Option<u64>) -> Result<Plan, String> {
    let mut plan = Plan {
        name: format!("{} {family}", from.name),
        window: None,
        moment_chi2: vec![],
        prng: None,
        long_neighbors: None,
        ..Plan::quick()
    };
    // Every other family off: the quick plan's lists emptied.
    plan.avalanche.clear();
    plan.bit_independence.clear();
    plan.sparse.clear();
    plan.cyclic.clear();
    plan.differential.clear();
    plan.table.clear();
    plan.zeroes = None;
    plan.two_bytes.clear();
    plan.text.clear();
    plan.permutation.clear();
    plan.key_avalanche.clear();
    plan.key_collisions.clear();
    plan.seed_avalanche.clear();
    plan.seed_bit_independence.clear();
    plan.seed_collisions.clear();
    plan.bad_seeds = None;
    plan.seed_zeroes = None;
    plan.seed_blocks.clear();
    plan.seed_keys.clear();
    match family {
        "window" => plan.window = size.map(|s| s as u32).or(from.window),
        "moment-chi2" => {
            plan.moment_chi2 = from.moment_chi2;
            if let Some(step) = size {
                plan.moment_chi2.iter_mut().for_each(|m| m.1 = step);
            }
        }
        "prng" => plan.prng = size.map(|s| s as usize).or(from.prng),
        "long-neighbors" => {
            plan.long_neighbors = from.long_neighbors;
            if let (Some(step), Some(set)) = (size, plan.long_neighbors.as_mut()) {
                set.length_step = step as usize;
            }
        }
        other => return Err(format!("unknown family '{other}'")),
    }
    Ok(plan)
}

/// The report with each test judged as the full run of `plan` judges it.
fn as_in_full_run(mut report: Report, plan: &Plan) -> Report {
    let tests = plan.tests(
        report.key_bytes.is_some(),
        report.seed_bits.is_some(),
        report.output_bits,
    );
    let correction = Correction::new(report.alpha, tests);
    for t in &mut report.tests {
        t.alpha_per_statistic = correction.per_statistic(t.statistics);
        t.corrected_p = correction.corrected(t.worst.p_value, t.statistics);
        t.threshold = t.worst.threshold(t.alpha_per_statistic);
        t.passed = t.worst.p_value >= t.alpha_per_statistic;
        if t.passed {
            t.failing_statistics = 0;
        }
    }
    report.failed = report.tests.iter().filter(|t| !t.passed).count();
    report.passed = report.tests.len() - report.failed;
    report
}

/// Prints how many tests `from` makes of `algorithm`.
fn count(algorithm: &str, from: &Plan) -> ExitCode {
    // A plan of no test still resolves the hash: keyed, seeded, how wide.
    let empty = Plan {
        window: None,
        ..only("window", from.clone(), None).expect("window is a family")
    };
    let options = Options {
        plan: empty,
        ..Options::standard()
    };
    match run(&Registry::default(), algorithm, None, &options) {
        Ok(r) => {
            let keyed = r.key_bytes.is_some();
            println!(
                "{}",
                from.tests(keyed, r.seed_bits.is_some(), r.output_bits)
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("family: {error}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(algorithm), Some(family)) = (args.first(), args.get(1)) else {
        eprintln!("usage: family ALGO FAMILY [--quick] [--size N] [--json]");
        return ExitCode::from(2);
    };
    let quick = args.iter().any(|a| a == "--quick");
    let size = args
        .iter()
        .position(|a| a == "--size")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok());
    let from = if quick {
        Plan::quick()
    } else {
        Plan::standard()
    };
    if family == "count" {
        return count(algorithm, &from);
    }
    let plan = match only(family, from.clone(), size) {
        Ok(plan) => plan,
        Err(why) => {
            eprintln!("family: {why}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        plan,
        ..Options::standard()
    };
    match run(&Registry::default(), algorithm, None, &options).map(|r| as_in_full_run(r, &from)) {
        Ok(report) if args.iter().any(|a| a == "--json") => {
            match serde_json::to_string(&report) {
                Ok(json) => println!("{json}"),
                Err(error) => {
                    eprintln!("family: {error}");
                    return ExitCode::from(2);
                }
            }
            ExitCode::SUCCESS
        }
        Ok(report) => {
            for t in &report.tests {
                println!(
                    "{} | {} | {} hashes | {} | corrected p {:.2e} | {} | {:.2} s",
                    t.test.as_str(),
                    t.case,
                    t.hashes,
                    t.statistic,
                    t.corrected_p,
                    if t.passed { "PASS" } else { "FAIL" },
                    t.seconds
                );
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("family: {error}");
            ExitCode::from(2)
        }
    }
}
