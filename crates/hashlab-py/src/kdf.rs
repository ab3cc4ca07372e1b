//! `hashlab.scrypt`, hashlib's signature and checks. hashlib delegates to
//! OpenSSL's EVP_PBE_scrypt; this is RustCrypto's scrypt crate (RFC 7914),
//! the crate made for the job, since ROMix's Salsa20/8 core is no hash of
//! hashlab's registry. (`pbkdf2_hmac` is plain Python over hashlab's hashes.)

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffer::Borrowed;

/// OpenSSL's limit when `maxmem=0`, which hashlib passes on: 32 MiB.
const DEFAULT_MAXMEM: u64 = 32 * 1024 * 1024;

/// hashlib bounds dklen and maxmem by a C int.
const INT_MAX: i64 = i32::MAX as i64;

/// scrypt(password, *, salt, n, r, p, maxmem=0, dklen=64): the derived key.
#[pyfunction]
#[pyo3(signature = (password, *, salt, n, r, p, maxmem=0, dklen=64))]
#[allow(clippy::too_many_arguments)] // hashlib's signature
pub fn scrypt<'py>(
    py: Python<'py>,
    password: &Bound<'_, PyAny>,
    salt: &Bound<'_, PyAny>,
    n: u64,
    r: u32,
    p: u32,
    maxmem: i64,
    dklen: i64,
) -> PyResult<Bound<'py, PyBytes>> {
    let password = Borrowed::get(password, "password")?;
    let salt = Borrowed::get(salt, "salt")?;
    if n < 2 || !n.is_power_of_two() {
        return Err(PyValueError::new_err("n must be a power of 2."));
    }
    if !(0..=INT_MAX).contains(&maxmem) {
        return Err(PyValueError::new_err(format!(
            "maxmem must be positive and smaller than {INT_MAX}"
        )));
    }
    if !(1..=INT_MAX).contains(&dklen) {
        return Err(PyValueError::new_err(format!(
            "dklen must be greater than 0 and smaller than {INT_MAX}"
        )));
    }
    // OpenSSL's measure of the memory scrypt needs (B and V), against the same limit,
    // so a call fails here exactly where it fails with hashlib.
    let maxmem = if maxmem == 0 {
        DEFAULT_MAXMEM
    } else {
        maxmem as u64
    };
    let needed = (u64::from(p) * 128 * u64::from(r))
        .checked_add(
            128u64
                .saturating_mul(u64::from(r))
                .saturating_mul(n.saturating_add(2)),
        )
        .filter(|&bytes| bytes <= maxmem);
    let params = needed
        .and_then(|_| ::scrypt::Params::new(n.trailing_zeros() as u8, r, p).ok())
        .ok_or_else(|| {
            PyValueError::new_err("Invalid parameter combination for n, r, p, maxmem.")
        })?;
    let mut key = vec![0u8; dklen as usize];
    let (password, salt) = (password.as_bytes(), salt.as_bytes());
    py.detach(|| ::scrypt::scrypt(password, salt, &params, &mut key))
        .map_err(|e| PyValueError::new_err(format!("dklen: {e}")))?;
    Ok(PyBytes::new(py, &key))
}
