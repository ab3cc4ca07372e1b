//! Any argument list: clap's parsing and each command's validation into its
//! library's request (`hashlab_cli::validate`) must never panic, whatever the
//! numbers, names and bytes (not UTF-8 included). The input is the argument
//! list, split at NUL bytes.
#![no_main]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::sync::Once;

use hashlab::Registry;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Names without a slash all lie in an empty working directory: a key file
    // such as /dev/stdin would stall the fuzzer without finding anything.
    if data.contains(&b'/') {
        return;
    }
    static EMPTY_DIRECTORY: Once = Once::new();
    EMPTY_DIRECTORY.call_once(|| {
        let dir = std::env::temp_dir().join(format!("hashlab-fuzz-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory in the temp dir");
        std::env::set_current_dir(&dir).expect("the new directory");
    });
    thread_local! {
        static REGISTRY: Registry = Registry::default();
    }
    let argv = std::iter::once(OsString::from("hashlab")).chain(
        data.split(|b| *b == 0)
            .map(|arg| OsString::from_vec(arg.to_vec())),
    );
    REGISTRY.with(|registry| {
        let _ = hashlab_cli::validate::validate(registry, argv);
    });
});
