//! What an update starts from and how it ends: the sidecar's stamps put on
//! the listing, the one plan the manifest's algorithms and style call for,
//! and what changed written back, the manifest before its sidecar.

use std::fmt;
use std::path::{Path, PathBuf};

use hashlab::Registry;

use super::listing::{Form, Listing, UpdateError};
use super::sidecar::{sidecar_path, Sidecar};
use crate::bounded;
use crate::outfile::{write_file, OutputError};
use crate::plan::{PlanError, SumPlan, SumRequest};

/// The sidecar beside a manifest, as [`Listing::apply_sidecar`] found it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SidecarRead {
    /// Its bytes as they were, to be rewritten only if they change.
    pub old: Option<Vec<u8>>,
    /// A sidecar this version cannot read: its stamps were not used, so
    /// every listed file is read again.
    pub unreadable: Option<PathBuf>,
}

/// Why an update cannot be planned: the manifest refuses it, or the plan
/// its algorithms and style call for does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrepareError {
    Update(UpdateError),
    Plan(PlanError),
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrepareError::Update(e) => e.fmt(f),
            PrepareError::Plan(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PrepareError {}

impl Listing {
    /// Puts the stamps of `manifest`'s sidecar on the listing, where it has
    /// one (a JSON manifest holds its own); a sidecar read bounded as the
    /// manifest is, and one that is not a sidecar, count as none.
    pub fn apply_sidecar(&mut self, manifest: &Path) -> SidecarRead {
        let path = sidecar_path(manifest);
        let old = match self.form {
            Form::Json => None,
            _ => bounded::read_file(&path, b'\n').ok(),
        };
        let unreadable = match old.as_deref().map(Sidecar::parse) {
            Some(Some(sidecar)) => {
                sidecar.apply(self);
                None
            }
            Some(None) => Some(path),
            None => None,
        };
        SidecarRead { old, unreadable }
    }

    /// The one plan of an update: `base`'s reading and jobs, the
    /// manifest's algorithms, and the style its first line is in (the
    /// styles it may be in are tried on that plan, resolving nothing again).
    pub fn plan_update(
        &mut self,
        registry: &Registry,
        base: &SumRequest,
    ) -> Result<SumPlan, PrepareError> {
        let request = self
            .sum_request(registry, base)
            .map_err(PrepareError::Update)?;
        let plan = SumPlan::new(registry, &request, &[]).map_err(PrepareError::Plan)?;
        self.settle_style(&plan).map_err(PrepareError::Update)?;
        self.styled(&plan).map_err(PrepareError::Plan)
    }
}

/// Writes what changed of the manifest and its sidecar, each atomically,
/// the manifest first (a sidecar entry counts only for the digests the
/// manifest has, so either left alone by a crash is safe). Whether the
/// manifest was rewritten.
pub fn write_updated(
    manifest: &Path,
    old: &[u8],
    old_sidecar: Option<&[u8]>,
    new: &[u8],
    new_sidecar: Option<&[u8]>,
) -> Result<bool, OutputError> {
    let written = new != old;
    if written {
        write_file(manifest, new)?;
    }
    if let Some(bytes) = new_sidecar {
        if old_sidecar != Some(bytes) {
            write_file(sidecar_path(manifest), bytes)?;
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Framing;

    const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn a_sidecar_that_is_not_one_is_named_and_not_applied() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("M");
        let bytes = format!("{SHA256_ABC}  a\n");
        std::fs::write(&manifest, &bytes).unwrap();
        let mut listing =
            Listing::read(&Registry::default(), bytes.as_bytes(), "M", Framing::Lines).unwrap();
        assert_eq!(listing.apply_sidecar(&manifest), SidecarRead::default());
        std::fs::write(sidecar_path(&manifest), b"not a sidecar\n").unwrap();
        let read = listing.apply_sidecar(&manifest);
        assert_eq!(read.old.as_deref(), Some(&b"not a sidecar\n"[..]));
        assert_eq!(read.unreadable, Some(sidecar_path(&manifest)));
    }

    #[test]
    fn an_update_plans_in_the_manifests_algorithm_and_style() {
        let registry = Registry::default();
        let bytes = format!("SHA256 (a) = {SHA256_ABC}\n");
        let mut listing = Listing::read(&registry, bytes.as_bytes(), "M", Framing::Lines).unwrap();
        let plan = listing
            .plan_update(&registry, &SumRequest::default())
            .unwrap();
        assert_eq!(plan.names(), ["sha256"]);
        assert!(listing.style.tagged);
    }

    #[test]
    fn only_what_changed_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("M");
        assert!(!write_updated(&manifest, b"same", None, b"same", None).unwrap());
        assert!(!manifest.exists());
        assert!(write_updated(&manifest, b"old", Some(b"s"), b"new", Some(b"s")).unwrap());
        assert_eq!(std::fs::read(&manifest).unwrap(), b"new");
        assert!(!sidecar_path(&manifest).exists());
        write_updated(&manifest, b"new", Some(b"s"), b"new", Some(b"t")).unwrap();
        assert_eq!(std::fs::read(sidecar_path(&manifest)).unwrap(), b"t");
    }
}
