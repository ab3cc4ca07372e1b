//! The loaded sets: the hashes they are kept under, their names, and
//! lookups across every table of a hash.

use super::table::{DigestTable, TableBuilder};
use super::{KnownError, MAX_ENTRIES};
use crate::recorded::MAX_ALGORITHMS;

/// The known names, kept only when asked for: one buffer of every name's
/// bytes and where each ends, so a name costs its length and eight bytes.
#[derive(Debug, Default)]
struct NameStore {
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

impl NameStore {
    fn push(&mut self, name: &[u8]) -> Result<u32, KnownError> {
        let index = u32::try_from(self.ends.len())
            .map_err(|_| KnownError::TooManyEntries { limit: MAX_ENTRIES })?;
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len() as u64);
        Ok(index)
    }

    fn get(&self, index: u32) -> &[u8] {
        let i = index as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }
}

/// One hash every input is hashed with: an algorithm (canonical name) at a
/// digest length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownHash {
    pub algorithm: String,
    pub width: usize,
}

/// Where a digest goes, for [`KnownBuilder::add_to`]: the pool of entries
/// of one digest each, where any table holding an input's digest makes a
/// match, or a set whose entries record several digests each (hashdeep's
/// columns), where each of its tables must hold the input's digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group(usize);

#[derive(Debug)]
struct GroupTables {
    /// Indices into the tables.
    tables: Vec<usize>,
    /// Every table must hold the input's digest (else any).
    every: bool,
}

/// Collects the digests of one or more sets; [`KnownBuilder::finish`]
/// makes the tables lookups use.
#[derive(Debug)]
pub struct KnownBuilder {
    hashes: Vec<KnownHash>,
    tables: Vec<TableBuilder>,
    groups: Vec<GroupTables>,
    pool: Option<Group>,
    names: Option<NameStore>,
}

impl KnownBuilder {
    /// `keep_names`: keep each entry's name, for [`KnownSets::name`]; that
    /// costs the names' bytes and twelve bytes an entry.
    pub fn new(keep_names: bool) -> KnownBuilder {
        KnownBuilder {
            hashes: Vec::new(),
            tables: Vec::new(),
            groups: Vec::new(),
            pool: None,
            names: keep_names.then(NameStore::default),
        }
    }

    pub fn keeps_names(&self) -> bool {
        self.names.is_some()
    }

    /// The group of entries of one digest each (manifest lines, NSRL rows).
    pub fn pool(&mut self) -> Group {
        *self.pool.get_or_insert_with(|| {
            self.groups.push(GroupTables {
                tables: Vec::new(),
                every: false,
            });
            Group(self.groups.len() - 1)
        })
    }

    /// A new group for a set whose entries record several digests of one
    /// file: an input matches it only when each of its tables holds the
    /// input's digest of that algorithm, as hashdeep checks a match's other
    /// columns (an MD5 found whose SHA-256 is not is a collision, no match).
    /// The tables are checked apart, not entry by entry: an input whose MD5
    /// is one entry's and SHA-256 another's would need both collisions.
    pub fn group_of_every_digest(&mut self) -> Group {
        self.groups.push(GroupTables {
            tables: Vec::new(),
            every: true,
        });
        Group(self.groups.len() - 1)
    }

    /// Keeps a known name (when names are kept) and returns its place for
    /// [`KnownBuilder::add_to`]; 0 when names are not kept.
    pub fn name(&mut self, name: &[u8]) -> Result<u32, KnownError> {
        match &mut self.names {
            Some(names) => names.push(name),
            None => Ok(0),
        }
    }

    /// Adds one known digest of `algorithm` (a canonical name) to the pool,
    /// with the name it was recorded under; returns the name's place.
    pub fn add(&mut self, algorithm: &str, digest: &[u8], name: &[u8]) -> Result<u32, KnownError> {
        let pool = self.pool();
        let origin = self.name(name)?;
        self.add_to(pool, algorithm, digest, origin)?;
        Ok(origin)
    }

    /// Adds a digest to `group` under a name already kept (`origin`, from
    /// [`KnownBuilder::name`] or [`KnownBuilder::add`]).
    pub fn add_to(
        &mut self,
        group: Group,
        algorithm: &str,
        digest: &[u8],
        origin: u32,
    ) -> Result<(), KnownError> {
        if digest.is_empty() {
            // No file's digest is empty: nothing could match it (and a table
            // of records zero bytes wide has no length).
            return Ok(());
        }
        let hash = match self
            .hashes
            .iter()
            .position(|h| h.algorithm == algorithm && h.width == digest.len())
        {
            Some(hash) => hash,
            None => {
                if self.hashes.len() >= MAX_ALGORITHMS {
                    return Err(KnownError::TooManyAlgorithms {
                        limit: MAX_ALGORITHMS,
                    });
                }
                self.hashes.push(KnownHash {
                    algorithm: algorithm.to_string(),
                    width: digest.len(),
                });
                self.hashes.len() - 1
            }
        };
        let tables = &mut self.groups[group.0].tables;
        let table = match tables.iter().find(|&&t| self.tables[t].hash == hash) {
            Some(&t) => t,
            None => {
                self.tables.push(TableBuilder::new(
                    algorithm.to_string(),
                    digest.len(),
                    hash,
                    self.names.is_some(),
                ));
                tables.push(self.tables.len() - 1);
                self.tables.len() - 1
            }
        };
        self.tables[table].push(digest, origin)
    }

    /// The tables, sorted and indexed, in the order their first digest came.
    pub fn finish(self) -> KnownSets {
        KnownSets {
            hashes: self.hashes,
            tables: self.tables.into_iter().map(TableBuilder::finish).collect(),
            groups: self.groups,
            names: self.names,
        }
    }
}

/// Where a digest was found: the table and the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub table: usize,
    pub record: usize,
}

/// What the known sets say of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// A match: the first table (in the order sets came) that holds one of
    /// its digests, for [`KnownSets::name`].
    Known(Hit),
    /// No match, but a set whose entries hold several digests has some of
    /// the input's and not others (indices into [`KnownSets::hashes`]):
    /// a collision of the weaker algorithm, or a damaged entry.
    Partial {
        known: Vec<usize>,
        unknown: Vec<usize>,
    },
    Unknown,
}

/// Every known set of a run: one table per group and hash.
#[derive(Debug)]
pub struct KnownSets {
    hashes: Vec<KnownHash>,
    tables: Vec<DigestTable>,
    groups: Vec<GroupTables>,
    names: Option<NameStore>,
}

impl KnownSets {
    /// The hashes each input is to be hashed with, in the order the sets
    /// first named them: [`KnownSets::lookup`] takes one digest of each.
    pub fn hashes(&self) -> &[KnownHash] {
        &self.hashes
    }

    pub fn tables(&self) -> &[DigestTable] {
        &self.tables
    }

    /// Looks up an input's digests, `digests[i]` of `hashes()[i]`, and marks
    /// what matched as used (every table of a match: a file matched by
    /// its SHA-256 uses its MD5 of the same hashdeep set too).
    pub fn lookup<D: AsRef<[u8]>>(&mut self, digests: &[D]) -> Lookup {
        let mut first = None;
        let mut partial = None;
        for group in &self.groups {
            let found: Vec<Option<usize>> = group
                .tables
                .iter()
                .map(|&t| {
                    let table = &self.tables[t];
                    digests.get(table.hash).and_then(|d| table.find(d.as_ref()))
                })
                .collect();
            let matched = if group.every {
                found.iter().all(Option::is_some)
            } else {
                found.iter().any(Option::is_some)
            };
            if matched {
                for (&table, record) in group.tables.iter().zip(&found) {
                    if let Some(record) = *record {
                        self.tables[table].mark(record);
                        first.get_or_insert(Hit { table, record });
                    }
                }
            } else if found.iter().any(Option::is_some) && partial.is_none() {
                let (known, unknown): (Vec<_>, Vec<_>) = group
                    .tables
                    .iter()
                    .zip(&found)
                    .partition(|(_, f)| f.is_some());
                let hashes = |of: Vec<(&usize, &Option<usize>)>| -> Vec<usize> {
                    of.into_iter().map(|(&t, _)| self.tables[t].hash).collect()
                };
                partial = Some(Lookup::Partial {
                    known: hashes(known),
                    unknown: hashes(unknown),
                });
            }
        }
        match (first, partial) {
            (Some(hit), _) => Lookup::Known(hit),
            (None, Some(partial)) => partial,
            (None, None) => Lookup::Unknown,
        }
    }

    /// The name the matched digest was first recorded under, when names are kept.
    pub fn name(&self, hit: Hit) -> Option<&[u8]> {
        let names = self.names.as_ref()?;
        let origin = *self.tables.get(hit.table)?.origins.get(hit.record)?;
        Some(names.get(origin))
    }

    /// Distinct known digests that no input matched, over every table.
    pub fn unused(&self) -> usize {
        self.tables.iter().map(DigestTable::unused).sum()
    }

    /// Bytes held by the tables and names.
    pub fn heap_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(DigestTable::heap_bytes)
            .sum::<usize>()
            + self
                .names
                .as_ref()
                .map_or(0, |n| n.bytes.capacity() + n.ends.capacity() * 8)
    }
}
