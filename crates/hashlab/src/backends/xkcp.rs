//! kangarootwelve_xkcp: XKCP's K12 with its assembly (AVX2/AVX-512 chosen at run
//! time) and an optional rayon thread pool. Its build runs bindgen, which needs
//! libclang; the `xkcp` cargo feature (on by default for the binary) turns it on.

use crate::dispatch::{arm, dispatch, x86, Dispatch, Need::Feature as F};
use crate::Backend;

// KeccakP-1600-runtimeDispatch.c (x86_64 and ARMv8A-SHA3 variants).
const XKCP: Dispatch = dispatch(
    &[
        x86("AVX-512", &[F("avx512f"), F("avx512vl")]),
        x86("AVX2", &[F("avx2")]),
        arm("SHA3 instructions", &[F("sha3")]),
    ],
    "generic 64-bit C",
);

const WHAT: &str = "kangarootwelve_xkcp (XKCP assembly, run-time dispatch, rayon)";

pub(crate) fn entries() -> Vec<Backend> {
    use super::{Extendable, Snapshot};

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
        Ok(Box::new(Extendable(Snapshot::new(
            K12 {
                hasher,
                customization: config.customization.clone(),
            },
            config.output_len,
            |k, data| k.hasher.update(data),
            |mut k, out| k.hasher.finalize_custom_xof(&k.customization).squeeze(out),
        ))))
    })
    .with_length()
    .with_customization()
    .with_parallel()
    .with_dispatch(&XKCP)]
}
