//! Seeded hashes against SMHasher3's published verification values
//! (fwojcik/smhasher3 at 7ad8939d, `$.verification_LE` in hashes/*.cpp),
//! which hash with seeds: a hash seeded as SMHasher3 seeds it gives the
//! same value. The values cover every seed of 0 to 256.
//!
//! SMHasher3's verification (lib/Hashinfo.cpp, `_ComputedVerifyImpl`): for
//! i in 0..256, hash the key {0, 1, ..., i-1} under seed 256 - i into an
//! array; hash that array under seed 0; the first four bytes of the result,
//! little-endian, are the value. SMHasher3 stores a 32- or 64-bit result as
//! the machine's little-endian integer, where hashlab prints the value
//! big-endian (`integer_le` below turns one into the other).

use hashlab::{HashParams, Registry};

fn verification(algorithm: &str, backend: &str, integer_le: bool) -> u32 {
    let registry = Registry::default();
    let hash = |message: &[u8], seed: u64| {
        let params = HashParams {
            seed: Some(seed),
            ..HashParams::default()
        };
        let mut hasher = registry
            .hasher(algorithm, Some(backend), &params)
            .unwrap_or_else(|e| panic!("{algorithm}/{backend}: {e}"));
        hasher.update(message);
        let mut digest = hasher.finalize_reset().0;
        if integer_le {
            digest.reverse();
        }
        digest
    };
    let key: Vec<u8> = (0..=255u8).collect();
    let mut hashes = Vec::new();
    for i in 0..256 {
        hashes.extend(hash(&key[..i], 256 - i as u64));
    }
    let total = hash(&hashes, 0);
    u32::from_le_bytes(total[..4].try_into().unwrap())
}

#[test]
fn seeded_hashes_give_smhasher3s_verification_values() {
    let registry = Registry::default();
    // (algorithm, SMHasher3's name, its verification_LE, digest is one integer)
    let cases = [
        ("murmur3-32", "MurmurHash3_32", 0xB0F5_7EE3, true),
        ("murmur3-128", "MurmurHash3_128", 0x6384_BA69, false),
        ("fnv1a-32", "FNV_1a_32", 0xE3CB_BE91, true),
        ("fnv1a-64", "FNV_1a_64", 0x1034_55FC, true),
        ("crc32c", "CRC_32C", 0x6E60_71BD, true),
    ];
    let mut checked = 0;
    for (algorithm, theirs, expected, integer_le) in cases {
        for backend in registry.backends_of(algorithm).unwrap() {
            if !backend.is_available() {
                continue;
            }
            let got = verification(algorithm, &backend.name, integer_le);
            assert_eq!(
                got, expected,
                "{algorithm}/{}: {got:08X}, SMHasher3's {theirs} is {expected:08X}",
                backend.name
            );
            checked += 1;
        }
    }
    // crc32c has two backends, each checked.
    assert!(checked > cases.len(), "{checked}");
}
