//! Gathering a hashdeep manifest's piece lines into the entries of their
//! files.

use std::collections::HashMap;

use crate::lines::split_offset;
use crate::pieces::{PieceFault, Pieces};
use crate::recorded::{LineFault, LineProblem, Manifest, Place, Recorded};

/// The pieces of one file while its hashdeep lines are read.
struct Building {
    /// Where its first piece line is, for a fault found once all are read.
    place: Place,
    /// (start, end exclusive) of each piece so far.
    ranges: Vec<(u64, u64)>,
    digests: Vec<Vec<u8>>,
    /// A piece was refused: the file keeps its whole-file line, if any, only.
    broken: bool,
}

/// Gathers a hashdeep manifest's piece lines (`NAME offset START-END`) into
/// the entries of their files, in whatever order files come (hashdeep's
/// threads may interleave them), checking that each file's pieces follow
/// one another from byte 0 without gap or overlap.
#[derive(Default)]
pub(crate) struct Gather {
    /// Name → its entry, the first line for that name.
    files: HashMap<Vec<u8>, usize>,
    /// Entry → its pieces.
    building: HashMap<usize, Building>,
}

impl Gather {
    /// One line's entry, read at `place`; `escaped`: the line was written
    /// escaped, which a piece line never is (see [`crate::lines::hashdeep_line`]).
    pub(crate) fn add(&mut self, r: Recorded, escaped: bool, place: Place, out: &mut Manifest) {
        let piece = if escaped { None } else { split_offset(&r.name) };
        let Some((base, start, end)) = piece else {
            match self.files.get(&r.name) {
                // The file's pieces came first: this is its whole-file line.
                Some(&at) if out.entries[at].digest.is_empty() => {
                    out.entries[at].digest = r.digest;
                    out.entries[at].size = r.size;
                }
                Some(_) => out.entries.push(r),
                None => {
                    self.files.insert(r.name.clone(), out.entries.len());
                    out.entries.push(r);
                }
            }
            return;
        };
        let base = base.to_vec();
        let size = r.size.unwrap_or(0);
        let shown = || String::from_utf8_lossy(&base).into_owned();
        let at = match self.files.get(&base) {
            Some(&at) => at,
            None => {
                let at = out.entries.len();
                self.files.insert(base.clone(), at);
                out.entries.push(Recorded {
                    name: base.clone(),
                    digest: Vec::new(),
                    size: None,
                    ..r.clone()
                });
                at
            }
        };
        let building = self.building.entry(at).or_insert_with(|| Building {
            place,
            ranges: Vec::new(),
            digests: Vec::new(),
            broken: false,
        });
        if building.broken {
            return;
        }
        let fault = if (size == 0 && (start, end) != (0, 0))
            || (size > 0 && end.checked_sub(start).and_then(|d| d.checked_add(1)) != Some(size))
        {
            Some(PieceFault::Span {
                name: shown(),
                start,
                end,
                size,
            })
        } else {
            let this = (start, start + size);
            match (building.ranges.first(), building.ranges.last()) {
                (None, _) if start != 0 => Some(PieceFault::NotFromZero {
                    name: shown(),
                    start,
                }),
                (Some(&first), Some(&last)) => {
                    let shown_last = (last.0, last.1.saturating_sub(1));
                    let piece = first.1 - first.0;
                    if start < last.0 {
                        Some(PieceFault::OutOfOrder {
                            name: shown(),
                            start,
                            after: shown_last,
                        })
                    } else if start < last.1 || last.1 == last.0 {
                        Some(PieceFault::Overlap {
                            name: shown(),
                            start,
                            after: shown_last,
                        })
                    } else if start > last.1 {
                        Some(PieceFault::Gap {
                            name: shown(),
                            first: last.1,
                            last: start - 1,
                        })
                    } else if last.1 - last.0 != piece || this.1 - this.0 > piece || size == 0 {
                        Some(PieceFault::Uneven {
                            name: shown(),
                            start,
                            end,
                            size: piece,
                        })
                    } else {
                        None
                    }
                }
                _ => None,
            }
        };
        match fault {
            Some(fault) => {
                building.broken = true;
                out.problems.push(LineProblem {
                    place,
                    fault: LineFault::Pieces(fault),
                });
            }
            None => {
                building.ranges.push((start, start + size));
                building.digests.push(r.digest);
            }
        }
    }

    /// Puts each file's pieces into its entry; a file whose pieces were
    /// refused keeps its whole-file line alone, or goes where it had none.
    pub(crate) fn finish(self, out: &mut Manifest) {
        let mut gone = vec![false; out.entries.len()];
        for (at, building) in self.building {
            let entry = &mut out.entries[at];
            let covered = building.ranges.last().map_or(0, |r| r.1);
            if !building.broken {
                match entry.size {
                    Some(size) if !entry.digest.is_empty() && size != covered => {
                        out.problems.push(LineProblem {
                            place: building.place,
                            fault: LineFault::Pieces(PieceFault::Total {
                                name: String::from_utf8_lossy(&entry.name).into_owned(),
                                covered,
                                size,
                            }),
                        });
                    }
                    _ => {
                        let first = building.ranges[0];
                        entry.size = Some(covered);
                        entry.pieces = Some(Pieces {
                            size: (first.1 - first.0).max(1),
                            digests: building.digests,
                        });
                    }
                }
            }
            gone[at] = entry.digest.is_empty() && entry.pieces.is_none();
        }
        if gone.contains(&true) {
            let mut i = 0;
            out.entries.retain(|_| {
                i += 1;
                !gone[i - 1]
            });
        }
        // Faults are found file by file; the reader reports them line by line.
        out.problems.sort_by_key(|p| match p.place {
            Place::Line(n) | Place::Entry(n) => n,
        });
    }
}
