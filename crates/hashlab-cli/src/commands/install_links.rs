//! `hashlab install-links DIR`: the links that make hashlab answer as
//! md5sum, sha256sum, b2sum, cksum, sum, b3sum, xxhsum (see `multicall.rs`).

use std::io;
use std::path::Path;
use std::process::ExitCode;

use crate::cli::InstallLinksArgs;
use crate::failure::{io_message, Failure};
use crate::multicall::TOOLS;
use crate::shared::quote;

/// The links go into an existing directory.
fn request(args: &InstallLinksArgs) -> Result<(), Failure> {
    if args.dir.is_dir() {
        return Ok(());
    }
    Err(Failure::Usage(format!(
        "{}: not a directory",
        quote(args.dir.as_os_str().as_encoded_bytes())
    )))
}

pub fn run(args: &InstallLinksArgs) -> Result<ExitCode, Failure> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Failure::Runtime(format!("this program's path: {}", io_message(&e))))?;
    request(args)?;
    let mut ok = true;
    for tool in TOOLS {
        let link = args.dir.join(tool);
        let shown = quote(link.as_os_str().as_encoded_bytes());
        match install(&link, &exe) {
            Ok(true) => crate::stdio::write_out(
                format!("{} -> {}\n", link.display(), exe.display()).as_bytes(),
            )?,
            Ok(false) => {}
            Err(problem) => {
                errln!("hashlab: {shown}: {problem}");
                ok = false;
            }
        }
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Makes `link` a symbolic link to `exe`: `Ok(true)` when made, `Ok(false)`
/// when it already is one; anything else there is left alone.
fn install(link: &Path, exe: &Path) -> Result<bool, String> {
    match std::fs::symlink_metadata(link) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            symlink(exe, link).map_err(|e| io_message(&e))?;
            Ok(true)
        }
        Err(e) => Err(io_message(&e)),
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(link).map_err(|e| io_message(&e))?;
            let resolved = link
                .parent()
                .map(|dir| dir.join(&target))
                .and_then(|t| t.canonicalize().ok());
            if resolved.as_deref() == Some(exe) {
                Ok(false)
            } else {
                Err(format!(
                    "a link to {}, not to this hashlab: left as it is",
                    target.display()
                ))
            }
        }
        Ok(_) => Err("exists and is not a link to hashlab: left as it is".into()),
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _link: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "symbolic links are made on Unix only",
    ))
}
