//! How the hashes known sets need are computed: one plan over their
//! algorithms, each hash computed by that plan's choice at the sets' digest
//! length where that is not the algorithm's own (a `b2sum -l 256` set, a
//! SHAKE set of 16 bytes).

use std::path::Path;

use hashlab::{Choice, HashParams, Registry};

use super::sets::KnownHash;
use crate::many::Fanout;
use crate::plan::{PlanError, SumPlan, SumRequest};

/// The plan of a run looked up in known sets, and the choice computing each of their hashes.
pub struct KnownPlan {
    pub plan: SumPlan,
    /// One per hash, in the sets' order.
    pub choices: Vec<Choice>,
}

impl KnownPlan {
    /// `jobs` and `allow_mmap` as [`SumRequest`] takes them; `sample`, a
    /// few of the files to be read.
    pub fn new(
        registry: &Registry,
        hashes: &[KnownHash],
        jobs: Option<usize>,
        allow_mmap: bool,
        sample: &[&Path],
    ) -> Result<KnownPlan, PlanError> {
        let request = SumRequest {
            algorithms: hashes.iter().map(|h| h.algorithm.clone()).collect(),
            jobs,
            allow_mmap,
            ..SumRequest::default()
        };
        let plan = SumPlan::new(registry, &request, sample)?;
        let choices = hashes
            .iter()
            .map(|h| choice(&plan, h))
            .collect::<Result<_, _>>()?;
        Ok(KnownPlan { plan, choices })
    }

    /// The hashers of one input, one per hash.
    pub fn fanout(&self) -> Fanout {
        Fanout::new(self.choices.iter().map(Choice::hasher).collect())
    }
}

fn choice(plan: &SumPlan, hash: &KnownHash) -> Result<Choice, PlanError> {
    let column = plan
        .columns
        .iter()
        .find(|c| c.choice.name() == hash.algorithm)
        .expect("the plan has a column for each hash's algorithm");
    if column.choice.output_len() == hash.width {
        return Ok(column.choice.clone());
    }
    let params = HashParams {
        length: Some(hash.width),
        ..HashParams::default()
    };
    Ok(column
        .choice
        .with_params(&params)
        .and_then(|c| c.with_parallel(plan.strategy.parallel_hash))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(algorithm: &str, width: usize) -> KnownHash {
        KnownHash {
            algorithm: algorithm.into(),
            width,
        }
    }

    #[test]
    fn each_hash_is_computed_at_its_sets_width() {
        let registry = Registry::default();
        let hashes = [hash("sha256", 32), hash("blake2b", 32)];
        let known = KnownPlan::new(&registry, &hashes, Some(1), false, &[]).unwrap();
        let widths: Vec<usize> = known.choices.iter().map(Choice::output_len).collect();
        assert_eq!(widths, [32, 32]);
        assert_eq!(known.plan.names(), ["sha256", "blake2b"]);
    }

    #[test]
    fn a_width_the_algorithm_cannot_give_is_refused() {
        let registry = Registry::default();
        let refused = KnownPlan::new(&registry, &[hash("sha256", 16)], Some(1), false, &[]);
        assert!(matches!(refused, Err(PlanError::Hash(_))));
    }
}
