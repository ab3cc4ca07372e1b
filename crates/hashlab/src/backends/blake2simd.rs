//! blake2b_simd / blake2s_simd: SSE4.1/AVX2 compression chosen at run time, and
//! the only implementation here of the BLAKE2bp/BLAKE2sp tree modes.

use super::Snapshot;
use crate::dispatch::{dispatch, x86, Dispatch, Need::Feature as F};
use crate::Backend;

const NAME: &str = "blake2-simd";

// guts.rs, Implementation::detect.
const BLAKE2B: Dispatch = dispatch(
    &[x86("AVX2", &[F("avx2")]), x86("SSE4.1", &[F("sse4.1")])],
    "portable Rust",
);
// blake2s_simd compresses one message with SSE4.1 even when AVX2 is present;
// its AVX2 code only serves eight messages at once.
const BLAKE2S: Dispatch = dispatch(&[x86("SSE4.1", &[F("sse4.1")])], "portable Rust");
const BLAKE2BP: Dispatch = dispatch(
    &[
        x86("AVX2, 4 lanes", &[F("avx2")]),
        x86("SSE4.1, 2 lanes", &[F("sse4.1")]),
    ],
    "portable Rust",
);
const BLAKE2SP: Dispatch = dispatch(
    &[
        x86("AVX2, 8 lanes", &[F("avx2")]),
        x86("SSE4.1, 4 lanes", &[F("sse4.1")]),
    ],
    "portable Rust",
);

/// Salt, personalization and tree parameters into a blake2b_simd or
/// blake2s_simd `Params` (the two crates' methods share their names). Bounds
/// are checked by `Algorithm::resolve`: the crates assert them.
macro_rules! parameter_block {
    ($params:expr, $config:expr) => {{
        $params.salt(&$config.salt).personal(&$config.personal);
        if let Some(t) = $config.tree {
            $params
                .fanout(t.fanout)
                .max_depth(t.depth)
                .max_leaf_length(t.leaf_size)
                .node_offset(t.node_offset)
                .node_depth(t.node_depth)
                .inner_hash_length(t.inner_size.into())
                .last_node(t.last_node);
        }
    }};
}

macro_rules! blake2_simd_entry {
    ($alg:expr, $what:expr, $params:path) => {
        blake2_simd_entry!(
            $alg,
            $what,
            $params,
            |_params: &mut $params, _config: &crate::Config| {}
        )
    };
    ($alg:expr, $what:expr, $params:path, $extra:expr) => {
        Backend::new($alg, NAME, $what, |config| {
            let mut params = <$params>::new();
            params.hash_length(config.output_len);
            if let Some(key) = &config.key {
                params.key(key);
            }
            $extra(&mut params, config);
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
            blake2b_simd::Params,
            |params: &mut blake2b_simd::Params, config: &crate::Config| {
                parameter_block!(params, config)
            }
        )
        .with_parameters()
        .with_dispatch(&BLAKE2B),
        blake2_simd_entry!(
            "blake2s",
            "blake2s_simd (AVX2/SSE4.1 at run time)",
            blake2s_simd::Params,
            |params: &mut blake2s_simd::Params, config: &crate::Config| {
                parameter_block!(params, config)
            }
        )
        .with_parameters()
        .with_dispatch(&BLAKE2S),
        blake2_simd_entry!(
            "blake2bp",
            "blake2b_simd::blake2bp (4 leaves, AVX2 at run time)",
            blake2b_simd::blake2bp::Params
        )
        .with_dispatch(&BLAKE2BP),
        blake2_simd_entry!(
            "blake2sp",
            "blake2s_simd::blake2sp (8 leaves, AVX2 at run time)",
            blake2s_simd::blake2sp::Params
        )
        .with_dispatch(&BLAKE2SP),
    ]
}
