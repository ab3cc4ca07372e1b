//! Manual pages from the clap definition: `hashlab.1` and one page per
//! command (`hashlab-sum.1`, ...). Also compiled by build.rs, which writes the
//! pages into the build's `man/` directory, so this file uses only clap and std.

use std::path::{Path, PathBuf};

/// Writes `hashlab.1` and a page per subcommand into `dir`; returns the paths.
pub fn write_pages(command: clap::Command, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let command = command.disable_help_subcommand(true);
    let mut written = Vec::new();
    let mut page = |cmd: clap::Command, name: &str| -> std::io::Result<()> {
        let mut roff = Vec::new();
        let invoked = name.replacen('-', " ", 1);
        clap_mangen::Man::new(cmd.display_name(name.to_string()).bin_name(invoked))
            .title(name.to_string())
            .render(&mut roff)?;
        let path = dir.join(format!("{name}.1"));
        // Written whole and renamed, so a reader never sees half a page.
        let partial = dir.join(format!(".{name}.1.partial"));
        std::fs::write(&partial, roff)?;
        std::fs::rename(&partial, &path)?;
        written.push(path);
        Ok(())
    };
    for sub in command.get_subcommands() {
        page(sub.clone(), &format!("hashlab-{}", sub.get_name()))?;
    }
    page(command, "hashlab")?;
    Ok(written)
}
