//! The system's OpenSSL 3 libcrypto through EVP: every algorithm here that it
//! offers, MACs included. libcrypto is opened at first use (`libcrypto`), so
//! a run that hashes with other backends never loads it. Each hasher fetches
//! its `EVP_MD`/`EVP_MAC` once and re-initialises the same context per
//! message, so a 16-byte message pays no name lookup.

mod libcrypto;

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::ptr;
use std::sync::Arc;

use libcrypto::{
    crypto, Crypto, EVP_MAC, EVP_MAC_CTX, EVP_MD, EVP_MD_CTX, OSSL_LIB_CTX, OSSL_PARAM,
};

use super::key_of;
use crate::dispatch::{
    arm, dispatch, scalar, x86, Dispatch, Need::Feature as F, Need::IntelCpu as Intel,
    AVX_INTEL_ONLY,
};
use crate::{Backend, Config, HashError, Hasher};

const NAME: &str = "openssl";

// OpenSSL 3.x: the perlasm entry points test OPENSSL_ia32cap_P / the ARMv8 caps.
const MD5: Dispatch = scalar("scalar (MD5 has no SIMD form)");
const SHA1: Dispatch = dispatch(
    &[
        x86("SHA-NI", &[F("ssse3"), F("sha")]),
        x86("AVX2+BMI2", &[F("ssse3"), F("avx2"), F("bmi2")]),
        x86(AVX_INTEL_ONLY, &[F("ssse3"), F("avx"), Intel]),
        x86("SSSE3", &[F("ssse3")]),
        arm("SHA1 instructions", &[F("sha2")]),
    ],
    "scalar assembly",
);
const SHA256: Dispatch = dispatch(
    &[
        x86("SHA-NI", &[F("sha")]),
        x86("AVX2+BMI2", &[F("avx2"), F("bmi2")]),
        x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
        x86("SSSE3", &[F("ssse3")]),
        arm("SHA2 instructions", &[F("sha2")]),
        arm("NEON", &[F("neon")]),
    ],
    "scalar assembly",
);
const SHA512: Dispatch = dispatch(
    &[
        x86("AVX2+BMI2", &[F("avx2"), F("bmi2")]),
        x86(AVX_INTEL_ONLY, &[F("avx"), F("ssse3"), Intel]),
        arm("SHA512 instructions", &[F("sha512")]),
    ],
    "scalar assembly",
);
const KECCAK: Dispatch = scalar("scalar Keccak assembly");
const PORTABLE_C: Dispatch = scalar("portable C");

/// The most recent OpenSSL error as text, and the error queue cleared.
fn last_error(c: &Crypto) -> String {
    let mut message = String::from("unknown OpenSSL error");
    loop {
        // SAFETY: ERR_get_error only reads this thread's error queue.
        let code = unsafe { (c.ERR_get_error)() };
        if code == 0 {
            break;
        }
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer is 256 bytes and OpenSSL NUL-terminates within `len`.
        unsafe { (c.ERR_error_string_n)(code, buf.as_mut_ptr(), buf.len()) };
        // SAFETY: NUL-terminated by ERR_error_string_n.
        message = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned();
    }
    message
}

fn backend_error(algorithm: &str, message: String) -> HashError {
    HashError::Backend {
        algorithm: algorithm.to_string(),
        backend: NAME.to_string(),
        message,
    }
}

/// `EVP_MD_fetch` from a library context (NULL: the process's default one).
fn fetch_md_in(c: &Crypto, lib: *mut OSSL_LIB_CTX, name: &str) -> Result<*mut EVP_MD, String> {
    let cname = CString::new(name).expect("digest names have no NUL");
    // SAFETY: `lib` is NULL or a live library context; a NULL property query means the defaults.
    let md = unsafe { (c.EVP_MD_fetch)(lib, cname.as_ptr(), ptr::null()) };
    if md.is_null() {
        Err(last_error(c))
    } else {
        Ok(md)
    }
}

/// A library context of our own with OpenSSL 3's legacy provider loaded, for
/// digests (MD4) that only it carries in most builds. Loading it into the
/// process's default context would change what every other user of libcrypto
/// in the process can fetch; this context is private to the hashers that hold it.
struct LegacyLib {
    c: &'static Crypto,
    ctx: *mut OSSL_LIB_CTX,
}

// SAFETY: an OSSL_LIB_CTX is thread-safe once its providers are loaded, which
// happens before it is shared; it is freed once, by the last owner.
unsafe impl Send for LegacyLib {}
unsafe impl Sync for LegacyLib {}

impl LegacyLib {
    fn load(c: &'static Crypto) -> Result<Arc<LegacyLib>, String> {
        // SAFETY: plain allocation, checked below.
        let lib = LegacyLib {
            c,
            ctx: unsafe { (c.OSSL_LIB_CTX_new)() },
        };
        if lib.ctx.is_null() {
            return Err(format!("OSSL_LIB_CTX_new failed ({})", last_error(c)));
        }
        // SAFETY: a live context and a NUL-terminated provider name. The
        // provider is freed with the context.
        if unsafe { (c.OSSL_PROVIDER_load)(lib.ctx, c"legacy".as_ptr()) }.is_null() {
            return Err(format!(
                "its legacy provider does not load ({})",
                last_error(c)
            ));
        }
        Ok(Arc::new(lib))
    }
}

impl Drop for LegacyLib {
    fn drop(&mut self) {
        // SAFETY: allocated by OSSL_LIB_CTX_new and freed once, after every
        // EVP_MD fetched from it (their owners hold this Arc).
        unsafe { (self.c.OSSL_LIB_CTX_free)(self.ctx) };
    }
}

/// Where a digest is fetched from.
#[derive(Clone, Copy)]
enum Provider {
    Default,
    /// The default context if it has the digest, else the legacy provider in a context of our own.
    DefaultOrLegacy,
}

/// Fetches `name` as `provider` says, with the library context it came from
/// (None: the process's default, which outlives everything).
fn fetch_md_from(
    c: &'static Crypto,
    name: &str,
    provider: Provider,
) -> Result<(*mut EVP_MD, Option<Arc<LegacyLib>>), String> {
    match (fetch_md_in(c, ptr::null_mut(), name), provider) {
        (Ok(md), _) => Ok((md, None)),
        (Err(e), Provider::Default) => Err(format!("this OpenSSL has no digest {name} ({e})")),
        (Err(default), Provider::DefaultOrLegacy) => {
            let no = |legacy: String| {
                format!("this OpenSSL has no digest {name}: not in its default provider ({default}), and {legacy}")
            };
            let lib = LegacyLib::load(c).map_err(no)?;
            let md = fetch_md_in(c, lib.ctx, name)
                .map_err(|e| no(format!("not in its legacy provider either ({e})")))?;
            Ok((md, Some(lib)))
        }
    }
}

fn fetch_mac(c: &Crypto, name: &str) -> Result<*mut EVP_MAC, String> {
    let cname = CString::new(name).expect("MAC names have no NUL");
    // SAFETY: as for EVP_MD_fetch.
    let mac = unsafe { (c.EVP_MAC_fetch)(ptr::null_mut(), cname.as_ptr(), ptr::null()) };
    if mac.is_null() {
        Err(format!(
            "this OpenSSL has no MAC {name} ({})",
            last_error(c)
        ))
    } else {
        Ok(mac)
    }
}

fn probe_md(
    name: &'static str,
    provider: Provider,
) -> impl Fn() -> Result<(), String> + Send + Sync {
    move || {
        let c = crypto()?;
        let (md, _lib) = fetch_md_from(c, name, provider)?;
        // SAFETY: md came from EVP_MD_fetch and is released once.
        unsafe { (c.EVP_MD_free)(md) };
        Ok(())
    }
}

fn probe_mac(name: &'static str) -> impl Fn() -> Result<(), String> + Send + Sync {
    move || {
        let c = crypto()?;
        let mac = fetch_mac(c, name)?;
        // SAFETY: mac came from EVP_MAC_fetch and is released once.
        unsafe { (c.EVP_MAC_free)(mac) };
        Ok(())
    }
}

/// A digest context bound to one fetched `EVP_MD`.
struct EvpDigest {
    c: &'static Crypto,
    md: *mut EVP_MD,
    ctx: *mut EVP_MD_CTX,
    out_len: usize,
    xof: bool,
    /// The private library context `md` came from, if not the default one:
    /// dropped after `md` and `ctx` are freed (fields drop after `Drop::drop`).
    _lib: Option<Arc<LegacyLib>>,
}

// SAFETY: the context is owned exclusively by this value; OpenSSL contexts may
// move between threads as long as they are not used concurrently.
unsafe impl Send for EvpDigest {}

impl EvpDigest {
    fn new(name: &str, out_len: usize, xof: bool) -> Result<Self, String> {
        Self::from(name, Provider::Default, out_len, xof)
    }

    fn from(name: &str, provider: Provider, out_len: usize, xof: bool) -> Result<Self, String> {
        let c = crypto()?;
        let (md, lib) = fetch_md_from(c, name, provider)?;
        // SAFETY: plain allocation; checked for NULL below.
        let ctx = unsafe { (c.EVP_MD_CTX_new)() };
        let digest = EvpDigest {
            c,
            md,
            ctx,
            out_len,
            xof,
            _lib: lib,
        };
        if ctx.is_null() {
            return Err("EVP_MD_CTX_new failed".into());
        }
        digest.init()?;
        Ok(digest)
    }

    fn init(&self) -> Result<(), String> {
        // SAFETY: ctx and md are live; passing the same md again skips any lookup.
        if unsafe { (self.c.EVP_DigestInit_ex)(self.ctx, self.md, ptr::null_mut()) } != 1 {
            return Err(last_error(self.c));
        }
        Ok(())
    }
}

impl Drop for EvpDigest {
    fn drop(&mut self) {
        // SAFETY: both were allocated by OpenSSL and are freed exactly once (NULL is allowed).
        unsafe {
            (self.c.EVP_MD_CTX_free)(self.ctx);
            (self.c.EVP_MD_free)(self.md);
        }
    }
}

impl Hasher for EvpDigest {
    fn update(&mut self, data: &[u8]) {
        // SAFETY: data is a valid slice; ctx was initialised.
        let rc = unsafe {
            (self.c.EVP_DigestUpdate)(self.ctx, data.as_ptr().cast::<c_void>(), data.len())
        };
        assert_eq!(rc, 1, "EVP_DigestUpdate: {}", last_error(self.c));
    }

    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.out_len, "output buffer length");
        // SAFETY: `out` has room for out_len bytes, which is the digest's size or the XOF length asked for.
        let rc = unsafe {
            if self.xof {
                (self.c.EVP_DigestFinalXOF)(self.ctx, out.as_mut_ptr(), out.len())
            } else {
                let mut written: c_uint = 0;
                (self.c.EVP_DigestFinal_ex)(self.ctx, out.as_mut_ptr(), &mut written)
            }
        };
        assert_eq!(rc, 1, "EVP_DigestFinal: {}", last_error(self.c));
        self.reset();
    }

    fn finalize_extendable_into_reset(&mut self, out: &mut [u8]) -> bool {
        if !self.xof {
            return false;
        }
        // SAFETY: `out` is a valid buffer of out.len() bytes; SHAKE squeezes any length.
        let rc = unsafe { (self.c.EVP_DigestFinalXOF)(self.ctx, out.as_mut_ptr(), out.len()) };
        assert_eq!(rc, 1, "EVP_DigestFinalXOF: {}", last_error(self.c));
        self.reset();
        true
    }

    fn reset(&mut self) {
        self.init()
            .expect("EVP_DigestInit_ex with an already working digest");
    }

    fn output_len(&self) -> usize {
        self.out_len
    }

    fn box_clone(&self) -> Box<dyn Hasher> {
        // SAFETY: up-ref keeps md alive for the copy; the new ctx is checked and copied from a live one.
        unsafe {
            let c = self.c;
            (c.EVP_MD_up_ref)(self.md);
            let ctx = (c.EVP_MD_CTX_new)();
            assert!(!ctx.is_null(), "EVP_MD_CTX_new failed");
            assert_eq!(
                (c.EVP_MD_CTX_copy_ex)(ctx, self.ctx),
                1,
                "EVP_MD_CTX_copy_ex"
            );
            Box::new(EvpDigest {
                c,
                md: self.md,
                ctx,
                out_len: self.out_len,
                xof: self.xof,
                _lib: self._lib.clone(),
            })
        }
    }
}

/// Parameters of one EVP_MAC, kept so the context can be re-initialised.
#[derive(Clone)]
struct MacParams {
    digest: Option<CString>,
    size: Option<usize>,
    custom: Vec<u8>,
    c_rounds: Option<c_uint>,
    d_rounds: Option<c_uint>,
    /// KMAC's XOF mode (KMACXOF).
    xof: Option<c_int>,
}

impl MacParams {
    /// Calls `f` with an OSSL_PARAM array pointing into copies owned by this call.
    fn with_params<R>(&self, c: &Crypto, f: impl FnOnce(*const OSSL_PARAM) -> R) -> R {
        let mut digest = self.digest.clone();
        let mut size = self.size;
        let mut custom = self.custom.clone();
        let mut c_rounds = self.c_rounds;
        let mut d_rounds = self.d_rounds;
        let mut xof = self.xof;
        let mut params = Vec::new();
        // SAFETY: each constructor stores a pointer to a local that outlives `f`.
        unsafe {
            if let Some(d) = digest.as_mut() {
                params.push((c.OSSL_PARAM_construct_utf8_string)(
                    c"digest".as_ptr(),
                    d.as_ptr().cast_mut(),
                    0,
                ));
            }
            if let Some(s) = size.as_mut() {
                params.push((c.OSSL_PARAM_construct_size_t)(c"size".as_ptr(), s));
            }
            if !custom.is_empty() {
                params.push((c.OSSL_PARAM_construct_octet_string)(
                    c"custom".as_ptr(),
                    custom.as_mut_ptr().cast::<c_void>(),
                    custom.len(),
                ));
            }
            if let Some(rounds) = c_rounds.as_mut() {
                params.push((c.OSSL_PARAM_construct_uint)(c"c-rounds".as_ptr(), rounds));
            }
            if let Some(d) = d_rounds.as_mut() {
                params.push((c.OSSL_PARAM_construct_uint)(c"d-rounds".as_ptr(), d));
            }
            if let Some(x) = xof.as_mut() {
                params.push((c.OSSL_PARAM_construct_int)(c"xof".as_ptr(), x));
            }
            params.push((c.OSSL_PARAM_construct_end)());
        }
        f(params.as_ptr())
    }
}

struct EvpMac {
    c: &'static Crypto,
    mac: *mut EVP_MAC,
    ctx: *mut EVP_MAC_CTX,
    out_len: usize,
    key: Vec<u8>,
    params: MacParams,
    /// Re-initialise with the key itself rather than NULL: OpenSSL 3.0's SipHash
    /// does not restart its state on a NULL-key init.
    rekey_on_reset: bool,
}

// SAFETY: as for EvpDigest: exclusive ownership, no concurrent use.
unsafe impl Send for EvpMac {}

impl EvpMac {
    fn new(
        name: &str,
        key: &[u8],
        out_len: usize,
        params: MacParams,
        rekey_on_reset: bool,
    ) -> Result<Self, String> {
        let c = crypto()?;
        let mac = fetch_mac(c, name)?;
        // SAFETY: plain allocation from a live EVP_MAC.
        let ctx = unsafe { (c.EVP_MAC_CTX_new)(mac) };
        let this = EvpMac {
            c,
            mac,
            ctx,
            out_len,
            key: key.to_vec(),
            params,
            rekey_on_reset,
        };
        if ctx.is_null() {
            return Err(format!("EVP_MAC_CTX_new failed ({})", last_error(c)));
        }
        this.init(true)?;
        Ok(this)
    }

    fn init(&self, with_key: bool) -> Result<(), String> {
        let (key, len) = if with_key {
            // A non-NULL pointer even for an empty key: NULL means "reuse the old key".
            (self.key.as_ptr(), self.key.len())
        } else {
            (ptr::null(), 0)
        };
        // SAFETY: ctx is live; key points to `len` readable bytes; params outlive the call.
        let c = self.c;
        let rc = self.params.with_params(c, |params| unsafe {
            (c.EVP_MAC_init)(self.ctx, key, len, params)
        });
        if rc != 1 {
            return Err(last_error(c));
        }
        Ok(())
    }
}

impl Drop for EvpMac {
    fn drop(&mut self) {
        // SAFETY: allocated by OpenSSL, freed exactly once.
        unsafe {
            (self.c.EVP_MAC_CTX_free)(self.ctx);
            (self.c.EVP_MAC_free)(self.mac);
        }
    }
}

impl Hasher for EvpMac {
    fn update(&mut self, data: &[u8]) {
        // SAFETY: valid slice, initialised context.
        let rc = unsafe { (self.c.EVP_MAC_update)(self.ctx, data.as_ptr(), data.len()) };
        assert_eq!(rc, 1, "EVP_MAC_update: {}", last_error(self.c));
    }

    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.out_len, "output buffer length");
        let mut written = 0usize;
        // SAFETY: out has out.len() writable bytes and OpenSSL is told so.
        let rc =
            unsafe { (self.c.EVP_MAC_final)(self.ctx, out.as_mut_ptr(), &mut written, out.len()) };
        assert!(
            rc == 1 && written == out.len(),
            "EVP_MAC_final: {}",
            last_error(self.c)
        );
        self.reset();
    }

    fn finalize_extendable_into_reset(&mut self, out: &mut [u8]) -> bool {
        // KMACXOF encodes no length, so any length is a prefix of any longer
        // one; plain KMAC (no xof) encodes it and cannot.
        if self.params.xof != Some(1) {
            return false;
        }
        let asked = MacParams {
            size: Some(out.len()),
            ..self.params.clone()
        };
        // SAFETY: ctx is live; the params outlive the call.
        let c = self.c;
        let rc = asked.with_params(c, |params| unsafe {
            (c.EVP_MAC_CTX_set_params)(self.ctx, params)
        });
        assert_eq!(rc, 1, "EVP_MAC_CTX_set_params: {}", last_error(c));
        let mut written = 0usize;
        // SAFETY: out has out.len() writable bytes and OpenSSL is told so.
        let rc =
            unsafe { (self.c.EVP_MAC_final)(self.ctx, out.as_mut_ptr(), &mut written, out.len()) };
        assert!(
            rc == 1 && written == out.len(),
            "EVP_MAC_final: {}",
            last_error(self.c)
        );
        // init restores the size this hasher was made with.
        self.reset();
        true
    }

    fn reset(&mut self) {
        self.init(self.rekey_on_reset)
            .expect("EVP_MAC_init with an already working key");
    }

    fn output_len(&self) -> usize {
        self.out_len
    }

    fn box_clone(&self) -> Box<dyn Hasher> {
        // SAFETY: dup of a live context; the EVP_MAC is up-referenced for the copy's Drop.
        unsafe {
            let c = self.c;
            let ctx = (c.EVP_MAC_CTX_dup)(self.ctx);
            assert!(!ctx.is_null(), "EVP_MAC_CTX_dup failed");
            (c.EVP_MAC_up_ref)(self.mac);
            Box::new(EvpMac {
                c,
                mac: self.mac,
                ctx,
                out_len: self.out_len,
                key: self.key.clone(),
                params: self.params.clone(),
                rekey_on_reset: self.rekey_on_reset,
            })
        }
    }
}

fn no_params() -> MacParams {
    MacParams {
        digest: None,
        size: None,
        custom: Vec::new(),
        c_rounds: None,
        d_rounds: None,
        xof: None,
    }
}

fn digest_entry(algorithm: &'static str, md: &'static str, xof: bool) -> Backend {
    digest_entry_from(algorithm, md, xof, Provider::Default)
}

fn digest_entry_from(
    algorithm: &'static str,
    md: &'static str,
    xof: bool,
    provider: Provider,
) -> Backend {
    let backend = Backend::new(
        algorithm,
        NAME,
        match provider {
            Provider::Default => "OpenSSL 3 libcrypto (EVP_MD)",
            Provider::DefaultOrLegacy => "OpenSSL 3 libcrypto (EVP_MD; legacy provider if needed)",
        },
        move |config| {
            let h = EvpDigest::from(md, provider, config.output_len, xof)
                .map_err(|e| backend_error(algorithm, e))?;
            Ok(Box::new(h) as Box<dyn Hasher>)
        },
    )
    .with_probe(probe_md(md, provider));
    if xof {
        backend.with_length()
    } else {
        backend
    }
}

/// HMAC over the digest `md`, fetched from the default library context as
/// EVP_MAC fetches it: available when both the MAC and that digest are.
fn hmac_entry(algorithm: &str, md: &'static str) -> Backend {
    let name = algorithm.to_string();
    let has_mac = probe_mac("HMAC");
    let has_md = probe_md(md, Provider::Default);
    Backend::new(
        algorithm,
        NAME,
        "OpenSSL 3 libcrypto (EVP_MAC HMAC)",
        move |config| {
            let params = MacParams {
                digest: Some(CString::new(md).expect("no NUL")),
                ..no_params()
            };
            let h = EvpMac::new("HMAC", key_of(config), config.output_len, params, false)
                .map_err(|e| backend_error(&name, e))?;
            Ok(Box::new(h) as Box<dyn Hasher>)
        },
    )
    .with_key()
    .with_probe(move || has_mac().and_then(|()| has_md()))
}

/// A fixed-output digest, and HMAC over it when the catalog has that HMAC,
/// so an HMAC over an OpenSSL digest is added in the catalog alone.
fn digest_and_hmac(
    algorithm: &'static str,
    md: &'static str,
    provider: Provider,
    dispatch: &'static Dispatch,
) -> Vec<Backend> {
    let mut entries =
        vec![digest_entry_from(algorithm, md, false, provider).with_dispatch(dispatch)];
    if crate::catalog::has_hmac(algorithm) {
        entries.push(hmac_entry(&format!("hmac-{algorithm}"), md).with_dispatch(dispatch));
    }
    entries
}

/// OpenSSL's KMAC accepts keys of 4..=512 bytes and customization strings up to 512 bytes.
const KMAC_KEY_RANGE: std::ops::RangeInclusive<usize> = 4..=512;
const KMAC_MAX_CUSTOM: usize = 512;

/// KMAC128/256 (`mac`), or KMACXOF with `xof`.
fn kmac_entry(algorithm: &'static str, mac: &'static str, xof: bool) -> Backend {
    Backend::new(
        algorithm,
        NAME,
        "OpenSSL 3 libcrypto (EVP_MAC KMAC)",
        move |config: &Config| {
            let unsupported = |what: String| HashError::NotSupportedByBackend {
                algorithm: algorithm.into(),
                backend: NAME.into(),
                what,
            };
            let key = key_of(config);
            if !KMAC_KEY_RANGE.contains(&key.len()) {
                return Err(unsupported(format!(
                    "a {}-byte key (OpenSSL takes 4..=512)",
                    key.len()
                )));
            }
            if config.customization.len() > KMAC_MAX_CUSTOM {
                return Err(unsupported("customization strings over 512 bytes".into()));
            }
            let params = MacParams {
                size: Some(config.output_len),
                custom: config.customization.clone(),
                xof: xof.then_some(1),
                ..no_params()
            };
            let h = EvpMac::new(mac, key, config.output_len, params, false)
                .map_err(|e| backend_error(algorithm, e))?;
            Ok(Box::new(h) as Box<dyn Hasher>)
        },
    )
    .with_key()
    .with_length()
    .with_customization()
    .with_probe(probe_mac(mac))
}

fn siphash_entry(
    algorithm: &'static str,
    c_rounds: c_uint,
    d_rounds: c_uint,
    out_len: usize,
) -> Backend {
    Backend::new(
        algorithm,
        NAME,
        "OpenSSL 3 libcrypto (EVP_MAC SIPHASH)",
        move |config| {
            let params = MacParams {
                size: Some(out_len),
                c_rounds: Some(c_rounds),
                d_rounds: Some(d_rounds),
                ..no_params()
            };
            let h = EvpMac::new("SIPHASH", key_of(config), out_len, params, true)
                .map_err(|e| backend_error(algorithm, e))?;
            Ok(Box::new(h) as Box<dyn Hasher>)
        },
    )
    .with_key()
    .with_probe(probe_mac("SIPHASH"))
}

/// BLAKE2: the EVP_MD for the unkeyed default length, the keyed EVP_MAC otherwise.
/// OpenSSL before 3.2 cannot hash unkeyed at other lengths; that case says so.
fn blake2_entry(
    algorithm: &'static str,
    md: &'static str,
    mac: &'static str,
    default_len: usize,
) -> Backend {
    Backend::new(
        algorithm,
        NAME,
        "OpenSSL 3 libcrypto (EVP_MD, keyed: EVP_MAC)",
        move |config: &Config| {
            let h: Box<dyn Hasher> = match &config.key {
                None if config.output_len == default_len => Box::new(
                    EvpDigest::new(md, default_len, false)
                        .map_err(|e| backend_error(algorithm, e))?,
                ),
                None => {
                    return Err(HashError::NotSupportedByBackend {
                        algorithm: algorithm.into(),
                        backend: NAME.into(),
                        what: format!("unkeyed output lengths other than {default_len} bytes"),
                    })
                }
                Some(key) => {
                    let params = MacParams {
                        size: Some(config.output_len),
                        ..no_params()
                    };
                    Box::new(
                        EvpMac::new(mac, key, config.output_len, params, false)
                            .map_err(|e| backend_error(algorithm, e))?,
                    )
                }
            };
            Ok(h)
        },
    )
    .with_key()
    .with_length()
    .with_probe(probe_md(md, Provider::Default))
}

pub(crate) fn entries() -> Vec<Backend> {
    use Provider::{Default, DefaultOrLegacy};
    let digests = [
        ("md5", "MD5", Default, &MD5),
        // OpenSSL 3 moved MD4 to the legacy provider (3.0 man7/OSSL_PROVIDER-legacy);
        // some distributions still build it into the default one.
        ("md4", "MD4", DefaultOrLegacy, &PORTABLE_C),
        // RIPEMD-160 was legacy-only before OpenSSL 3.0.7.
        ("ripemd160", "RIPEMD160", DefaultOrLegacy, &PORTABLE_C),
        ("sm3", "SM3", Default, &PORTABLE_C),
        ("sha1", "SHA1", Default, &SHA1),
        ("sha224", "SHA224", Default, &SHA256),
        ("sha256", "SHA256", Default, &SHA256),
        ("sha384", "SHA384", Default, &SHA512),
        ("sha512", "SHA512", Default, &SHA512),
        ("sha512-224", "SHA512-224", Default, &SHA512),
        ("sha512-256", "SHA512-256", Default, &SHA512),
        ("sha3-224", "SHA3-224", Default, &KECCAK),
        ("sha3-256", "SHA3-256", Default, &KECCAK),
        ("sha3-384", "SHA3-384", Default, &KECCAK),
        ("sha3-512", "SHA3-512", Default, &KECCAK),
    ];
    let others = [
        digest_entry("shake128", "SHAKE128", true).with_dispatch(&KECCAK),
        digest_entry("shake256", "SHAKE256", true).with_dispatch(&KECCAK),
        blake2_entry("blake2b", "BLAKE2B-512", "BLAKE2BMAC", 64).with_dispatch(&PORTABLE_C),
        blake2_entry("blake2s", "BLAKE2S-256", "BLAKE2SMAC", 32).with_dispatch(&PORTABLE_C),
        kmac_entry("kmac128", "KMAC-128", false).with_dispatch(&KECCAK),
        kmac_entry("kmac256", "KMAC-256", false).with_dispatch(&KECCAK),
        kmac_entry("kmacxof128", "KMAC-128", true).with_dispatch(&KECCAK),
        kmac_entry("kmacxof256", "KMAC-256", true).with_dispatch(&KECCAK),
        siphash_entry("siphash-2-4", 2, 4, 8).with_dispatch(&PORTABLE_C),
        siphash_entry("siphash-1-3", 1, 3, 8).with_dispatch(&PORTABLE_C),
        siphash_entry("siphash-2-4-128", 2, 4, 16).with_dispatch(&PORTABLE_C),
        siphash_entry("siphash-1-3-128", 1, 3, 16).with_dispatch(&PORTABLE_C),
    ];
    digests
        .into_iter()
        .flat_map(|(algorithm, md, provider, dispatch)| {
            digest_and_hmac(algorithm, md, provider, dispatch)
        })
        .chain(others)
        .collect()
}
