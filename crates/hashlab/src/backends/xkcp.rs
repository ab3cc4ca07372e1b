//! kangarootwelve_xkcp: XKCP's K12 with its assembly (AVX2/AVX-512 chosen at run
//! time) and an optional rayon thread pool. Its build runs bindgen, which needs
//! libclang; the `xkcp` cargo feature (on by default) can turn it off, and then
//! this backend is listed as not compiled in.

use crate::Backend;

const WHAT: &str = "kangarootwelve_xkcp (XKCP assembly, run-time dispatch, rayon)";

#[cfg(feature = "xkcp")]
pub(crate) fn entries() -> Vec<Backend> {
    use super::Snapshot;

    /// XKCP takes the customization string at finalization, so the state carries it.
    #[derive(Clone)]
    struct K12 {
        hasher: kangarootwelve_xkcp::Hasher,
        customization: Vec<u8>,
    }

    vec![Backend::new("k12", "xkcp", WHAT, |config| {
        let hasher = if config.parallel {
            kangarootwelve_xkcp::Hasher::new_rayon()
        } else {
            kangarootwelve_xkcp::Hasher::new()
        };
        Ok(Box::new(Snapshot::new(
            K12 {
                hasher,
                customization: config.customization.clone(),
            },
            config.output_len,
            |k, data| k.hasher.update(data),
            |mut k, out| k.hasher.finalize_custom_xof(&k.customization).squeeze(out),
        )))
    })
    .with_length()
    .with_customization()
    .with_parallel()]
}

#[cfg(not(feature = "xkcp"))]
pub(crate) fn entries() -> Vec<Backend> {
    const WHY: &str = "not compiled in (build with the `xkcp` feature; needs libclang)";
    vec![Backend::new("k12", "xkcp", WHAT, |_| {
        Err(crate::HashError::BackendUnavailable {
            algorithm: "k12".into(),
            backend: "xkcp".into(),
            reason: WHY.into(),
        })
    })
    .with_probe(|| Err(WHY.into()))
    .with_length()
    .with_customization()
    .with_parallel()]
}
