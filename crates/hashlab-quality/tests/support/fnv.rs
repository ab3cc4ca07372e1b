use hashlab::{Algorithm, Backend, Class, Hasher, OutputRule, Registry};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Plain FNV-1a, 64 bits (Fowler, Noll, Vo), output big-endian as its tools print it.
struct Fnv1a64(u64);

impl Hasher for Fnv1a64 {
    fn update(&mut self, data: &[u8]) {
        for &byte in data {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        out.copy_from_slice(&self.0.to_be_bytes());
        self.0 = FNV_OFFSET;
    }
    fn reset(&mut self) {
        self.0 = FNV_OFFSET;
    }
    fn output_len(&self) -> usize {
        8
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(Fnv1a64(self.0))
    }
}

/// The default registry plus FNV-1a-64, which the shipped catalog leaves out.
pub fn registry_with_fnv() -> Registry {
    let mut registry = Registry::default();
    registry
        .register_algorithm(Algorithm {
            // FNV-1a-64("a") from the FNV reference test vectors.
            self_test: Some((b"a".to_vec(), "af63dc4c8601ec8c".into())),
            ..Algorithm::new(
                "fnv1a-64",
                "FNV",
                Class::NonCryptographic,
                OutputRule::Fixed { bytes: 8 },
            )
        })
        .expect("fnv1a-64 is not in the catalog");
    registry
        .register_backend(Backend::new(
            "fnv1a-64",
            "test",
            "FNV-1a written in this test",
            |_| Ok(Box::new(Fnv1a64(FNV_OFFSET))),
        ))
        .expect("the algorithm was just registered");
    registry
}
