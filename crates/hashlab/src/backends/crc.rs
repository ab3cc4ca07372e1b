//! CRC-32C (Castagnoli) from two crates: crc-fast (carry-less multiply folding,
//! PCLMULQDQ/VPCLMULQDQ chosen at run time) and crc32c (the SSE4.2 `crc32`
//! instruction). Printed as the 32-bit value in big-endian hex.

use super::Native;
use crate::Backend;

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
        ),
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
        ),
    ]
}
