//! Manual pages from the clap definition: `hashlab.1` and one page per
//! command (`hashlab-sum.1`, ...). Also compiled by build.rs, which writes the
//! pages into the build's `man/` directory, so this file uses only clap and std.

/// `(file name, roff)` for `hashlab.1` and a page per subcommand.
pub fn pages(command: clap::Command) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let command = command.disable_help_subcommand(true);
    let mut pages = Vec::new();
    let mut page = |cmd: clap::Command, name: &str| -> std::io::Result<()> {
        let mut roff = Vec::new();
        let invoked = name.replacen('-', " ", 1);
        clap_mangen::Man::new(cmd.display_name(name.to_string()).bin_name(invoked))
            .title(name.to_string())
            .render(&mut roff)?;
        pages.push((format!("{name}.1"), roff));
        Ok(())
    };
    for sub in command.get_subcommands() {
        page(sub.clone(), &format!("hashlab-{}", sub.get_name()))?;
    }
    page(command, "hashlab")?;
    Ok(pages)
}
