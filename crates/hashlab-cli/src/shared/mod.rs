//! Helpers more than one command uses, so that no command file imports
//! another: quoting names as coreutils does, a path's bytes, the flag-naming
//! of library errors (`args`), and what a bench run shares with `report`
//! (`bench_run`) and the history (`history`), and what `sum --update`
//! and `audit --update` share (`update`).

pub mod args;
pub mod bench_run;
pub mod history;
pub mod update;

use std::path::Path;

/// A name as coreutils' `quotef` shows it in messages: bare when the shell
/// would read it as one word, quoted otherwise.
pub fn quote(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    let special = |c: char| c.is_control() || " !\"#$&'()*;<>?[\\]`{|}~".contains(c);
    if !text.is_empty() && !text.chars().any(special) {
        return text.into_owned();
    }
    if !text.chars().any(|c| c.is_control() || "\"$`\\".contains(c)) && text.contains('\'') {
        return format!("\"{text}\"");
    }
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => out.push_str("'\\''"),
            '\n' => out.push_str("'$'\\n''"),
            '\r' => out.push_str("'$'\\r''"),
            '\t' => out.push_str("'$'\\t''"),
            c if c.is_control() => out.push_str(&format!("'$'\\{:03o}''", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// A path's bytes as the OS holds them, for manifests and messages.
pub fn name_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

/// How reasons and titles name a results file: its file name.
pub fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn names_are_quoted_as_coreutils_quotes_them() {
        assert_eq!(quote(b"plain.sha256"), "plain.sha256");
        assert_eq!(quote(b"standard input"), "'standard input'");
        assert_eq!(quote(b"it's"), "\"it's\"");
        assert_eq!(quote(b"n\nl"), "'n'$'\\n''l'");
    }
}
