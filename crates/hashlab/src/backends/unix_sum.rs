//! The two 16-bit sums of UNIX `sum`: the BSD checksum (`sum -r`, coreutils'
//! default `sum`, `cksum -a bsd`) and the System V sum (`sum -s`, `cksum -a
//! sysv`), as coreutils' `sum.c` computes them. No crate has either, and
//! each is a few lines of its definition; the digest is the 16-bit value,
//! big-endian, as the CRCs' digests are their values.

use super::Native;
use crate::dispatch::Dispatch;
use crate::Backend;

const PORTABLE: Dispatch = crate::dispatch::scalar("portable Rust");

/// The BSD checksum: before each byte the 16-bit value is rotated right by
/// one bit, then the byte is added modulo 2^16. Each step needs the last,
/// so it goes byte by byte.
fn bsd_update(value: &mut u16, data: &[u8]) {
    let mut v = *value;
    for &byte in data {
        v = v.rotate_right(1).wrapping_add(u16::from(byte));
    }
    *value = v;
}

/// The System V sum: the bytes added modulo 2^32 (coreutils' `unsigned
/// int`), then folded twice to 16 bits when the value is read.
fn sysv_update(total: &mut u32, data: &[u8]) {
    // Wrapping addition is associative, so eight lanes (which the compiler
    // turns into vector adds) give the one sum the byte loop gives.
    let mut lanes = [0u32; 8];
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        for (lane, &byte) in lanes.iter_mut().zip(chunk) {
            *lane = lane.wrapping_add(u32::from(byte));
        }
    }
    let mut sum = lanes.iter().fold(*total, |s, &l| s.wrapping_add(l));
    for &byte in chunks.remainder() {
        sum = sum.wrapping_add(u32::from(byte));
    }
    *total = sum;
}

fn sysv_value(total: u32) -> u16 {
    let r = (total & 0xffff) + (total >> 16);
    ((r & 0xffff) + (r >> 16)) as u16
}

pub(crate) fn entries() -> Vec<Backend> {
    vec![
        Backend::new("bsd", "hashlab", "the BSD sum, portable Rust", |_| {
            Ok(Box::new(Native {
                state: 0u16,
                out_len: 2,
                update: bsd_update,
                finish_reset: |v, out| {
                    out.copy_from_slice(&v.to_be_bytes());
                    *v = 0;
                },
                reset: |v| *v = 0,
            }))
        })
        .with_dispatch(&PORTABLE),
        Backend::new("sysv", "hashlab", "the System V sum, portable Rust", |_| {
            Ok(Box::new(Native {
                state: 0u32,
                out_len: 2,
                update: sysv_update,
                finish_reset: |t, out| {
                    out.copy_from_slice(&sysv_value(*t).to_be_bytes());
                    *t = 0;
                },
                reset: |t| *t = 0,
            }))
        })
        .with_dispatch(&PORTABLE),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lanes_add_as_the_bytes_do() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 37 % 256) as u8).collect();
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let mut t = u32::MAX - 5;
            sysv_update(&mut t, &data[..split]);
            sysv_update(&mut t, &data[split..]);
            let plain = data
                .iter()
                .fold(u32::MAX - 5, |s, &b| s.wrapping_add(u32::from(b)));
            assert_eq!(t, plain, "{split}");
        }
        // The fold carries twice: 0xffff + 0xffff folds to 0xffff.
        assert_eq!(sysv_value(0xffff_ffff), 0xffff);
        assert_eq!(sysv_value(0x0001_fffe), 0xffff);
    }
}
