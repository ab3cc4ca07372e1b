//! CRC-32C (Castagnoli) from two crates: crc-fast (carry-less multiply folding,
//! PCLMULQDQ/VPCLMULQDQ chosen at run time) and crc32c (the SSE4.2 `crc32`
//! instruction). Printed as the 32-bit value in big-endian hex.

use super::Native;
use crate::dispatch::{arm, dispatch, x86, Dispatch, Need::Feature as F};
use crate::Backend;

// crc-fast: feature_detection.rs tiers, then crc32/fusion for CRC-32/ISCSI;
// inputs up to 256 bytes (x86) or 127 bytes (aarch64) use the crc32 instruction alone.
const CRC_FAST_32C: Dispatch = dispatch(
    &[
        x86(
            "VPCLMULQDQ (AVX-512VL) + crc32 fusion",
            &[
                F("sse4.1"),
                F("pclmulqdq"),
                F("avx512vl"),
                F("vpclmulqdq"),
                F("sse4.2"),
            ],
        ),
        x86(
            "PCLMULQDQ (AVX-512VL) + crc32 fusion",
            &[F("sse4.1"), F("pclmulqdq"), F("avx512vl"), F("sse4.2")],
        ),
        x86(
            "PCLMULQDQ + crc32 fusion",
            &[F("sse4.1"), F("pclmulqdq"), F("sse4.2")],
        ),
        x86("PCLMULQDQ folding", &[F("sse4.1"), F("pclmulqdq")]),
        arm("PMULL + EOR3 + CRC32 fusion", &[F("aes"), F("sha3")]),
        arm("PMULL + CRC32 fusion", &[F("aes")]),
    ],
    "table-driven software",
);
const CRC32C_CRATE: Dispatch = dispatch(
    &[
        x86("SSE4.2 crc32", &[F("sse4.2")]),
        arm("CRC32C instructions", &[F("crc")]),
    ],
    "software tables",
);

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        Backend::new(
            "crc32c",
            "crc-fast",
            "crc-fast (PCLMULQDQ/VPCLMULQDQ at run time)",
            |_| {
                Ok(Box::new(Native {
                    state: crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Iscsi),
                    out_len: 4,
                    update: |d, data| d.update(data),
                    finish_reset: |d, out| {
                        out.copy_from_slice(&(d.finalize_reset() as u32).to_be_bytes())
                    },
                    reset: crc_fast::Digest::reset,
                }))
            },
        )
        .with_dispatch(&CRC_FAST_32C),
        Backend::new(
            "crc32c",
            "crc32c",
            "crc32c crate (SSE4.2 crc32 at run time)",
            |_| {
                Ok(Box::new(Native {
                    state: 0u32,
                    out_len: 4,
                    update: |crc, data| *crc = crc32c::crc32c_append(*crc, data),
                    finish_reset: |crc, out| {
                        out.copy_from_slice(&crc.to_be_bytes());
                        *crc = 0;
                    },
                    reset: |crc| *crc = 0,
                }))
            },
        )
        .with_dispatch(&CRC32C_CRATE),
    ]
}
