//! Every public name of the crate has one path: a module is either public
//! (its items named through it, as `bounded::read_file`) or private with
//! the names callers need re-exported at the root, never both. Two paths to
//! one name let importers drift apart, and make the module's layout part of
//! the API without anyone choosing that.

use std::collections::BTreeSet;

/// The modules `lib` declares `pub mod` and also re-exports names of.
fn reachable_twice(lib: &str) -> BTreeSet<String> {
    let mut public = BTreeSet::new();
    let mut re_exported = BTreeSet::new();
    for line in lib.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("pub mod ") {
            public.insert(rest.trim_end_matches(';').trim().to_string());
        } else if let Some(rest) = line.strip_prefix("pub use ") {
            let module = rest.split("::").next().unwrap_or_default().trim();
            re_exported.insert(module.to_string());
        }
    }
    public.intersection(&re_exported).cloned().collect()
}

#[test]
fn no_public_module_has_its_names_re_exported() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs");
    let lib = std::fs::read_to_string(path).expect("the crate's lib.rs");
    let twice = reachable_twice(&lib);
    assert!(
        twice.is_empty(),
        "{path}: `pub mod` and `pub use` of the same modules, so their names have two paths \
         (make the module private, or drop the re-export): {twice:?}"
    );
}

#[test]
fn a_module_both_public_and_re_exported_is_found() {
    let lib = "pub mod bounded;\nmod plan;\npub mod walk;\n\
               pub use plan::SumPlan;\npub use walk::{expand, Input};\n";
    assert_eq!(reachable_twice(lib), BTreeSet::from(["walk".to_string()]));
}
