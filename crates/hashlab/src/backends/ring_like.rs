//! ring and aws-lc-rs have the same API shape (aws-lc-rs started as a
//! ring-compatible fork), so one macro builds both backends' entries from a
//! crate path. Compiled whatever features are on: either backend may be alone.

/// Entries for a crate with ring's `digest::Context` / `hmac::Context` API:
/// `(algorithm, the crate's algorithm constant, the entry's dispatch)`.
macro_rules! ring_like_entries {
    ($krate:ident, $backend:expr, $what:expr,
     digests: [$(($alg:expr, $digest:ident, $dispatch:expr)),* $(,)?],
     hmacs: [$(($halg:expr, $hmac:ident, $hdispatch:expr)),* $(,)?]) => {{
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
                })
                .with_dispatch($dispatch),
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
                .with_key()
                .with_dispatch($hdispatch),
            )*
        ]
    }};
}
pub(crate) use ring_like_entries;
