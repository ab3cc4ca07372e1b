//! hashlab called as `cksum`, `sum`, `b3sum` and `xxhsum` (links named so)
//! against the installed tools (coreutils 9.1, b3sum 1.2, xxhsum 0.8.1 on
//! Debian 12): the same stdout, stderr and exit code, and lines written by
//! each checked by the other.
//!
//! Covered, per tool name:
//! - `sum`: `-r` (the default) and `-s`/`--sysv`, the last of them deciding;
//!   names printed when operands are given (`-` too), none for standard
//!   input without operands; a missing file and a directory (coreutils'
//!   words, exit 1, the other files still summed); `-x`, an ambiguous or
//!   unknown long option (usage error, exit 1).
//! - `cksum`: the POSIX CRC by default (`CRC SIZE NAME`); `-a bsd`, `-a
//!   sysv` (their `sum` lines); `-a sha256` tagged by default, `--untagged`,
//!   the last of `--tag`/`--untagged` deciding; `-a blake2b -l`; `-l`
//!   without blake2b; an unknown or abbreviated `-a`; `-z`; `-b`; `--quiet`
//!   without `-c`; `-c` of tagged lines, `-a sha256 -c` of untagged ones,
//!   `-a bsd -c` refused; a missing file and a missing manifest.
//! - `b3sum`: lines, standard input, `--no-names`, `-l`/`--length`,
//!   `--raw`, `--derive-key`, `-c` and `-c --quiet` of a manifest with an
//!   intact file, a changed one and a missing one (`FAILED (... (os error
//!   2))`), a missing manifest (`Error: ...`), `--seek` (b3sum 1.5's,
//!   held to a longer output of b3sum 1.2), a missing file and a
//!   directory when hashing (Rust's words), an unknown option and `--quiet`
//!   without `--check` (clap's words).
//! - `xxhsum`: `-H0`..`-H2` and `-H32`/`-H64`/`-H128`, the default XXH64,
//!   `--tag`, `--little-endian` (with and without `--tag`, `-H3` included),
//!   standard input (named `stdin`), a missing file, a directory, `-c`
//!   with `--quiet`, `--status`, `--strict`, `--warn`, a missing manifest,
//!   a manifest of no checksum line, `-H4` (refused, exit 1).
//! - Lines written by hashlab under each name are checked OK by the real
//!   tool (`cksum -a sha256`, `b3sum -c`, `xxhsum -c`), and the real
//!   tool's by hashlab; `sum -r/-s` and `cksum -a bsd/sysv` lines, which
//!   coreutils 9.1 cannot check, are byte for byte the tool's and are read
//!   back by `hashlab check`, with a changed file FAILED.
//!
//! Deliberately different:
//! - `xxhsum -H3` writes `XXH3_<hex>  NAME`, as xxhsum 0.8.2 and later do
//!   (0.8.1 writes `XXH3 (NAME) = <hex>`, which `--tag` writes here, and
//!   cannot read the newer form); hashlab reads both.
//! - `cksum -c` without `-a` also reads untagged lines (cksum 9.1 finds
//!   "no properly formatted checksum lines"), and takes `-a crc32b`,
//!   `--base64` and `--raw` (coreutils 9.2 and 9.6); `--debug` says nothing.
//! - b3sum's words for a line it cannot read (`Short line`, `Invalid hex`...)
//!   are one message here, naming the manifest and line; `--seek` and
//!   `--tag` are b3sum 1.5's.
//! - `cksum` of a directory with the default CRC: cksum 9.1 prints the empty
//!   input's CRC and exits 0; here it is "Is a directory" and exit 1, as
//!   cksum 9.1 says for every other algorithm.
//! - xxhsum's progress line on standard error (a carriage return and
//!   spaces) is not written; its benchmark options are not taken.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{peer, text, Scratch};

const TOOLS: &[&str] = &["cksum", "sum", "b3sum", "xxhsum"];

/// A directory of links named after the tools, to the binary under test.
fn links(s: &Scratch) -> PathBuf {
    common::tool_links(s, TOOLS)
}

fn run(program: &Path, dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    common::run_piped(program, dir, args, stdin)
}

/// xxhsum's standard error without its progress line's erasure (a carriage
/// return, spaces, a carriage return).
fn without_progress(stderr: &[u8]) -> String {
    text(stderr)
        .split('\r')
        .filter(|piece| !piece.is_empty() && !piece.chars().all(|c| c == ' '))
        .collect()
}

fn files(s: &Scratch) {
    for (name, data) in [
        ("a", &b"alpha\n"[..]),
        ("sp ace", b"space"),
        ("empty", b""),
        ("k1", &[b'k'; 1024]),
        ("k1+", &[7u8; 1025]),
    ] {
        s.write(name, data);
    }
    let big: Vec<u8> = (0..3000u32).map(|i| (i * 31 % 251) as u8).collect();
    s.write("big", &big);
    std::fs::create_dir(s.path().join("dir")).unwrap();
}

/// Runs `args` under the real `tool` and under hashlab's link, and holds
/// hashlab's stdout, stderr and exit code to the tool's.
fn same(tool: &str, bin: &Path, dir: &Path, args: &[&str]) {
    let theirs = run(Path::new(tool), dir, args, b"stdin data");
    let ours = run(&bin.join(tool), dir, args, b"stdin data");
    let what = format!("{tool} {args:?}");
    assert_eq!(text(&ours.stdout), text(&theirs.stdout), "stdout: {what}");
    let stderr = |o: &Output| {
        if tool == "xxhsum" {
            without_progress(&o.stderr)
        } else {
            text(&o.stderr)
        }
    };
    assert_eq!(stderr(&ours), stderr(&theirs), "stderr: {what}");
    assert_eq!(
        ours.status.code(),
        theirs.status.code(),
        "exit code: {what}"
    );
}

#[test]
fn sum_and_cksum_as_coreutils_has_them() {
    if peer("sum").is_none() || peer("cksum").is_none() {
        return;
    }
    let s = Scratch::new("multicall-sums");
    files(&s);
    let bin = links(&s);
    let sha = run(
        Path::new("cksum"),
        s.path(),
        &["-a", "sha256", "a", "big"],
        b"",
    );
    s.write("tagged", &sha.stdout);
    let bare = run(
        Path::new("cksum"),
        s.path(),
        &["-a", "sha256", "--untagged", "a", "big"],
        b"",
    );
    s.write("untagged", &bare.stdout);
    let sum_cases: &[&[&str]] = &[
        &["a", "sp ace", "empty", "k1", "k1+", "big"],
        &["-s", "a", "empty", "k1", "k1+", "big"],
        &["-r", "-s", "big"],
        &["-s", "-r", "big"],
        &["-rs", "big"],
        &[],
        &["-"],
        &["-s", "-"],
        &["a", "missing", "dir", "big"],
        &["-x"],
        &["--sysv", "a"],
        &["--sy", "a"],
        &["--bsd", "a"],
        &["--foo"],
    ];
    for args in sum_cases {
        same("sum", &bin, s.path(), args);
    }
    let cksum_cases: &[&[&str]] = &[
        &["a", "sp ace", "empty", "big"],
        &[],
        &["-"],
        &["-a", "bsd", "a", "empty", "k1", "k1+", "big"],
        &["-a", "sysv", "a", "empty", "k1", "k1+", "big"],
        &["-a", "bsd"],
        &["-a", "sha256", "a"],
        &["-a", "sha256", "--untagged", "a"],
        &["-a", "md5", "--tag", "--untagged", "a"],
        &["-a", "md5", "--untagged", "--tag", "a"],
        &["-a", "blake2b", "-l", "128", "a"],
        &["-a", "blake2b", "-l", "7", "a"],
        &["-l", "128", "a"],
        &["-a", "bs", "a"],
        &["-a", "nosuch", "a"],
        &["-z", "a", "big"],
        &["-a", "sha1", "-z", "a"],
        &["-a", "sysv", "-z", "a"],
        &["-b", "a"],
        &["--quiet", "a"],
        &["a", "missing"],
        &["-a", "bsd", "a", "missing", "dir"],
        &["-a", "sha256", "dir", "a"],
        &["-a", "bsd", "-c", "tagged"],
        &["-c", "tagged"],
        &["-c", "--quiet", "tagged"],
        &["-a", "sha256", "-c", "untagged"],
        &["-c", "nosuch"],
        &["-z", "-a", "sha256", "-c", "untagged"],
    ];
    for args in cksum_cases {
        same("cksum", &bin, s.path(), args);
    }
    // coreutils 9.6's -a crc32b and 9.2's --base64 and --raw, which 9.1
    // lacks: the CRC-32 in cksum's line, a number whatever --base64 says,
    // its bytes big-endian with --raw (as zlib's CRC-32 of the file).
    let hashlab = Path::new(env!("CARGO_BIN_EXE_hashlab"));
    let hex = text(&run(hashlab, s.path(), &["sum", "-a", "crc32", "a"], b"").stdout);
    let value = u32::from_str_radix(&hex[..8], 16).unwrap();
    for args in [
        &["-a", "crc32b", "a"][..],
        &["-a", "crc32b", "--base64", "a"],
    ] {
        let o = run(&bin.join("cksum"), s.path(), args, b"");
        assert_eq!(text(&o.stdout), format!("{value} 6 a\n"), "{args:?}");
    }
    let o = run(
        &bin.join("cksum"),
        s.path(),
        &["-a", "crc32b", "--raw", "a"],
        b"",
    );
    assert_eq!(o.stdout, value.to_be_bytes());
    let o = run(
        &bin.join("cksum"),
        s.path(),
        &["--base64", "--raw", "a"],
        b"",
    );
    assert_eq!(
        (o.status.code(), text(&o.stderr)),
        (
            Some(1),
            "cksum: --base64 and --raw are mutually exclusive\n\
             Try 'cksum --help' for more information.\n"
                .to_string()
        )
    );
    // Lines hashlab writes as cksum, checked by cksum; a change fails both.
    let ours = run(
        &bin.join("cksum"),
        s.path(),
        &["-a", "sha512", "a", "sp ace", "big"],
        b"",
    );
    s.write("ours", &ours.stdout);
    let o = run(Path::new("cksum"), s.path(), &["-c", "ours"], b"");
    assert_eq!(
        (o.status.code(), text(&o.stdout)),
        (Some(0), "a: OK\nsp ace: OK\nbig: OK\n".to_string())
    );
    s.write("a", b"changed\n");
    same("cksum", &bin, s.path(), &["-c", "ours"]);
}

#[test]
fn bsd_and_sysv_lines_are_the_tools_and_read_back() {
    if peer("sum").is_none() || peer("cksum").is_none() {
        return;
    }
    let s = Scratch::new("multicall-sum-lines");
    files(&s);
    let hashlab = Path::new(env!("CARGO_BIN_EXE_hashlab"));
    let names = ["a", "sp ace", "empty", "k1", "k1+", "big"];
    for (algorithm, tools) in [
        ("bsd", [&["sum", "-r"][..], &["cksum", "-a", "bsd"]]),
        ("sysv", [&["sum", "-s"][..], &["cksum", "-a", "sysv"]]),
    ] {
        let mut args = vec!["sum", "-a", algorithm];
        args.extend(names);
        let ours = run(hashlab, s.path(), &args, b"");
        for tool in tools {
            let mut their_args = tool[1..].to_vec();
            their_args.extend(names);
            let theirs = run(Path::new(tool[0]), s.path(), &their_args, b"");
            assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{tool:?}");
            s.write("m", &theirs.stdout);
            // Read back by their shape and the first file, and with -a.
            for check in [&["check", "m"][..], &["check", "-a", algorithm, "m"]] {
                let o = run(hashlab, s.path(), check, b"");
                assert_eq!(o.status.code(), Some(0), "{tool:?} {check:?}");
                assert_eq!(text(&o.stdout).matches(": OK\n").count(), names.len());
            }
        }
        // One byte changed, or one byte more in another block: FAILED.
        let original = std::fs::read(s.path().join("big")).unwrap();
        let mut changed = original.clone();
        changed[1500] ^= 1;
        s.write("big", &changed);
        let o = run(hashlab, s.path(), &["check", "-a", algorithm, "m"], b"");
        assert_eq!(o.status.code(), Some(1));
        assert!(text(&o.stdout).contains("big: FAILED\n"));
        let mut longer = original.clone();
        longer.resize(3072 + 1, 0);
        s.write("big", &longer);
        let o = run(hashlab, s.path(), &["check", "-a", algorithm, "m"], b"");
        assert!(text(&o.stdout).contains("big: FAILED\n"), "{algorithm}");
        s.write("big", &original);
    }
}

#[test]
fn b3sum_as_b3sum_has_it() {
    if peer("b3sum").is_none() {
        return;
    }
    let s = Scratch::new("multicall-b3sum");
    files(&s);
    let bin = links(&s);
    let listed = run(Path::new("b3sum"), s.path(), &["a", "sp ace", "big"], b"");
    let mut manifest = listed.stdout.clone();
    manifest.extend_from_slice(format!("{}  missing\n", "ab".repeat(32)).as_bytes());
    s.write("m", &manifest);
    let cases: &[&[&str]] = &[
        &["a", "sp ace", "empty", "big"],
        &[],
        &["-"],
        &["--no-names", "a"],
        &["-l", "64", "a"],
        &["--length", "10", "a"],
        &["--raw", "a"],
        &["--raw", "a", "big"],
        &["--derive-key", "hashlab test context", "a"],
        &["a", "missing", "big"],
        &["dir"],
        &["--foo"],
        &["--quiet", "a"],
        &["-l", "x", "a", "big"],
        &["-l", "x"],
        &["--num-threads", "x", "a"],
        &["-c", "m"],
        &["-c", "--quiet", "m"],
        &["-c", "nosuch"],
    ];
    for args in cases {
        same("b3sum", &bin, s.path(), args);
    }
    // --seek (b3sum 1.5): the output from that offset on, a piece of what
    // b3sum writes for a longer output.
    let long = run(Path::new("b3sum"), s.path(), &["-l", "80", "a"], b"");
    let long = text(&long.stdout);
    let sought = run(
        &bin.join("b3sum"),
        s.path(),
        &["--seek", "70", "-l", "10", "a"],
        b"",
    );
    assert_eq!(text(&sought.stdout), format!("{}  a\n", &long[140..160]));
    // hashlab's lines checked by b3sum, after a change too.
    let ours = run(&bin.join("b3sum"), s.path(), &["a", "sp ace", "big"], b"");
    s.write("ours", &ours.stdout);
    let o = run(Path::new("b3sum"), s.path(), &["-c", "ours"], b"");
    assert_eq!(
        (o.status.code(), text(&o.stdout)),
        (Some(0), "a: OK\nsp ace: OK\nbig: OK\n".to_string())
    );
    s.write("big", b"changed");
    same("b3sum", &bin, s.path(), &["-c", "ours"]);
}

#[test]
fn xxhsum_as_xxhsum_has_it() {
    if peer("xxhsum").is_none() {
        return;
    }
    let s = Scratch::new("multicall-xxhsum");
    files(&s);
    let bin = links(&s);
    let mut manifest = Vec::new();
    for h in ["-H0", "-H1", "-H2"] {
        manifest.extend(run(Path::new("xxhsum"), s.path(), &[h, "a", "big"], b"").stdout);
    }
    let tagged = run(Path::new("xxhsum"), s.path(), &["-H3", "--tag", "a"], b"");
    manifest.extend(tagged.stdout);
    manifest.extend_from_slice(b"0000000000000000  sp ace\n0000000000000000  missing\n");
    s.write("m", &manifest);
    s.write("junk", b"not a checksum line\n");
    let cases: &[&[&str]] = &[
        &["a", "sp ace", "empty", "big"],
        &["-H0", "a"],
        &["-H1", "a"],
        &["-H2", "a", "big"],
        &["-H32", "a"],
        &["-H64", "a"],
        &["-H128", "a"],
        &["-H3", "--tag", "a"],
        &["--tag", "a"],
        &["--tag", "-H0", "a"],
        &["--little-endian", "a"],
        &["--little-endian", "-H0", "a"],
        &["--little-endian", "-H2", "a"],
        &["--little-endian", "--tag", "a"],
        &["--little-endian", "-H3", "a"],
        &[],
        &["-"],
        &["a", "missing", "big"],
        &["dir"],
        &["-c", "m"],
        &["-c", "--quiet", "m"],
        &["-c", "--status", "m"],
        &["-c", "--strict", "m"],
        &["-c", "nosuch"],
        &["-c", "junk"],
    ];
    for args in cases {
        same("xxhsum", &bin, s.path(), args);
    }
    // Refused arguments: xxhsum's words first, exit 1.
    for args in [&["-H4", "a"][..], &["--foo"], &["-x"]] {
        let theirs = run(Path::new("xxhsum"), s.path(), args, b"");
        let ours = run(&bin.join("xxhsum"), s.path(), args, b"");
        assert_eq!(ours.status.code(), theirs.status.code(), "{args:?}");
        let first = |o: &Output| without_progress(&o.stderr).lines().next().map(String::from);
        assert_eq!(first(&ours), first(&theirs), "{args:?}");
    }
    // -H3: XXH3_<hex>, the hex xxhsum's, read back by hashlab.
    let ours = run(&bin.join("xxhsum"), s.path(), &["-H3", "a"], b"");
    let theirs = text(&run(Path::new("xxhsum"), s.path(), &["-H3", "--tag", "a"], b"").stdout);
    let hex = theirs.trim_end().rsplit(' ').next().unwrap();
    assert_eq!(text(&ours.stdout), format!("XXH3_{hex}  a\n"));
    s.write("h3", &ours.stdout);
    let o = run(&bin.join("xxhsum"), s.path(), &["-c", "h3"], b"");
    assert_eq!(
        (o.status.code(), text(&o.stdout)),
        (Some(0), "a: OK\n".into())
    );
    // hashlab's lines of every variant, little-endian tags too, checked by xxhsum.
    let mut ours = Vec::new();
    for args in [
        &["-H0", "a", "big"][..],
        &["-H1", "a"],
        &["-H2", "big"],
        &["-H3", "--tag", "a"],
        &["--little-endian", "--tag", "-H1", "big"],
        &["--little-endian", "--tag", "-H2", "a"],
    ] {
        ours.extend(run(&bin.join("xxhsum"), s.path(), args, b"").stdout);
    }
    s.write("ours", &ours);
    let o = run(Path::new("xxhsum"), s.path(), &["-c", "ours"], b"");
    assert_eq!(
        (o.status.code(), text(&o.stdout).matches(": OK\n").count()),
        (Some(0), 7),
        "{}",
        text(&o.stdout)
    );
    let o = run(&bin.join("xxhsum"), s.path(), &["-c", "ours"], b"");
    assert_eq!(
        (o.status.code(), text(&o.stdout).matches(": OK\n").count()),
        (Some(0), 7)
    );
}
