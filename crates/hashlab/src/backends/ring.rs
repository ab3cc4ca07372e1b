//! ring and aws-lc-rs: the same API shape (aws-lc-rs started as a ring-compatible
//! fork), so one macro builds both backends' entries from a crate path.

/// Entries for a crate with ring's `digest::Context` / `hmac::Context` API.
macro_rules! ring_like_entries {
    ($krate:ident, $backend:expr, $what:expr, digests: [$(($alg:expr, $digest:ident)),* $(,)?], hmacs: [$(($halg:expr, $hmac:ident)),* $(,)?]) => {{
        use $krate::{digest, hmac};
        use $crate::backends::{key_of, Snapshot};
        use $crate::Backend;
        vec![
            $(
                Backend::new($alg, $backend, $what, |config| {
                    let context = digest::Context::new(&digest::$digest);
                    Ok(Box::new(Snapshot::new(
                        context,
                        config.output_len,
                        |c, data| c.update(data),
                        |c, out| out.copy_from_slice(c.finish().as_ref()),
                    )))
                }),
            )*
            $(
                Backend::new($halg, $backend, $what, |config| {
                    let key = hmac::Key::new(hmac::$hmac, key_of(config));
                    Ok(Box::new(Snapshot::new(
                        hmac::Context::with_key(&key),
                        config.output_len,
                        |c, data| c.update(data),
                        |c, out| out.copy_from_slice(c.sign().as_ref()),
                    )))
                })
                .with_key(),
            )*
        ]
    }};
}
pub(crate) use ring_like_entries;

pub(crate) fn entries() -> Vec<crate::Backend> {
    ring_like_entries!(
        ring,
        "ring",
        "ring 0.17 (BoringSSL-derived assembly)",
        digests: [
            ("sha1", SHA1_FOR_LEGACY_USE_ONLY),
            ("sha256", SHA256),
            ("sha384", SHA384),
            ("sha512", SHA512),
            ("sha512-256", SHA512_256),
        ],
        hmacs: [("hmac-sha256", HMAC_SHA256), ("hmac-sha512", HMAC_SHA512)]
    )
}
