//! blake2b_simd / blake2s_simd: SSE4.1/AVX2 compression chosen at run time, and
//! the only implementation here of the BLAKE2bp/BLAKE2sp tree modes.

use super::Snapshot;
use crate::Backend;

const NAME: &str = "blake2-simd";

macro_rules! blake2_simd_entry {
    ($alg:expr, $what:expr, $params:path) => {
        Backend::new($alg, NAME, $what, |config| {
            let mut params = <$params>::new();
            params.hash_length(config.output_len);
            if let Some(key) = &config.key {
                params.key(key);
            }
            Ok(Box::new(Snapshot::new(
                params.to_state(),
                config.output_len,
                |s, data| {
                    s.update(data);
                },
                |s, out| out.copy_from_slice(s.finalize().as_bytes()),
            )))
        })
        .with_key()
        .with_length()
    };
}

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        blake2_simd_entry!(
            "blake2b",
            "blake2b_simd (AVX2/SSE4.1 at run time)",
            blake2b_simd::Params
        ),
        blake2_simd_entry!(
            "blake2s",
            "blake2s_simd (AVX2/SSE4.1 at run time)",
            blake2s_simd::Params
        ),
        blake2_simd_entry!(
            "blake2bp",
            "blake2b_simd::blake2bp (4 leaves, AVX2 at run time)",
            blake2b_simd::blake2bp::Params
        ),
        blake2_simd_entry!(
            "blake2sp",
            "blake2s_simd::blake2sp (8 leaves, AVX2 at run time)",
            blake2s_simd::blake2sp::Params
        ),
    ]
}
