//! `hashlab audit MANIFEST [DIR|URL]...`: a manifest against local
//! directories and object-store prefixes at once, its piece-only entries
//! compared piece by piece, the result as hashlab-integrity's
//! [`ManifestAudit`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use hashlab::Registry;
use hashlab_integrity::{
    audit_pieces, audit_with, expand, AuditError, AuditScope, Fanout, Manifest, ManifestAudit,
    PieceOnly, RemoteHash, WalkOptions,
};

use crate::{EtagVerdict, ObjectInfo, ObjectReader};

/// How [`audit`] runs.
#[derive(Debug, Clone, Default)]
pub struct AuditOptions<'a> {
    /// Local files hashed in parallel.
    pub jobs: usize,
    /// The manifest itself, when it lies in an audited directory.
    pub skip: Option<&'a Path>,
    /// Local files only: skip those whose size and time are as recorded.
    pub changed_only: bool,
    /// Judge each object's ETag against the MD5 of its content.
    pub verify_etag: bool,
    /// Keep every file's digests in the report (for a re-baseline).
    pub keep_digests: bool,
}

/// What [`audit`] found.
#[derive(Debug, Clone)]
pub struct AuditOutcome {
    pub audit: ManifestAudit,
    /// With `verify_etag`: each object's name and verdict, in listing order.
    pub etags: Vec<(String, EtagVerdict)>,
}

/// The manifest's entries against the files under `local` (walked
/// recursively) and the objects under `roots`: every object under the roots
/// is listed and re-hashed, and the report says which recorded names
/// matched, changed, went missing, are new or moved. Entries recording only
/// pieces are compared piece by piece, and a changed file recording pieces
/// is told where it changed. A root that cannot be listed fails the audit
/// (its objects would all look missing). `reader` may be None when `roots`
/// is empty.
pub fn audit(
    reader: Option<&ObjectReader>,
    registry: &Registry,
    manifest: Manifest,
    local: &[PathBuf],
    roots: &[String],
    options: &AuditOptions<'_>,
) -> Result<AuditOutcome, AuditError> {
    let Manifest {
        entries: mut recorded,
        problems,
    } = manifest;
    let walk = WalkOptions {
        recursive: true,
        ..Default::default()
    };
    let mut tree = expand(local, &walk);
    let piece_only = PieceOnly::take(&mut recorded, &mut tree)?;
    let mut etags = Vec::new();
    let mut remote = |make: &(dyn Fn() -> Fanout + Sync)| {
        let reader = reader.ok_or("object-store URLs given without a reader to read them")?;
        let objects = listed(reader, roots).map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(objects.len());
        reader
            .hash::<()>(&objects, make, options.verify_etag, &mut |i, result| {
                let result = result.map_err(|e| e.message).map(|d| {
                    if let Some(verdict) = d.etag {
                        etags.push((objects[i].name.clone(), verdict));
                    }
                    d.digests
                });
                out.push((objects[i].name.clone(), result));
                Ok(())
            })
            .expect("the collector never stops the run");
        Ok(out)
    };
    let scope = AuditScope {
        skip: options.skip,
        changed_only: options.changed_only,
        keep_digests: options.keep_digests,
    };
    let remote = (!roots.is_empty()).then_some(&mut remote as RemoteHash<'_>);
    let jobs = options.jobs.max(1);
    let mut report = audit_with(registry, &recorded, &tree, jobs, scope, remote)?;
    let changed = options.changed_only;
    let pieces = audit_pieces(registry, &recorded, piece_only, jobs, changed, &mut report)?;
    let problems = problems.iter().map(|p| p.to_string()).collect();
    Ok(AuditOutcome {
        audit: ManifestAudit::new(report, problems, pieces, changed),
        etags,
    })
}

/// Every object under `roots`, each once (roots that overlap list some
/// objects twice).
fn listed(reader: &ObjectReader, roots: &[String]) -> Result<Vec<ObjectInfo>, crate::ObjectError> {
    let mut objects: Vec<ObjectInfo> = Vec::new();
    for root in roots {
        objects.extend(reader.list(root)?);
    }
    let mut seen = HashSet::new();
    objects.retain(|o| seen.insert(o.name.clone()));
    Ok(objects)
}
