//! What `new()` remembered per name: a short-message caller makes an object
//! per message, and resolving the name each time was the larger part of a
//! small hash.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::made::Made;

/// The names `new()` was called with and no parameter but perhaps a
/// length, each with what it decided: a short-message caller makes an object per message (hashlib's
/// `new(name, data).digest()` idiom), and going from the name again each
/// time (Python name, registry name, cached default) doubled the cost of a
/// small hash.
fn default_made_by_name() -> &'static Mutex<MadeByName> {
    static MADE: OnceLock<Mutex<MadeByName>> = OnceLock::new();
    MADE.get_or_init(|| Mutex::new(MadeByName::default()))
}

/// The names are the caller's, so the hasher is seeded per process
/// (foldhash's `RandomState`): no spelling list can make it degrade. Per
/// name, what each length asked for (`None`: none) resolved to.
type MadeByName = HashMap<Box<str>, Vec<(Option<usize>, Arc<Made>)>, foldhash::fast::RandomState>;

/// Spellings differ only in case (`SHA256`, `sha256`), so this bounds the
/// memory a caller trying every casing could make the map take; lengths
/// likewise per name (an extendable output takes any).
const DEFAULT_MADE_MAX: usize = 1024;
const LENGTHS_MAX: usize = 128;

pub(crate) fn default_made(name: &str, length: Option<usize>) -> Option<Arc<Made>> {
    let made = default_made_by_name()
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let lengths = made.get(name)?;
    lengths
        .iter()
        .find(|(l, _)| *l == length)
        .map(|(_, made)| Arc::clone(made))
}

pub(crate) fn remember_default_made(name: &str, length: Option<usize>, made: &Arc<Made>) {
    let mut by_name = default_made_by_name()
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if by_name.len() >= DEFAULT_MADE_MAX && !by_name.contains_key(name) {
        return;
    }
    let lengths = by_name.entry(name.into()).or_default();
    if lengths.len() < LENGTHS_MAX && !lengths.iter().any(|(l, _)| *l == length) {
        lengths.push((length, Arc::clone(made)));
    }
}
