//! The CRCs users' files and clouds name: CRC-32C (iSCSI, S3, GCS), CRC-32
//! (zlib, gzip, zip, S3), CRC-64/NVME (S3's default) and the POSIX `cksum` CRC.
//! Each is printed as its value in big-endian hex, as rhash and SFV print CRC-32.
//!
//! Every CRC has crc-fast (AWS's carry-less multiply folding, PCLMULQDQ or
//! VPCLMULQDQ chosen at run time) first and a second crate beside it, so the
//! conformance checks always compare two implementations. Measured here
//! (x86-64 with VPCLMULQDQ, one core, a hasher reused per message; 16 B / 1 KiB
//! / 1 MiB):
//!
//! | CRC          | crate              | 16 B    | 1 KiB      | 1 MiB      |
//! |--------------|--------------------|---------|------------|------------|
//! | CRC-32       | crc-fast           | 18 ns   | 19.0 GB/s  | 67.4 GB/s  |
//! | CRC-32       | crc32fast          | 20 ns   | 10.9 GB/s  | 68.0 GB/s  |
//! | CRC-64/NVME  | crc-fast           | 23 ns   | 18.1 GB/s  | 62.9 GB/s  |
//! | CRC-64/NVME  | crc64fast-nvme     | 15 ns   | 10.5 GB/s  | 23.6 GB/s  |
//! | POSIX cksum  | crc-fast           | 20 ns   | 17.0 GB/s  | 44.1 GB/s  |
//! | POSIX cksum  | crc (slice-by-16)  | -       | 0.3 GB/s (bytewise) / 2.4 GB/s (16 tables) | 3.3 GB/s |
//!
//! So crc-fast is preferred for all three; crc32fast (what flate2 and most of
//! the ecosystem use) ties on bulk data, crc64fast-nvme is the crate AWS's
//! SDK used before crc-fast, and the `crc` crate's table code is the
//! portable reference that needs no CPU feature.

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

// crc-fast for CRC-32/ISO-HDLC: x86's crc32 instruction computes only CRC-32C,
// so x86 folds alone; AArch64's CRC32 instructions compute this CRC and fuse.
const CRC_FAST_32: Dispatch = dispatch(
    &[
        x86(
            "VPCLMULQDQ (AVX-512VL) folding",
            &[F("sse4.1"), F("pclmulqdq"), F("avx512vl"), F("vpclmulqdq")],
        ),
        x86(
            "PCLMULQDQ (AVX-512VL) folding",
            &[F("sse4.1"), F("pclmulqdq"), F("avx512vl")],
        ),
        x86("PCLMULQDQ folding", &[F("sse4.1"), F("pclmulqdq")]),
        arm("PMULL + EOR3 + CRC32 fusion", &[F("aes"), F("sha3")]),
        arm("PMULL + CRC32 fusion", &[F("aes")]),
    ],
    "table-driven software",
);
// crc-fast for CRC-64/NVME and CRC-32/CKSUM: no CPU has an instruction for
// these polynomials, so every tier is carry-less multiply folding.
const CRC_FAST_FOLDING: Dispatch = dispatch(
    &[
        x86(
            "VPCLMULQDQ (AVX-512VL) folding",
            &[F("sse4.1"), F("pclmulqdq"), F("avx512vl"), F("vpclmulqdq")],
        ),
        x86(
            "PCLMULQDQ (AVX-512VL) folding",
            &[F("sse4.1"), F("pclmulqdq"), F("avx512vl")],
        ),
        x86("PCLMULQDQ folding", &[F("sse4.1"), F("pclmulqdq")]),
        arm("PMULL + EOR3 folding", &[F("aes"), F("sha3")]),
        arm("PMULL folding", &[F("aes")]),
    ],
    "table-driven software",
);
// crc32fast: specialized/pclmulqdq.rs `detect`, else slice-by-16.
const CRC32FAST: Dispatch = dispatch(
    &[
        x86(
            "VPCLMULQDQ (AVX-512) folding",
            &[
                F("pclmulqdq"),
                F("sse2"),
                F("sse4.1"),
                F("ssse3"),
                F("avx512f"),
                F("vpclmulqdq"),
            ],
        ),
        x86(
            "VPCLMULQDQ (AVX2) folding",
            &[
                F("pclmulqdq"),
                F("sse2"),
                F("sse4.1"),
                F("ssse3"),
                F("avx2"),
                F("vpclmulqdq"),
            ],
        ),
        x86(
            "PCLMULQDQ folding",
            &[F("pclmulqdq"), F("sse2"), F("sse4.1"), F("ssse3")],
        ),
        arm("CRC32 instructions", &[F("crc")]),
    ],
    "slice-by-16 tables",
);
// crc64fast-nvme with its default features: PCLMULQDQ folding on x86 (its
// VPCLMULQDQ and PMULL paths are opt-in cargo features, not enabled here).
const CRC64FAST: Dispatch = dispatch(
    &[x86(
        "PCLMULQDQ folding",
        &[F("pclmulqdq"), F("sse2"), F("sse4.1")],
    )],
    "table-driven software",
);
const TABLES: Dispatch = crate::dispatch::scalar("slice-by-16 tables, portable Rust");

/// crc-fast for any CRC whose value is the digest, big-endian.
fn crc_fast(algorithm: &str, which: crc_fast::CrcAlgorithm, bytes: usize) -> Backend {
    Backend::new(
        algorithm,
        "crc-fast",
        "crc-fast (PCLMULQDQ/VPCLMULQDQ at run time)",
        move |_| {
            Ok(Box::new(Native {
                state: crc_fast::Digest::new(which),
                out_len: bytes,
                update: |d, data| d.update(data),
                finish_reset: |d, out| {
                    let value = d.finalize_reset().to_be_bytes();
                    out.copy_from_slice(&value[8 - out.len()..]);
                },
                reset: crc_fast::Digest::reset,
            }))
        },
    )
}

/// The POSIX `cksum` CRC: CRC-32/CKSUM over the data followed by its length
/// in as few bytes as it takes, least significant first (POSIX cksum,
/// RATIONALE), then complemented. `crc_update` feeds bytes to any
/// implementation of CRC-32/CKSUM's register; `crc_value` finalizes a clone.
#[derive(Clone)]
struct PosixCksum<C> {
    crc: C,
    length: u64,
}

impl<C: Clone> PosixCksum<C> {
    fn finish(&mut self, update: fn(&mut C, &[u8]), value: fn(&mut C) -> u32, out: &mut [u8]) {
        let mut length = self.length;
        while length > 0 {
            update(&mut self.crc, &[length as u8]);
            length >>= 8;
        }
        out.copy_from_slice(&value(&mut self.crc).to_be_bytes());
        self.length = 0;
    }
}

static CKSUM_TABLES: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_CKSUM);

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        crc_fast("crc32", crc_fast::CrcAlgorithm::Crc32IsoHdlc, 4).with_dispatch(&CRC_FAST_32),
        Backend::new(
            "crc32",
            "crc32fast",
            "crc32fast crate (PCLMULQDQ at run time)",
            |_| {
                Ok(Box::new(Native {
                    state: crc32fast::Hasher::new(),
                    out_len: 4,
                    update: crc32fast::Hasher::update,
                    finish_reset: |h, out| {
                        out.copy_from_slice(&h.clone().finalize().to_be_bytes());
                        h.reset();
                    },
                    reset: crc32fast::Hasher::reset,
                }))
            },
        )
        .with_dispatch(&CRC32FAST),
        crc_fast("crc64nvme", crc_fast::CrcAlgorithm::Crc64Nvme, 8)
            .with_dispatch(&CRC_FAST_FOLDING),
        Backend::new(
            "crc64nvme",
            "crc64fast-nvme",
            "crc64fast-nvme crate (PCLMULQDQ/VPCLMULQDQ at run time)",
            |_| {
                Ok(Box::new(Native {
                    state: crc64fast_nvme::Digest::new(),
                    out_len: 8,
                    update: crc64fast_nvme::Digest::write,
                    finish_reset: |d, out| {
                        out.copy_from_slice(&d.sum64().to_be_bytes());
                        *d = crc64fast_nvme::Digest::new();
                    },
                    reset: |d| *d = crc64fast_nvme::Digest::new(),
                }))
            },
        )
        .with_dispatch(&CRC64FAST),
        Backend::new(
            "crc32-posix",
            "crc-fast",
            "crc-fast CRC-32/CKSUM (PCLMULQDQ/VPCLMULQDQ at run time) + length",
            |_| {
                Ok(Box::new(Native {
                    state: PosixCksum {
                        crc: crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Cksum),
                        length: 0,
                    },
                    out_len: 4,
                    update: |p, data| {
                        p.crc.update(data);
                        p.length += data.len() as u64;
                    },
                    finish_reset: |p, out| {
                        p.finish(|c, b| c.update(b), |c| c.finalize_reset() as u32, out)
                    },
                    reset: |p| {
                        p.crc.reset();
                        p.length = 0;
                    },
                }))
            },
        )
        .with_dispatch(&CRC_FAST_FOLDING),
        Backend::new(
            "crc32-posix",
            "crc",
            "crc crate CRC-32/CKSUM (slice-by-16 tables) + length",
            |_| {
                Ok(Box::new(Native {
                    state: PosixCksum {
                        crc: CKSUM_TABLES.digest(),
                        length: 0,
                    },
                    out_len: 4,
                    update: |p, data| {
                        p.crc.update(data);
                        p.length += data.len() as u64;
                    },
                    finish_reset: |p, out| {
                        p.finish(
                            |c, b| c.update(b),
                            |c| std::mem::replace(c, CKSUM_TABLES.digest()).finalize(),
                            out,
                        )
                    },
                    reset: |p| {
                        p.crc = CKSUM_TABLES.digest();
                        p.length = 0;
                    },
                }))
            },
        )
        .with_dispatch(&TABLES),
        Backend::new(
            "crc32c",
            "crc-fast",
            "crc-fast (PCLMULQDQ/VPCLMULQDQ at run time)",
            |config| {
                // A seed is the CRC value to continue from (SMHasher3's
                // seeding, hashes/crc.cpp): the register starts at its
                // complement, as the unseeded CRC's all-ones start is seed 0's.
                let seeded = |seed: u32| {
                    crc_fast::Digest::new_with_init_state(
                        crc_fast::CrcAlgorithm::Crc32Iscsi,
                        u64::from(!seed),
                    )
                };
                Ok(Box::new(Native {
                    state: (seeded(config.seed as u32), config.seed as u32),
                    out_len: 4,
                    update: |(d, _), data| d.update(data),
                    finish_reset: |(d, seed), out| {
                        out.copy_from_slice(&(d.finalize() as u32).to_be_bytes());
                        *d = crc_fast::Digest::new_with_init_state(
                            crc_fast::CrcAlgorithm::Crc32Iscsi,
                            u64::from(!*seed),
                        );
                    },
                    reset: |(d, seed)| {
                        *d = crc_fast::Digest::new_with_init_state(
                            crc_fast::CrcAlgorithm::Crc32Iscsi,
                            u64::from(!*seed),
                        )
                    },
                }))
            },
        )
        .with_parameters()
        .with_dispatch(&CRC_FAST_32C),
        Backend::new(
            "crc32c",
            "crc32c",
            "crc32c crate (SSE4.2 crc32 at run time)",
            |config| {
                // (running CRC, seed): a seed is the CRC value to continue from.
                let seed = config.seed as u32;
                Ok(Box::new(Native {
                    state: (seed, seed),
                    out_len: 4,
                    update: |(crc, _), data| *crc = crc32c::crc32c_append(*crc, data),
                    finish_reset: |(crc, seed), out| {
                        out.copy_from_slice(&crc.to_be_bytes());
                        *crc = *seed;
                    },
                    reset: |(crc, seed)| *crc = *seed,
                }))
            },
        )
        .with_parameters()
        .with_dispatch(&CRC32C_CRATE),
    ]
}
