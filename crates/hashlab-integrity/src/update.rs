//! A manifest brought up to date with its tree (`sum --update`, `audit
//! --update`): files not in it are added, files whose size or times moved
//! are re-hashed, and (when asked) entries whose files are gone are dropped.
//! Everything else stays byte for byte: the form, the algorithms, the line
//! style, comments and order. New lines are written by the same
//! [`SumPlan`] as `sum`, in the style the manifest's first line shows,
//! verified by writing that line again and comparing.
//!
//! Which files are unchanged is told by the size, modification time, inode
//! and status-change time recorded when each was hashed: in the manifest
//! itself for `sum --json`'s, else in a sidecar beside it
//! ([`sidecar_path`]). A sidecar entry counts only while the digests it
//! names are still the manifest's, so a sidecar left behind by an
//! interrupted run, or one that belongs to another manifest, makes the
//! files it describes be read again, never skipped.

mod listing;
mod pending;
mod prepare;
mod read;
mod sidecar;
mod tree;

pub use listing::{Form, HeldRules, JsonRow, Listed, Listing, Stamp, UpdateError};
pub use pending::{own_files, Pending, Seen, UpdateReport, Updated};
pub use prepare::{write_updated, PrepareError, SidecarRead};
pub use sidecar::{sidecar_path, Sidecar, SidecarEntry};
pub use tree::{update_tree, update_tree_with, Known, TreeUpdate};

#[cfg(test)]
mod tests {
    use super::listing::Style;
    use super::read::mark_binary;
    use super::*;
    use crate::manifest::Framing;
    use crate::plan::{DigestForm, SumPlan, SumRequest};
    use hashlab::{HashParams, Registry};
    use std::path::Path;

    const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    fn read(bytes: &[u8], name: &str) -> Result<Listing, UpdateError> {
        Listing::read(&Registry::default(), bytes, name, Framing::Lines)
    }

    fn style_of(bytes: &[u8], name: &str) -> Result<Style, UpdateError> {
        let registry = Registry::default();
        let mut listing = read(bytes, name)?;
        let base = SumRequest {
            algorithms: Vec::new(),
            backend: None,
            params: HashParams::default(),
            tagged: false,
            zero_terminated: false,
            git_blob: false,
            hashdeep: false,
            jobs: None,
            allow_mmap: true,
            digest_form: DigestForm::Hex,
            no_names: false,
            cksum_lines: false,
            sfv: false,
            binary_marker: false,
            name_standard_input: false,
            little_endian: false,
            digest_prefix: false,
        };
        let request = listing.sum_request(&registry, &base)?;
        let plan =
            SumPlan::new(&registry, &request, &[]).map_err(|e| UpdateError::Plan(e.to_string()))?;
        listing.settle_style(&plan)?;
        Ok(listing.style)
    }

    #[test]
    fn the_first_line_tells_the_style_to_write() {
        let gnu = format!("{SHA256_ABC}  a\n");
        assert_eq!(style_of(gnu.as_bytes(), "m").unwrap(), Style::default());
        let binary = format!("{SHA256_ABC} *a\n");
        assert!(style_of(binary.as_bytes(), "m").unwrap().binary);
        let tagged = format!("SHA256 (a) = {SHA256_ABC}\n");
        assert!(style_of(tagged.as_bytes(), "m").unwrap().tagged);
        let sfv = "; made by hand\na 352441C2\n";
        assert!(style_of(sfv.as_bytes(), "m.sfv").unwrap().sfv);
        let openssl = format!("SHA2-256(a)= {SHA256_ABC}\n");
        assert!(matches!(
            style_of(openssl.as_bytes(), "m"),
            Err(UpdateError::UnwritableForm { .. })
        ));
    }

    #[test]
    fn what_cannot_be_rewritten_is_refused_whole() {
        let dup = format!("{SHA256_ABC}  a\n{SHA256_ABC}  b\n{SHA256_ABC}  a\n");
        assert_eq!(
            read(dup.as_bytes(), "m").unwrap_err().to_string(),
            "line 3: 'a' is listed again (first at line 1); remove one entry first"
        );
        let bad = format!("{SHA256_ABC}  a\nnot a line\n");
        assert!(read(bad.as_bytes(), "m")
            .unwrap_err()
            .to_string()
            .starts_with("line 2: improperly formatted"));
        assert_eq!(read(b"", "m").unwrap_err(), UpdateError::Empty);
        let listing = read(format!("{SHA256_ABC}  a\n").as_bytes(), "m").unwrap();
        assert!(listing.require_algorithms(&["sha256".into()]).is_ok());
        assert!(listing
            .require_algorithms(&["md5".into()])
            .unwrap_err()
            .to_string()
            .contains("holds sha256, not md5"));
    }

    #[test]
    fn stamps_prove_nothing_without_a_size_and_a_time() {
        let recorded = Stamp {
            size: Some(3),
            mtime_ns: Some(5),
            ..Stamp::default()
        };
        let now = Stamp {
            size: Some(3),
            mtime_ns: Some(5),
            inode: Some(9),
            ctime_ns: Some(1),
            etag: None,
        };
        assert!(recorded.unchanged(&now));
        assert!(!Stamp::default().unchanged(&now));
        assert!(!Stamp {
            inode: Some(8),
            ..recorded.clone()
        }
        .unchanged(&now));
        let object = |etag: &str| Stamp {
            size: Some(3),
            etag: Some(etag.into()),
            ..Stamp::default()
        };
        assert!(object("a").unchanged(&object("a")));
        assert!(!object("a").unchanged(&object("b")));
    }

    #[test]
    fn a_sidecar_counts_only_for_the_digests_it_names() {
        let mut listing = read(format!("{SHA256_ABC}  a\n").as_bytes(), "m").unwrap();
        let stamp = Stamp {
            size: Some(3),
            mtime_ns: Some(7),
            etag: Some("e t".into()),
            ..Stamp::default()
        };
        let entry = |check: [u8; 8]| SidecarEntry {
            name: b"a".to_vec(),
            stamp: stamp.clone(),
            check,
        };
        Sidecar {
            files: vec![entry([0; 8])],
        }
        .apply(&mut listing);
        assert_eq!(listing.files[0].stamp, Stamp::default());
        let abc = hashlab::hex::decode(SHA256_ABC).unwrap();
        let right = Sidecar {
            files: vec![entry(abc[..8].try_into().unwrap())],
        };
        right.apply(&mut listing);
        assert_eq!(listing.files[0].stamp, stamp);
        assert!(Sidecar::parse(b"hashlab-stat 2\n").is_none());
        assert!(Sidecar::parse(b"garbage").is_none());
        // Names with newlines, tabs and backslashes come back as they were.
        let odd = Sidecar {
            files: vec![SidecarEntry {
                name: b"new\nline\ttab\\".to_vec(),
                ..right.files[0].clone()
            }],
        };
        assert_eq!(Sidecar::parse(&odd.to_bytes()), Some(odd));
    }

    #[test]
    fn binary_markers_go_on_gnu_lines_only() {
        let mut lines = b"ab  x  y\n\\cd  z\n".to_vec();
        mark_binary(&mut lines);
        assert_eq!(lines, b"ab *x  y\n\\cd *z\n");
    }

    /// A listing of the files at these absolute paths as `rules` allow,
    /// updated from them (`prune`): what the Python package's `Manifest`
    /// and `sum --update` each get.
    fn updated_as(
        names: &[&Path],
        rules: HeldRules,
        manifest: &Path,
    ) -> Result<Updated, UpdateError> {
        let registry = Registry::default();
        let lines: String = names
            .iter()
            .map(|n| format!("{SHA256_ABC}  {}\n", n.display()))
            .collect();
        let mut listing = read(lines.as_bytes(), "m")?;
        listing.held = rules;
        let request = listing.sum_request(&registry, &SumRequest::default())?;
        let plan = SumPlan::new(&registry, &request, &[]).unwrap();
        listing.settle_style(&plan)?;
        let tree = TreeUpdate {
            manifest,
            paths: &[],
            walk: crate::walk::WalkOptions::default(),
            prune: true,
            known: None,
        };
        update_tree(&listing, &plan, &plan.job(crate::Cancel::new()), &tree).unwrap()
    }

    #[test]
    fn a_manifest_held_in_memory_may_be_emptied_and_counts_a_directory_gone() {
        let dir = tempfile::tempdir().unwrap();
        let (a, manifest) = (dir.path().join("a"), dir.path().join("m"));
        std::fs::create_dir(&a).unwrap();
        // On disk, a listed file that is now a directory is kept and said so.
        let kept = updated_as(&[&a], HeldRules::default(), &manifest).unwrap();
        assert!(kept.report.removed.is_empty());
        assert_eq!(kept.report.unreadable[0].1, "a directory, not a file");
        assert_eq!(
            kept.manifest,
            format!("{SHA256_ABC}  {}\n", a.display()).as_bytes()
        );
        let held = HeldRules {
            may_empty: true,
            only_files_exist: true,
        };
        let gone = updated_as(&[&a], held, &manifest).unwrap();
        assert_eq!(gone.report.removed, [a.display().to_string()]);
        assert!(gone.manifest.is_empty());
        // Every entry gone: a file is not emptied, a value in memory is.
        std::fs::remove_dir(&a).unwrap();
        assert_eq!(
            updated_as(&[&a], HeldRules::default(), &manifest).unwrap_err(),
            UpdateError::WouldEmpty { entries: 1 }
        );
        let emptied = updated_as(&[&a], held, &manifest).unwrap();
        assert_eq!(emptied.report.removed, [a.display().to_string()]);
    }

    #[test]
    fn a_listing_with_no_entries_gets_new_lines_as_sum_writes_them() {
        let registry = Registry::default();
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::write(&a, b"abc").unwrap();
        let listing = Listing::empty(vec![("sha256".into(), 32)]);
        let request = listing
            .sum_request(&registry, &SumRequest::default())
            .unwrap();
        let plan = SumPlan::new(&registry, &request, &[]).unwrap();
        let paths = [a.clone()];
        let tree = TreeUpdate {
            manifest: &dir.path().join("m"),
            paths: &paths,
            walk: crate::walk::WalkOptions::default(),
            prune: false,
            known: None,
        };
        let job = plan.job(crate::Cancel::new());
        let updated = update_tree_with(&listing, &plan, &job, &tree, &|_| false)
            .unwrap()
            .unwrap();
        assert_eq!(updated.report.added, [a.display().to_string()]);
        assert_eq!(
            updated.manifest,
            format!("{SHA256_ABC}  {}\n", a.display()).as_bytes()
        );
    }

    #[test]
    fn new_names_follow_the_manifest() {
        let cwd = Path::new("/w");
        let plain = read(format!("{SHA256_ABC}  a\n").as_bytes(), "m").unwrap();
        assert_eq!(plain.label(b"./d/b", cwd), b"d/b");
        assert_eq!(plain.label(b"d/b", cwd), b"d/b");
        let dotted = read(format!("{SHA256_ABC}  ./a\n").as_bytes(), "m").unwrap();
        assert_eq!(dotted.label(b"./d/b", cwd), b"./d/b");
        let absolute = read(format!("{SHA256_ABC}  /w/a\n").as_bytes(), "m").unwrap();
        assert_eq!(absolute.label(b"./d/../b", cwd), b"/w/b");
    }
}
