//! Piecewise digests, as `hashdeep -p` makes them: a digest of every piece
//! of a file (and of the whole file), so that a later comparison tells which
//! byte ranges of a large file changed, not only that it did.
//!
//! Here: the piece size as users write it; hashing files in pieces (the
//! pieces of one file on several threads, files on several threads); the
//! pieces a manifest records (hashdeep's `offset START-END` lines, `sum
//! --json`'s `pieces`), checked for gaps, overlaps and order; and comparing a
//! file with them, for `check` and `audit`.

mod compare;
mod hashing;
mod record;
mod size;

pub use compare::{
    audit_pieces, compare_file, ChangedPieces, Comparer, Comparison, EntryHasher, PieceOnly, Ranges,
};
pub use hashing::{hash_inputs_in_pieces, hashdeep_piece_lines, PieceDigests, UnwritablePieces};
pub use record::{JsonPieces, PieceFault, Pieces};
pub use size::{parse_piece_size, piece_count, piece_range, PieceSizeError, MAX_PIECES};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorded::{read_manifest, ReadOptions};
    use std::path::PathBuf;

    use hashlab::{Digest, HashParams, Registry};

    use crate::cancel::Cancel;
    use crate::lines::hashdeep_line;
    use crate::many::{Fanout, FileDigests, HashJob};
    use crate::read::ReadStrategy;
    use crate::recorded::{Manifest, Recorded};
    use crate::walk::Input;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hashlab-pieces-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn data(len: usize, seed: u32) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 13) as u8)
            .collect()
    }

    fn registry() -> &'static Registry {
        static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
        REGISTRY.get_or_init(Registry::default)
    }

    fn make(algs: &'static [&'static str]) -> impl Fn() -> Fanout + Sync {
        move || {
            Fanout::new(
                algs.iter()
                    .map(|a| registry().hasher(a, None, &HashParams::default()).unwrap())
                    .collect(),
            )
        }
    }

    fn digest_of(alg: &str, bytes: &[u8]) -> Digest {
        let mut h = registry()
            .hasher(alg, None, &HashParams::default())
            .unwrap();
        h.update(bytes);
        h.finalize_reset()
    }

    #[test]
    fn sizes_as_hashdeep_and_bench_write_them() {
        for (text, bytes) in [
            ("1", 1),
            ("3b", 3),
            ("1k", 1024),
            ("4K", 4096),
            ("1m", 1 << 20),
            ("1MiB", 1 << 20),
            ("64KB", 64_000),
            ("10MB", 10_000_000),
            ("2g", 2 << 30),
            ("1t", 1 << 40),
            ("1e", 1 << 60),
        ] {
            assert_eq!(parse_piece_size(text), Ok(bytes), "{text}");
        }
        for text in [
            "0",
            "0k",
            "",
            "k",
            "1.5k",
            "-1",
            "1x",
            "1kk",
            "99999999999999999999",
            "16e",
        ] {
            let e = parse_piece_size(text).unwrap_err();
            assert!(
                !e.to_string().contains('\n') && e.to_string().contains(text),
                "{e}"
            );
        }
        assert!(matches!(
            parse_piece_size("0"),
            Err(PieceSizeError::Zero(_))
        ));
        assert!(matches!(
            parse_piece_size("16e"),
            Err(PieceSizeError::TooLarge(_))
        ));
    }

    #[test]
    fn ranges_merge_where_they_touch() {
        let mut r = Ranges::default();
        r.add(0, 1024);
        r.add(1024, 2048);
        r.add(4096, 5000);
        r.add(4500, 6000);
        r.add(7000, 7000);
        assert_eq!(r.0, vec![(0, 2047), (4096, 5999)]);
        assert_eq!(r.to_string(), "bytes 0-2047, 4096-5999");
        assert_eq!(piece_count(0, 10), 1);
        assert_eq!(piece_count(10, 10), 1);
        assert_eq!(piece_count(11, 10), 2);
        assert_eq!(piece_range(25, 10, 2), (20, 25));
        assert_eq!(piece_range(0, 10, 0), (0, 0));
        assert_eq!(
            piece_range(u64::MAX, u64::MAX / 2, 2),
            (u64::MAX - 1, u64::MAX)
        );
    }

    /// Whole digests are what hashing the file whole gives, and each piece's
    /// digest is that of its bytes: with one job (one read) and several
    /// (pread() on the pool), for lengths around the piece size, an empty
    /// file, and several files at once.
    #[test]
    fn pieces_are_the_digests_of_their_bytes() {
        let dir = scratch("digests");
        let lens = [0usize, 1, 999, 1000, 1001, 5000, 9_000_123];
        let mut inputs = Vec::new();
        for (i, len) in lens.iter().enumerate() {
            let p = dir.join(format!("f{i}"));
            std::fs::write(&p, data(*len, i as u32)).unwrap();
            inputs.push(Input::File(p));
        }
        inputs.push(Input::File(dir.join("missing")));
        let make = make(&["md5", "sha256"]);
        let job = HashJob::new(ReadStrategy::for_hash(hashlab::FileBound::Hash, false));
        for size in [1000u64, 4096, 1 << 20] {
            for jobs in [1, 2, 3] {
                for subset in [&inputs[..], &inputs[6..7]] {
                    let mut seen = Vec::new();
                    hash_inputs_in_pieces::<()>(subset, &make, size, jobs, &job, &mut |i, r| {
                        seen.push((i, r));
                        Ok(())
                    })
                    .unwrap();
                    assert_eq!(seen.len(), subset.len());
                    for (i, result) in seen {
                        let Input::File(path) = &subset[i] else {
                            unreachable!()
                        };
                        let Ok(bytes) = std::fs::read(path) else {
                            assert!(result.is_err());
                            continue;
                        };
                        let got = result.unwrap();
                        assert_eq!(got.file.bytes, bytes.len() as u64);
                        assert_eq!(got.file.digests[1], digest_of("sha256", &bytes));
                        assert_eq!(
                            got.pieces.len() as u64,
                            piece_count(bytes.len() as u64, size)
                        );
                        let last = got.pieces.len() - 1;
                        for (p, piece) in got
                            .pieces
                            .iter()
                            .enumerate()
                            .filter(|(p, _)| p % 13 < 2 || *p == last)
                        {
                            let (s, e) = piece_range(bytes.len() as u64, size, p as u64);
                            let slice = &bytes[s as usize..e as usize];
                            assert_eq!(
                                piece[0],
                                digest_of("md5", slice),
                                "size {size} jobs {jobs} piece {p}"
                            );
                            assert_eq!(piece[1], digest_of("sha256", slice));
                        }
                    }
                }
            }
        }
        // Too many pieces: one clear error for that file.
        let mut errors = Vec::new();
        hash_inputs_in_pieces::<()>(&inputs[6..7], &make, 1, 2, &job, &mut |_, r| {
            errors.push(r.unwrap_err().to_string());
            Ok(())
        })
        .unwrap();
        assert!(errors[0].contains("use larger pieces"), "{errors:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn hashdeep_manifest(lines: &[String]) -> Vec<u8> {
        let mut m =
            b"%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n## Invoked from: /x\n##\n".to_vec();
        for l in lines {
            m.extend_from_slice(l.as_bytes());
            m.push(b'\n');
        }
        m
    }

    fn read(bytes: &[u8]) -> Manifest {
        read_manifest(&Registry::default(), bytes, "m", &ReadOptions::default()).unwrap()
    }

    const D: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn hashdeep_pieces_are_gathered_into_their_files() {
        // hashdeep's own -p (pieces only, files interleaved), then ours (the whole line first).
        let m = read(&hashdeep_manifest(&[
            format!("1024,{D},/a offset 0-1023"),
            format!("5,{D},/b offset 0-4"),
            format!("952,{D},/a offset 1024-1975"),
            format!("0,{D},/e offset 0-0"),
            format!("6,{D},/c"),
            format!("4,{D},/c offset 0-3"),
            format!("2,{D},/c offset 4-5"),
        ]));
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        let names: Vec<&[u8]> = m.entries.iter().map(|e| e.name.as_slice()).collect();
        assert_eq!(names, [&b"/a"[..], b"/b", b"/e", b"/c"]);
        let a = &m.entries[0];
        assert!(a.digest.is_empty());
        assert_eq!(a.size, Some(1976));
        assert_eq!(a.pieces.as_ref().unwrap().size, 1024);
        assert_eq!(a.pieces.as_ref().unwrap().digests.len(), 2);
        assert_eq!(m.entries[2].size, Some(0));
        let c = &m.entries[3];
        assert_eq!((c.digest.len(), c.size), (16, Some(6)));
        assert_eq!(c.pieces.as_ref().unwrap().size, 4);
    }

    /// A file named as a piece line names a piece is written escaped, and
    /// an escaped line is never a piece: it reads back as the file it is.
    #[test]
    fn a_name_that_looks_like_a_piece_reads_back_as_itself() {
        let line = hashdeep_line(7, &[D], b"/x offset 0-6");
        assert_eq!(line, format!("\\7,{D},/x offset 0-6\n").into_bytes());
        let mut manifest = hashdeep_manifest(&[]);
        manifest.extend_from_slice(&line);
        let m = read(&manifest);
        assert_eq!(m.entries.len(), 1);
        assert_eq!(m.entries[0].name, b"/x offset 0-6");
        assert!(m.entries[0].pieces.is_none() && !m.entries[0].digest.is_empty());
        // Its own pieces name it whole.
        let digests = PieceDigests {
            file: FileDigests {
                digests: vec![Digest(vec![0; 16])],
                bytes: 7,
                modified: None,
                inode: None,
                ctime_ns: None,
            },
            size: 4,
            pieces: vec![vec![Digest(vec![1; 16])], vec![Digest(vec![2; 16])]],
        };
        let mut manifest = hashdeep_manifest(&[]);
        manifest.extend_from_slice(&hashdeep_piece_lines(b"/x offset 0-6", &digests).unwrap());
        let m = read(&manifest);
        assert!(m.problems.is_empty(), "{:?}", m.problems);
        assert_eq!(m.entries.len(), 1);
        assert_eq!(m.entries[0].name, b"/x offset 0-6");
        assert_eq!(m.entries[0].pieces.as_ref().unwrap().digests.len(), 2);
        assert_eq!(
            hashdeep_piece_lines(b"/new\nline", &digests),
            Err(UnwritablePieces)
        );
    }

    #[test]
    fn gaps_overlaps_and_disorder_are_one_problem_each() {
        let cases: [(&[String], &str); 7] = [
            (&[format!("10,{D},/f offset 0-9"), format!("10,{D},/f offset 15-24")], "line 6: /f: no piece holds bytes 10-14"),
            (&[format!("10,{D},/f offset 0-9"), format!("10,{D},/f offset 5-14")], "line 6: /f: overlapping pieces (offset 5 inside offset 0-9)"),
            (&[format!("10,{D},/f offset 10-19"), format!("10,{D},/f offset 0-9")], "line 5: /f: its first piece starts at byte 10, not 0"),
            (&[format!("10,{D},/f offset 0-9"), format!("10,{D},/f offset 10-19"), format!("10,{D},/f offset 0-9")], "line 7: /f: pieces listed out of order (offset 0 after offset 10-19)"),
            (&[format!("10,{D},/f offset 0-8")], "line 5: /f: the piece at offset 0-8 says it holds 10 bytes"),
            (&[format!("10,{D},/f offset 0-9"), format!("5,{D},/f offset 10-14"), format!("5,{D},/f offset 15-19")], "line 7: /f: the piece at offset 15-19 is not 10 bytes as the pieces before it, nor the last"),
            (&[format!("30,{D},/f"), format!("10,{D},/f offset 0-9")], "line 6: /f: its pieces hold 10 bytes, and its own line says 30"),
        ];
        for (lines, problem) in cases {
            let mut lines = lines.to_vec();
            lines.push(format!("3,{D},/g offset 0-2"));
            let m = read(&hashdeep_manifest(&lines));
            let problems: Vec<String> = m.problems.iter().map(|p| p.to_string()).collect();
            assert_eq!(problems, [problem], "{lines:?}");
            // The other file is read; /f keeps its whole line alone, if it has one.
            assert!(m
                .entries
                .iter()
                .any(|e| e.name == b"/g" && e.pieces.is_some()));
            let f = m.entries.iter().find(|e| e.name == b"/f");
            assert!(
                f.is_none_or(|f| f.pieces.is_none() && !f.digest.is_empty()),
                "{f:?}"
            );
        }
    }

    #[test]
    fn json_pieces_are_read_back_and_checked() {
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let row = |pieces: &str, bytes: &str| {
            format!(
                r#"[{{"file":"f","algorithm":"sha256","digest":"{sha}"{bytes},"pieces":{pieces}}}]"#
            )
        };
        let good = row(
            &format!(r#"{{"size":2,"digests":["{sha}","{sha}"]}}"#),
            r#","bytes":3"#,
        );
        let m = read(good.as_bytes());
        assert_eq!(m.entries[0].pieces.as_ref().unwrap().digests.len(), 2);
        for (json, why) in [
            (
                row(
                    &format!(r#"{{"size":2,"digests":["{sha}"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: 1 pieces, where its length and piece size make 2",
            ),
            (
                row(
                    &format!(r#"{{"size":0,"digests":["{sha}"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: pieces of 0 bytes",
            ),
            (
                row(
                    &format!(r#"{{"size":2,"digests":["{sha}","zz"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: the digest of piece 1 is not hex",
            ),
            (
                row(
                    &format!(r#"{{"size":2,"digests":["{sha}","00"]}}"#),
                    r#","bytes":3"#,
                ),
                "f: piece 1 has a 1-byte digest, the file a 32-byte one",
            ),
            (
                row(&format!(r#"{{"size":3,"digests":["{sha}"]}}"#), ""),
                "f: pieces without the file's length (`bytes`)",
            ),
        ] {
            let e = read_manifest(
                &Registry::default(),
                json.as_bytes(),
                "m",
                &ReadOptions::default(),
            )
            .unwrap_err();
            assert!(e.to_string().contains("no properly formatted"), "{e}");
            let crate::recorded::ManifestError::NoEntries { problems } = e else {
                unreachable!()
            };
            assert_eq!(problems[0].to_string(), format!("entry 1: {why}"));
        }
    }

    #[test]
    fn a_comparison_names_the_ranges_that_changed() {
        let dir = scratch("compare");
        let path = dir.join("f");
        let original = data(10_000, 7);
        std::fs::write(&path, &original).unwrap();
        let make = make(&["sha256"]);
        let job = HashJob::new(ReadStrategy::for_hash(hashlab::FileBound::Hash, false));
        let mut recorded = None;
        hash_inputs_in_pieces::<()>(
            &[Input::File(path.clone())],
            &make,
            1000,
            2,
            &job,
            &mut |_, r| {
                let r = r.unwrap();
                recorded = Some(Recorded {
                    name: path.as_os_str().as_encoded_bytes().to_vec(),
                    algorithm: "sha256".into(),
                    digest: r.file.digests[0].0.clone(),
                    size: Some(r.file.bytes),
                    mtime_ns: None,
                    inode: None,
                    ctime_ns: None,
                    pieces: Some(Pieces {
                        size: r.size,
                        digests: r.pieces.iter().map(|p| p[0].0.clone()).collect(),
                    }),
                });
                Ok(())
            },
        )
        .unwrap();
        let recorded = recorded.unwrap();
        let hasher = EntryHasher::new(
            &Registry::default(),
            &recorded,
            None,
            &HashParams::default(),
            true,
        )
        .unwrap();
        let piece_only = Recorded {
            digest: Vec::new(),
            ..recorded.clone()
        };
        let compare = |r: &Recorded| compare_file(&path, r, &hasher, &Cancel::new()).unwrap();
        assert!(compare(&recorded).intact() && compare(&piece_only).intact());

        let mut changed = original.clone();
        changed[1500] ^= 1;
        changed[2999] ^= 1;
        changed[3000] ^= 1;
        changed[9999] ^= 1;
        std::fs::write(&path, &changed).unwrap();
        for r in [&recorded, &piece_only] {
            let c = compare(r);
            assert!(!c.intact());
            assert_eq!(c.describe(), "bytes 1000-3999, 9000-9999 changed");
        }
        // Grown and shrunk.
        std::fs::write(&path, [&original[..], b"more"].concat()).unwrap();
        assert_eq!(
            compare(&recorded).describe(),
            "bytes 10000-10003 changed (10004 bytes now, 10000 recorded)"
        );
        std::fs::write(&path, &original[..8500]).unwrap();
        assert_eq!(
            compare(&piece_only).describe(),
            "bytes 8000-9999 changed (8500 bytes now, 10000 recorded)"
        );
        std::fs::write(&path, b"").unwrap();
        assert_eq!(
            compare(&recorded).describe(),
            "bytes 0-9999 changed (0 bytes now, 10000 recorded)"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
