//! The official blake3 crate: SSE2/SSE4.1/AVX2/AVX-512 chosen at run time, and
//! a rayon-parallel update for one large message when asked for.

use super::{Extendable, Native};
use crate::dispatch::{arm, dispatch, x86, Dispatch, Need::Feature as F};
use crate::Backend;

// platform.rs, Platform::detect; NEON is assumed on little-endian aarch64.
const BLAKE3: Dispatch = dispatch(
    &[
        x86("AVX-512", &[F("avx512f"), F("avx512vl")]),
        x86("AVX2", &[F("avx2")]),
        x86("SSE4.1", &[F("sse4.1")]),
        x86("SSE2", &[F("sse2")]),
        arm("NEON", &[F("neon")]),
    ],
    "portable Rust",
);

/// Below this, splitting the input across threads costs more than it saves.
const RAYON_MIN_INPUT: usize = 128 * 1024;

pub(crate) fn entries() -> Vec<Backend> {
    vec![Backend::new(
        "blake3",
        "blake3",
        "blake3 crate (SIMD at run time, rayon)",
        |config| {
            let state = match (&config.key, &config.context) {
                // The registry refuses a key with a context; the context is the mode.
                (_, Some(context)) => blake3::Hasher::new_derive_key(context),
                (Some(key), None) => {
                    let key: [u8; 32] =
                        key.as_slice()
                            .try_into()
                            .map_err(|_| crate::HashError::BadKeyLength {
                                algorithm: "blake3".into(),
                                got: key.len(),
                                expected: "exactly 32 bytes".into(),
                            })?;
                    blake3::Hasher::new_keyed(&key)
                }
                (None, None) => blake3::Hasher::new(),
            };
            // The hasher and where its output starts (`b3sum --seek`).
            type Seeking = (blake3::Hasher, u64);
            let update: fn(&mut Seeking, &[u8]) = if config.parallel {
                |(h, _), data| {
                    if data.len() >= RAYON_MIN_INPUT {
                        h.update_rayon(data);
                    } else {
                        h.update(data);
                    }
                }
            } else {
                |(h, _), data| {
                    h.update(data);
                }
            };
            Ok(Box::new(Extendable(Native {
                state: (state, config.seek),
                out_len: config.output_len,
                update,
                finish_reset: |(h, seek), out| {
                    let mut reader = h.finalize_xof();
                    reader.set_position(*seek);
                    reader.fill(out);
                    h.reset();
                },
                reset: |(h, _)| {
                    h.reset();
                },
            })))
        },
    )
    .with_key()
    .with_length()
    .with_parameters()
    .with_seek()
    .with_parallel()
    .with_dispatch(&BLAKE3)]
}
