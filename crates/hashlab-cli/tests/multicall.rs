//! hashlab called as md5sum, sha1sum, sha224sum..sha512sum and b2sum (a
//! link named so) against the real coreutils programs: the same stdout,
//! the same stderr after the program's name, the same exit code, for the
//! common cases of each tool's own behaviour.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{peer, text, Scratch};

const TOOLS: &[&str] = &[
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
];

/// A directory of links named after the tools, to the binary under test.
fn links(s: &Scratch) -> PathBuf {
    common::tool_links(s, TOOLS)
}

fn run(program: &Path, dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    common::run_piped(program, dir, args, stdin)
}

#[test]
fn each_tool_as_coreutils_has_it() {
    let s = Scratch::with_files(
        "multicall",
        &[
            ("a", b"alpha\n"),
            ("sp ace", b"space"),
            ("back\\slash", b"odd"),
            ("new\nline", b"nl"),
            ("-dash", b"dash"),
        ],
    );
    std::fs::create_dir(s.path().join("dir")).unwrap();
    let bin = links(&s);
    let cases: &[&[&str]] = &[
        &["a", "sp ace"],
        &["--tag", "a", "back\\slash"],
        &["-b", "a", "new\nline"],
        &["-t", "a"],
        &["-bt", "a"],
        &["--text", "--tag", "a"],
        &["-z", "a", "new\nline"],
        &["-z", "-b", "a"],
        &["--", "-dash"],
        &["a", "missing", "dir"],
        &[],
        &["-"],
        // Usage errors: exit 1 and coreutils' words.
        &["-c", "--tag", "m"],
        &["-c", "-b", "m"],
        &["--tag", "-t", "a"],
        &["-z", "-c", "m"],
        &["--quiet", "a"],
        &["--status", "a"],
        &["--strict", "a"],
        &["-w", "a"],
        &["--ignore-missing", "a"],
        &["-x"],
        &["--foo"],
        &["--s"],
        &["--stat", "a"],
        // Checking.
        &["-c", "m"],
        &["-c", "--quiet", "m"],
        &["-c", "--status", "m"],
        &["-c", "--warn", "--strict", "m"],
        &["-c", "--ignore-missing", "m"],
        &["--check", "--war", "bad"],
        &["-cw", "bad", "m"],
        &["-c", "nosuch"],
    ];
    for tool in TOOLS {
        if peer(tool).is_none() {
            continue;
        }
        // A manifest the tool wrote, a file since changed, one gone, a bad line.
        let listed = run(
            Path::new(tool),
            s.path(),
            &["--", "a", "sp ace", "-dash"],
            b"",
        );
        let mut manifest = listed.stdout.clone();
        manifest.extend_from_slice(b"not a line\n");
        s.write("m", &manifest);
        let mut bad = listed.stdout;
        bad.splice(0..1, *b"0");
        bad.extend_from_slice(b"0000  gone\n");
        s.write("bad", &bad);
        let mut extra: Vec<Vec<&str>> = cases.iter().map(|c| c.to_vec()).collect();
        if *tool == "b2sum" {
            for length in [
                &["-l", "256", "a"][..],
                &["-l128", "--tag", "a"],
                &["-l", "7", "a"],
                &["-l", "520", "a"],
                &["-l", "x", "a"],
                &["-l", "0", "a"],
                &["-l"],
            ] {
                extra.push(length.to_vec());
            }
        }
        for args in &extra {
            let theirs = run(Path::new(tool), s.path(), args, b"stdin data");
            let ours = run(&bin.join(tool), s.path(), args, b"stdin data");
            let what = format!("{tool} {args:?}");
            assert_eq!(text(&ours.stdout), text(&theirs.stdout), "stdout: {what}");
            assert_eq!(text(&ours.stderr), text(&theirs.stderr), "stderr: {what}");
            assert_eq!(
                ours.status.code(),
                theirs.status.code(),
                "exit code: {what}"
            );
        }
    }
}

/// Every name `install-links` makes: the tools above, and the ones of
/// tests/multicall_tools.rs.
const ALL_TOOLS: usize = TOOLS.len() + 4;

#[test]
fn install_links_makes_them_and_leaves_anything_else() {
    let s = Scratch::with_files(
        "install-links",
        &[("bin/sha1sum", b"not ours"), ("f", b"abc")],
    );
    let dir = s.path().join("bin");
    let hashlab = Path::new(env!("CARGO_BIN_EXE_hashlab"));
    let o = run(hashlab, s.path(), &["install-links", "bin"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "hashlab: bin/sha1sum: exists and is not a link to hashlab: left as it is\n"
    );
    assert_eq!(std::fs::read(dir.join("sha1sum")).unwrap(), b"not ours");
    assert_eq!(text(&o.stdout).lines().count(), ALL_TOOLS - 1);
    // Made once; a second run finds them made.
    std::fs::remove_file(dir.join("sha1sum")).unwrap();
    let o = run(hashlab, s.path(), &["install-links", "bin"], b"");
    assert_eq!(
        (o.status.code(), text(&o.stdout).lines().count()),
        (Some(0), 1)
    );
    let o = run(hashlab, s.path(), &["install-links", "bin"], b"");
    assert_eq!((o.status.code(), text(&o.stdout)), (Some(0), String::new()));
    let o = run(&dir.join("sha256sum"), s.path(), &["f"], b"");
    assert_eq!(
        text(&o.stdout),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  f\n"
    );
    // A link to something else is left too.
    std::fs::remove_file(dir.join("md5sum")).unwrap();
    std::os::unix::fs::symlink("/bin/true", dir.join("md5sum")).unwrap();
    let o = run(hashlab, s.path(), &["install-links", "bin"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("bin/md5sum: a link to /bin/true, not to this hashlab"));
}
