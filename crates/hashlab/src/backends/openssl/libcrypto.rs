//! The system's OpenSSL 3 libcrypto, opened when an OpenSSL hasher is first
//! made rather than linked. Linked, it was loaded and relocated by every run:
//! 1.4 ms of a `hashlab sum -a blake3` that never calls it (an empty C
//! program takes 0.9 ms, 2.3 ms with libssl and libcrypto linked). Opened
//! here, it costs only the runs that use it. No crate offers OpenSSL's
//! EVP_MD/EVP_MAC through dlopen (openssl-sys links it), so the ~30
//! functions the backend calls are declared below and looked up once.
//!
//! The loaded library is process-wide by nature (dlopen shares one copy per
//! process, with whoever else loaded it, CPython's `_hashlib` included), so
//! its function table is kept in a `OnceLock`: the one piece of global state
//! this backend has. It is never unloaded.

// The C names, so a call is greppable against OpenSSL's manual.
#![allow(non_snake_case, non_camel_case_types, clippy::upper_case_acronyms)]

use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use std::sync::OnceLock;

use libloading::Library;

/// Opaque OpenSSL types, only ever behind pointers.
pub(super) enum EVP_MD {}
pub(super) enum EVP_MD_CTX {}
pub(super) enum EVP_MAC {}
pub(super) enum EVP_MAC_CTX {}
pub(super) enum OSSL_LIB_CTX {}
pub(super) enum OSSL_PROVIDER {}
pub(super) enum OPENSSL_INIT_SETTINGS {}
pub(super) enum ENGINE {}

/// `OSSL_PARAM` of `<openssl/core.h>`, stable across OpenSSL 3.
#[repr(C)]
pub(super) struct OSSL_PARAM {
    key: *const c_char,
    data_type: c_uint,
    data: *mut c_void,
    data_size: usize,
    return_size: usize,
}

// <openssl/crypto.h>
const OPENSSL_INIT_LOAD_CONFIG: u64 = 0x0000_0040;
/// Rust's runtime may still hash on another thread while `exit` runs; without
/// this, OpenSSL frees its state in an atexit handler under that thread.
const OPENSSL_INIT_NO_ATEXIT: u64 = 0x0008_0000;

/// The names libcrypto 3 goes by, per platform.
const NAMES: &[&str] = if cfg!(target_os = "macos") {
    &["libcrypto.3.dylib"]
} else if cfg!(windows) {
    &["libcrypto-3-x64.dll", "libcrypto-3.dll"]
} else if cfg!(target_os = "freebsd") {
    // FreeBSD's base system numbers its OpenSSL 3 as .30.
    &["libcrypto.so.30", "libcrypto.so.3"]
} else {
    &["libcrypto.so.3"]
};

/// Declares the function table: each field is named as the C function it
/// holds, so a call reads `(c.EVP_DigestUpdate)(...)`.
macro_rules! functions {
    ($($name:ident: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// libcrypto's functions that this backend calls, looked up once.
        pub(super) struct Crypto {
            $(pub(super) $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
            /// Kept open for the life of the process (the table lives in a static).
            _library: Library,
        }

        impl Crypto {
            fn resolve(library: Library, file: &str) -> Result<Crypto, String> {
                $(
                    // SAFETY: the type is the C prototype from OpenSSL 3's headers.
                    let $name = unsafe {
                        *library
                            .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(
                                concat!(stringify!($name), "\0").as_bytes(),
                            )
                            .map_err(|e| format!("{file} lacks {} ({e})", stringify!($name)))?
                    };
                )*
                Ok(Crypto { $($name,)* _library: library })
            }
        }
    };
}

functions! {
    OPENSSL_init_crypto: fn(u64, *const OPENSSL_INIT_SETTINGS) -> c_int;
    ERR_get_error: fn() -> c_ulong;
    ERR_error_string_n: fn(c_ulong, *mut c_char, usize);
    OSSL_LIB_CTX_new: fn() -> *mut OSSL_LIB_CTX;
    OSSL_LIB_CTX_free: fn(*mut OSSL_LIB_CTX);
    OSSL_PROVIDER_load: fn(*mut OSSL_LIB_CTX, *const c_char) -> *mut OSSL_PROVIDER;
    EVP_MD_fetch: fn(*mut OSSL_LIB_CTX, *const c_char, *const c_char) -> *mut EVP_MD;
    EVP_MD_up_ref: fn(*mut EVP_MD) -> c_int;
    EVP_MD_free: fn(*mut EVP_MD);
    EVP_MD_CTX_new: fn() -> *mut EVP_MD_CTX;
    EVP_MD_CTX_free: fn(*mut EVP_MD_CTX);
    EVP_MD_CTX_copy_ex: fn(*mut EVP_MD_CTX, *const EVP_MD_CTX) -> c_int;
    EVP_DigestInit_ex: fn(*mut EVP_MD_CTX, *const EVP_MD, *mut ENGINE) -> c_int;
    EVP_DigestUpdate: fn(*mut EVP_MD_CTX, *const c_void, usize) -> c_int;
    EVP_DigestFinal_ex: fn(*mut EVP_MD_CTX, *mut u8, *mut c_uint) -> c_int;
    EVP_DigestFinalXOF: fn(*mut EVP_MD_CTX, *mut u8, usize) -> c_int;
    EVP_MAC_fetch: fn(*mut OSSL_LIB_CTX, *const c_char, *const c_char) -> *mut EVP_MAC;
    EVP_MAC_up_ref: fn(*mut EVP_MAC) -> c_int;
    EVP_MAC_free: fn(*mut EVP_MAC);
    EVP_MAC_CTX_new: fn(*mut EVP_MAC) -> *mut EVP_MAC_CTX;
    EVP_MAC_CTX_free: fn(*mut EVP_MAC_CTX);
    EVP_MAC_CTX_dup: fn(*const EVP_MAC_CTX) -> *mut EVP_MAC_CTX;
    EVP_MAC_CTX_set_params: fn(*mut EVP_MAC_CTX, *const OSSL_PARAM) -> c_int;
    EVP_MAC_init: fn(*mut EVP_MAC_CTX, *const u8, usize, *const OSSL_PARAM) -> c_int;
    EVP_MAC_update: fn(*mut EVP_MAC_CTX, *const u8, usize) -> c_int;
    EVP_MAC_final: fn(*mut EVP_MAC_CTX, *mut u8, *mut usize, usize) -> c_int;
    OSSL_PARAM_construct_utf8_string: fn(*const c_char, *mut c_char, usize) -> OSSL_PARAM;
    OSSL_PARAM_construct_octet_string: fn(*const c_char, *mut c_void, usize) -> OSSL_PARAM;
    OSSL_PARAM_construct_size_t: fn(*const c_char, *mut usize) -> OSSL_PARAM;
    OSSL_PARAM_construct_int: fn(*const c_char, *mut c_int) -> OSSL_PARAM;
    OSSL_PARAM_construct_uint: fn(*const c_char, *mut c_uint) -> OSSL_PARAM;
    OSSL_PARAM_construct_end: fn() -> OSSL_PARAM;
}

/// libcrypto 3, opened and initialised on the first call; the reason it is
/// unavailable otherwise (every later call gives the same answer).
pub(super) fn crypto() -> Result<&'static Crypto, String> {
    static CRYPTO: OnceLock<Result<Crypto, String>> = OnceLock::new();
    CRYPTO
        .get_or_init(|| open_first(NAMES))
        .as_ref()
        .map_err(Clone::clone)
}

/// The first of `names` that loads, with every function resolved.
fn open_first(names: &[&str]) -> Result<Crypto, String> {
    let mut refusals = Vec::new();
    for name in names {
        // SAFETY: loading libcrypto runs its initialisers, which only set up
        // its own state (CPU capabilities, locks).
        match unsafe { Library::new(name) } {
            Ok(library) => {
                let crypto = Crypto::resolve(library, name)?;
                // SAFETY: plain initialisation with default settings (NULL).
                if unsafe {
                    (crypto.OPENSSL_init_crypto)(
                        OPENSSL_INIT_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT,
                        std::ptr::null(),
                    )
                } != 1
                {
                    return Err(format!("{name} failed to initialise"));
                }
                return Ok(crypto);
            }
            Err(e) => refusals.push(e.to_string()),
        }
    }
    Err(format!(
        "OpenSSL 3's libcrypto does not load: {}",
        refusals.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_once_and_gives_the_same_table() {
        let first = crypto().expect("libcrypto 3 is installed where the tests run");
        let again = crypto().unwrap();
        assert!(std::ptr::eq(first, again));
    }

    #[test]
    fn a_missing_library_is_named_in_the_refusal() {
        let Err(e) = open_first(&["libcrypto-that-does-not-exist.so.3"]) else {
            panic!("a library that does not exist loaded");
        };
        assert!(
            e.starts_with("OpenSSL 3's libcrypto does not load: "),
            "{e}"
        );
        assert!(e.contains("libcrypto-that-does-not-exist.so.3"), "{e}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_library_without_the_functions_is_refused_by_name() {
        let Err(e) = open_first(&["libm.so.6"]) else {
            panic!("libm passed for libcrypto");
        };
        assert!(e.starts_with("libm.so.6 lacks OPENSSL_init_crypto"), "{e}");
    }
}
