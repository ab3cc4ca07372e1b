//! NIST SP 800-185's constructions over RustCrypto's `cshake` crate, by
//! hand, as no maintained crate implements them: KMAC and KMACXOF, cSHAKE
//! with a customization string, ParallelHash (on rayon's pool in the
//! multi-threaded mode) and TupleHash.

use digest::{ExtendableOutput, Update};

use crate::backends::{key_of, Extendable, Snapshot};
use crate::{Backend, Hasher};

/// KMAC, KMACXOF, cSHAKE, ParallelHash and TupleHash, at 128 and 256 bits,
/// as backends named `backend`.
pub(super) fn entries(backend: &str) -> Vec<Backend> {
    vec![
        kmac::<168>(
            backend,
            "kmac128",
            "SP 800-185 KMAC over RustCrypto cshake",
            false,
        ),
        kmac::<136>(
            backend,
            "kmac256",
            "SP 800-185 KMAC over RustCrypto cshake",
            false,
        ),
        kmac::<168>(
            backend,
            "kmacxof128",
            "SP 800-185 KMACXOF over RustCrypto cshake",
            true,
        ),
        kmac::<136>(
            backend,
            "kmacxof256",
            "SP 800-185 KMACXOF over RustCrypto cshake",
            true,
        ),
        cshake::<168>(backend, "cshake128"),
        cshake::<136>(backend, "cshake256"),
        parallel_hash::<168>(backend, "parallelhash128"),
        parallel_hash::<136>(backend, "parallelhash256"),
        tuple_hash::<168>(backend, "tuplehash128"),
        tuple_hash::<136>(backend, "tuplehash256"),
    ]
}

/// SP 800-185 integer encodings.
fn left_encode(x: u64) -> Vec<u8> {
    let bytes = x.to_be_bytes();
    let skip = bytes.iter().take_while(|&&b| b == 0).count().min(7);
    let mut out = vec![(8 - skip) as u8];
    out.extend_from_slice(&bytes[skip..]);
    out
}

fn right_encode(x: u64) -> Vec<u8> {
    let bytes = x.to_be_bytes();
    let skip = bytes.iter().take_while(|&&b| b == 0).count().min(7);
    let mut out = bytes[skip..].to_vec();
    out.push((8 - skip) as u8);
    out
}

/// KMAC(K, X, L, S) = cSHAKE(bytepad(encode_string(K), rate) || X || right_encode(L), L, "KMAC", S);
/// KMACXOF (`xof`) encodes L as 0, so its output is an XOF's (SP 800-185 4.3.1).
fn kmac<const RATE: usize>(
    backend: &str,
    algorithm: &str,
    implementation: &str,
    xof: bool,
) -> Backend {
    let finish: fn(cshake::CShake<RATE>, &mut [u8]) = if xof {
        |mut x, out| {
            Update::update(&mut x, &right_encode(0));
            x.finalize_xof_into(out)
        }
    } else {
        |mut x, out| {
            Update::update(&mut x, &right_encode(out.len() as u64 * 8));
            x.finalize_xof_into(out)
        }
    };
    Backend::new(algorithm, backend, implementation, move |config| {
        let key = key_of(config);
        let mut state =
            cshake::CShake::<RATE>::new_with_function_name(b"KMAC", &config.customization);
        let mut padded = left_encode(RATE as u64);
        padded.extend(left_encode(key.len() as u64 * 8));
        padded.extend_from_slice(key);
        padded.resize(padded.len().div_ceil(RATE) * RATE, 0);
        Update::update(&mut state, &padded);
        let hasher = Snapshot::new(state, config.output_len, Update::update, finish);
        // KMACXOF's output is a prefix of any longer one; KMAC's is not.
        Ok(if xof {
            Box::new(Extendable(hasher)) as Box<dyn Hasher>
        } else {
            Box::new(hasher)
        })
    })
    .with_key()
    .with_length()
    .with_customization()
}

/// cSHAKE (SP 800-185 section 3) with an empty function name N and the
/// customization string S.
fn cshake<const RATE: usize>(backend: &str, algorithm: &str) -> Backend {
    Backend::new(algorithm, backend, "RustCrypto cshake", |config| {
        Ok(Box::new(Extendable(Snapshot::new(
            cshake::CShake::<RATE>::new_with_function_name(b"", &config.customization),
            config.output_len,
            Update::update,
            |x, out| x.finalize_xof_into(out),
        ))))
    })
    .with_length()
    .with_customization()
}

/// ParallelHash's block size B in bytes: KangarooTwelve's chunk size, long
/// enough that a leaf costs far more than its 32- or 64-byte chaining value
/// adds to the final sponge, and short enough that a 64 KiB input already
/// gives each of eight threads a leaf. SP 800-185 leaves B to the caller;
/// hashlab fixes it, as K12 fixes its chunk, so a digest names its function.
pub(crate) const PARALLEL_HASH_BLOCK: usize = 8192;

/// Leaves hashed per batch in the multi-threaded mode: 8 MiB of input, so a
/// huge update needs no more than 512 chaining values in memory at once.
const PARALLEL_HASH_BATCH: usize = 1024;

/// ParallelHash (SP 800-185 section 6), the construction by hand over the
/// `cshake` crate as KMAC is (no maintained crate implements it with a
/// thread pool):
///
/// z = left_encode(B) || cSHAKE(X_0, 2c, "", "") || ... || cSHAKE(X_{n-1}, 2c, "", "")
///     || right_encode(n) || right_encode(L);  ParallelHash = cSHAKE(z, L, "ParallelHash", S),
///
/// where the leaves X_i are the message's B-byte blocks (the last may be
/// shorter) and 2c, twice the security level, is the capacity `200 - RATE`
/// bytes. The leaves are independent, so the multi-threaded mode hashes a
/// batch of them on rayon's pool and absorbs their chaining values in order.
#[derive(Clone)]
struct ParallelHash<const RATE: usize> {
    outer: cshake::CShake<RATE>,
    /// B, bytes per leaf.
    block: usize,
    /// The bytes of the current leaf, fewer than B.
    leaf: Vec<u8>,
    leaves: u64,
    parallel: bool,
}

impl<const RATE: usize> ParallelHash<RATE> {
    const CHAINING: usize = 200 - RATE;

    fn new(customization: &[u8], parallel: bool, block: usize) -> Self {
        let mut outer =
            cshake::CShake::<RATE>::new_with_function_name(b"ParallelHash", customization);
        Update::update(&mut outer, &left_encode(block as u64));
        ParallelHash {
            outer,
            block,
            leaf: Vec::new(),
            leaves: 0,
            parallel,
        }
    }

    /// cSHAKE(X_i, 2c, "", ""): with N and S empty, cSHAKE is SHAKE.
    fn chaining_value(leaf: &[u8], out: &mut [u8]) {
        let mut shake = cshake::CShake::<RATE>::new_with_function_name(b"", b"");
        Update::update(&mut shake, leaf);
        shake.finalize_xof_into(out);
    }

    fn absorb_leaf(&mut self, leaf: &[u8]) {
        let mut chaining = [0u8; 64];
        let chaining = &mut chaining[..Self::CHAINING];
        Self::chaining_value(leaf, chaining);
        Update::update(&mut self.outer, chaining);
        self.leaves += 1;
    }

    fn update(&mut self, mut data: &[u8]) {
        if !self.leaf.is_empty() {
            let take = (self.block - self.leaf.len()).min(data.len());
            self.leaf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.leaf.len() < self.block {
                return;
            }
            let leaf = std::mem::take(&mut self.leaf);
            self.absorb_leaf(&leaf);
            self.leaf = leaf;
            self.leaf.clear();
        }
        // A leaf is hashed only once a byte past it arrives: the last one,
        // full or not, waits for finalization, as n counts it there.
        let whole = data.len().saturating_sub(1) / self.block * self.block;
        let (blocks, rest) = data.split_at(whole);
        for batch in blocks.chunks(self.block * PARALLEL_HASH_BATCH) {
            let mut chaining = vec![0u8; batch.len() / self.block * Self::CHAINING];
            if self.parallel && batch.len() > self.block {
                use rayon::prelude::*;
                chaining
                    .par_chunks_mut(Self::CHAINING)
                    .zip(batch.par_chunks(self.block))
                    .for_each(|(out, leaf)| Self::chaining_value(leaf, out));
            } else {
                chaining
                    .chunks_mut(Self::CHAINING)
                    .zip(batch.chunks(self.block))
                    .for_each(|(out, leaf)| Self::chaining_value(leaf, out));
            }
            Update::update(&mut self.outer, &chaining);
            self.leaves += (batch.len() / self.block) as u64;
        }
        self.leaf.extend_from_slice(rest);
    }

    fn finish(mut self, out: &mut [u8]) {
        if !self.leaf.is_empty() {
            let leaf = std::mem::take(&mut self.leaf);
            self.absorb_leaf(&leaf);
        }
        Update::update(&mut self.outer, &right_encode(self.leaves));
        Update::update(&mut self.outer, &right_encode(out.len() as u64 * 8));
        self.outer.finalize_xof_into(out);
    }
}

fn parallel_hash<const RATE: usize>(backend: &str, algorithm: &str) -> Backend {
    Backend::new(
        algorithm,
        backend,
        "SP 800-185 ParallelHash over RustCrypto cshake, leaves on rayon's pool",
        |config| {
            // L is encoded into the hash, so a longer output is not an
            // extension of a shorter one: not Extendable.
            Ok(Box::new(Snapshot::new(
                ParallelHash::<RATE>::new(
                    &config.customization,
                    config.parallel,
                    PARALLEL_HASH_BLOCK,
                ),
                config.output_len,
                ParallelHash::update,
                ParallelHash::finish,
            )))
        },
    )
    .with_length()
    .with_customization()
    .with_parallel()
}

/// TupleHash (SP 800-185 section 5) over the `cshake` crate, by hand as
/// KMAC is (the RustCrypto crates have no TupleHash):
///
/// TupleHash(X, L, S) = cSHAKE(encode_string(X_1) || ... || encode_string(X_n)
///     || right_encode(L), L, "TupleHash", S),  encode_string(x) = left_encode(|x| bits) || x.
///
/// A message hashed the usual way is the tuple of one string. Its length
/// comes before its bytes, so an element whose length was announced
/// ([`Hasher::announce_length`], as hashlab's readers do for files) streams
/// through the sponge; one that was not is held until it ends, which is
/// where its length is learned.
#[derive(Clone)]
struct TupleHash<const RATE: usize> {
    initial: cshake::CShake<RATE>,
    state: cshake::CShake<RATE>,
    out_len: usize,
    /// Bytes the element whose length was announced still expects.
    owed: u64,
    /// The bytes of an element whose length was not announced.
    held: Option<Vec<u8>>,
    /// Elements begun so far: none at the end means the one empty string.
    elements: u64,
}

/// left_encode of a length in bits, for lengths in bytes up to 2^64 - 1
/// (whose bit count needs more than 64 bits).
fn left_encode_bits(bytes: u64) -> Vec<u8> {
    let bits = u128::from(bytes) * 8;
    let raw = bits.to_be_bytes();
    let skip = raw.iter().take_while(|&&b| b == 0).count().min(15);
    let mut out = vec![(16 - skip) as u8];
    out.extend_from_slice(&raw[skip..]);
    out
}

impl<const RATE: usize> TupleHash<RATE> {
    fn new(customization: &[u8], out_len: usize) -> Self {
        let initial = cshake::CShake::<RATE>::new_with_function_name(b"TupleHash", customization);
        TupleHash {
            state: initial.clone(),
            initial,
            out_len,
            owed: 0,
            held: None,
            elements: 0,
        }
    }

    fn end_held(&mut self) {
        if let Some(held) = self.held.take() {
            Update::update(&mut self.state, &left_encode_bits(held.len() as u64));
            Update::update(&mut self.state, &held);
            self.elements += 1;
        }
    }

    fn is_fresh(&self) -> bool {
        self.elements == 0 && self.held.is_none()
    }
}

impl<const RATE: usize> Hasher for TupleHash<RATE> {
    fn update(&mut self, mut data: &[u8]) {
        if self.owed > 0 {
            let take = data
                .len()
                .min(usize::try_from(self.owed).unwrap_or(usize::MAX));
            Update::update(&mut self.state, &data[..take]);
            self.owed -= take as u64;
            data = &data[take..];
        }
        if !data.is_empty() {
            self.held
                .get_or_insert_with(Vec::new)
                .extend_from_slice(data);
        }
    }
    fn needs_length_first(&self) -> bool {
        true
    }
    fn announce_length(&mut self, len: u64) {
        self.end_held();
        Update::update(&mut self.state, &left_encode_bits(len));
        self.owed = len;
        self.elements += 1;
    }
    fn hash_message_into(&mut self, data: &[u8], out: &mut [u8]) {
        if self.is_fresh() {
            self.announce_length(data.len() as u64);
        }
        self.update(data);
        self.finalize_into_reset(out);
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        assert_eq!(out.len(), self.out_len, "output buffer length");
        self.end_held();
        if self.elements == 0 {
            Update::update(&mut self.state, &left_encode_bits(0));
        }
        Update::update(&mut self.state, &right_encode(out.len() as u64 * 8));
        let done = std::mem::replace(&mut self.state, self.initial.clone());
        done.finalize_xof_into(out);
        self.reset();
    }
    fn reset(&mut self) {
        self.state = self.initial.clone();
        self.owed = 0;
        self.held = None;
        self.elements = 0;
    }
    fn output_len(&self) -> usize {
        self.out_len
    }
    fn box_clone(&self) -> Box<dyn Hasher> {
        Box::new(self.clone())
    }
}

fn tuple_hash<const RATE: usize>(backend: &str, algorithm: &str) -> Backend {
    Backend::new(
        algorithm,
        backend,
        "SP 800-185 TupleHash over RustCrypto cshake",
        |config| {
            // L is encoded into the hash: not Extendable.
            Ok(Box::new(TupleHash::<RATE>::new(
                &config.customization,
                config.output_len,
            )))
        },
    )
    .with_length()
    .with_customization()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SP 800-185 ParallelHash samples (NIST's examples document) use
    /// B = 8, where hashlab's algorithms fix B = 8192: the same code with
    /// their B, one thread and several. The vectors files check B = 8192
    /// against an independent implementation.
    #[test]
    fn parallel_hash_follows_the_sp800_185_samples() {
        fn sample<const RATE: usize>(s: &[u8], len: usize, parallel: bool) -> String {
            // X = 00..07 10..17 20..27.
            let x: Vec<u8> = (0..24u8).map(|i| i / 8 * 0x10 + i % 8).collect();
            let mut hash = ParallelHash::<RATE>::new(s, parallel, 8);
            hash.update(&x);
            let mut out = vec![0u8; len];
            hash.finish(&mut out);
            crate::hex::encode(&out)
        }
        let samples: [(usize, &[u8], &str); 4] = [
            (128, b"", "ba8dc1d1d979331d3f813603c67f72609ab5e44b94a0b8f9af46514454a2b4f5"),
            (128, b"Parallel Data", "fc484dcb3f84dceedc353438151bee58157d6efed0445a81f165e495795b7206"),
            (256, b"", "bc1ef124da34495e948ead207dd9842235da432d2bbc54b4c110e64c451105531b7f2a3e0ce055c02805e7c2de1fb746af97a1dd01f43b824e31b87612410429"),
            (256, b"Parallel Data", "cdf15289b54f6212b4bc270528b49526006dd9b54e2b6add1ef6900dda3963bb33a72491f236969ca8afaea29c682d47a393c065b38e29fae651a2091c833110"),
        ];
        for (bits, s, expected) in samples {
            for parallel in [false, true] {
                let got = match bits {
                    128 => sample::<168>(s, 32, parallel),
                    _ => sample::<136>(s, 64, parallel),
                };
                assert_eq!(
                    got, expected,
                    "ParallelHash{bits}, S = {s:?}, parallel {parallel}"
                );
            }
        }
    }

    /// NIST's SP 800-185 TupleHash samples: tuples of two and three strings,
    /// each element announced, held, or announced and then fed piecewise.
    #[test]
    fn tuple_hash_follows_the_sp800_185_samples() {
        let a: Vec<u8> = (0..3).collect();
        let b: Vec<u8> = (0x10..0x16).collect();
        let c: Vec<u8> = (0x20..0x29).collect();
        let app = b"My Tuple App";
        /// (bits, the tuple, S, the digest).
        type Sample<'a> = (usize, Vec<&'a [u8]>, &'a [u8], &'a str);
        let samples: [Sample; 6] = [
            (128, vec![&a, &b], b"", "c5d8786c1afb9b82111ab34b65b2c0048fa64e6d48e263264ce1707d3ffc8ed1"),
            (128, vec![&a, &b], app, "75cdb20ff4db1154e841d758e24160c54bae86eb8c13e7f5f40eb35588e96dfb"),
            (128, vec![&a, &b, &c], app, "e60f202c89a2631eda8d4c588ca5fd07f39e5151998deccf973adb3804bb6e84"),
            (256, vec![&a, &b], b"", "cfb7058caca5e668f81a12a20a2195ce97a925f1dba3e7449a56f82201ec607311ac2696b1ab5ea2352df1423bde7bd4bb78c9aed1a853c78672f9eb23bbe194"),
            (256, vec![&a, &b], app, "147c2191d5ed7efd98dbd96d7ab5a11692576f5fe2a5065f3e33de6bba9f3aa1c4e9a068a289c61c95aab30aee1e410b0b607de3620e24a4e3bf9852a1d4367e"),
            (256, vec![&a, &b, &c], app, "45000be63f9b6bfd89f54717670f69a9bc763591a4f05c50d68891a744bcc6e7d6d5b5e82c018da999ed35b0bb49c9678e526abd8e85c13ed254021db9e790ce"),
        ];
        for (bits, tuple, s, expected) in samples {
            let mut h: Box<dyn Hasher> = match bits {
                128 => Box::new(TupleHash::<168>::new(s, 32)),
                _ => Box::new(TupleHash::<136>::new(s, 64)),
            };
            let (last, first) = tuple.split_last().unwrap();
            for way in 0..3 {
                for element in first {
                    h.announce_length(element.len() as u64);
                    element.chunks(2).for_each(|piece| h.update(piece));
                }
                match way {
                    // Announced.
                    0 => {
                        h.announce_length(last.len() as u64);
                        h.update(last);
                    }
                    // Held until the end, where its length is learned.
                    1 => last.chunks(4).for_each(|piece| h.update(piece)),
                    // Bytes past the announced element begin the next.
                    _ => {
                        h.reset();
                        let (previous, before) = first.split_last().unwrap();
                        for element in before {
                            h.announce_length(element.len() as u64);
                            h.update(element);
                        }
                        h.announce_length(previous.len() as u64);
                        h.update(&[*previous, *last].concat());
                    }
                }
                let got = h.finalize_reset();
                assert_eq!(
                    got.to_hex(),
                    expected,
                    "TupleHash{bits}, S = {s:?}, way {way}"
                );
            }
        }
    }

    /// A message is the tuple of one string whether its length was
    /// announced, learned at its end, or given with it in one shot; the
    /// empty message is the one empty string.
    #[test]
    fn tuple_hash_of_one_message_is_the_same_however_fed() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 256) as u8).collect();
        for len in [0, 1, 167, 168, 169, 1000] {
            let message = &data[..len];
            let mut held = TupleHash::<168>::new(b"S", 32);
            message.chunks(50).for_each(|p| held.update(p));
            let held = held.finalize_reset();
            let mut announced = TupleHash::<168>::new(b"S", 32);
            announced.announce_length(len as u64);
            message.chunks(50).for_each(|p| announced.update(p));
            assert_eq!(announced.finalize_reset(), held, "length {len}");
            let mut one_shot = TupleHash::<168>::new(b"S", 32);
            let mut out = [0u8; 32];
            one_shot.hash_message_into(message, &mut out);
            assert_eq!(out, held.as_bytes(), "length {len}");
            // And the state after each finalization is the initial one.
            one_shot.hash_message_into(message, &mut out);
            assert_eq!(out, held.as_bytes(), "again, length {len}");
        }
    }

    /// Any way of cutting the input into updates, with or without threads,
    /// gives the one-update digest.
    #[test]
    fn parallel_hash_is_the_same_however_fed() {
        let data: Vec<u8> = (0..3 * PARALLEL_HASH_BLOCK * 5 + 77)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        for len in [
            0,
            1,
            PARALLEL_HASH_BLOCK - 1,
            PARALLEL_HASH_BLOCK,
            PARALLEL_HASH_BLOCK + 1,
            2 * PARALLEL_HASH_BLOCK,
            data.len(),
        ] {
            let whole = {
                let mut h = ParallelHash::<168>::new(b"c", false, PARALLEL_HASH_BLOCK);
                h.update(&data[..len]);
                let mut out = [0u8; 32];
                h.finish(&mut out);
                out
            };
            for (split, parallel) in [
                (1, false),
                (100, true),
                (PARALLEL_HASH_BLOCK, true),
                (3 * PARALLEL_HASH_BLOCK + 5, true),
                (usize::MAX, true),
            ] {
                let mut h = ParallelHash::<168>::new(b"c", parallel, PARALLEL_HASH_BLOCK);
                for piece in data[..len].chunks(split.min(len.max(1))) {
                    h.update(piece);
                }
                let mut out = [0u8; 32];
                h.finish(&mut out);
                assert_eq!(out, whole, "len {len}, split {split}, parallel {parallel}");
            }
        }
    }

    #[test]
    fn sp800_185_encodings() {
        assert_eq!(left_encode(0), vec![1, 0]);
        assert_eq!(left_encode(168), vec![1, 168]);
        assert_eq!(left_encode(256), vec![2, 1, 0]);
        assert_eq!(right_encode(0), vec![0, 1]);
        assert_eq!(right_encode(256), vec![1, 0, 2]);
    }
}
