//! Reading a manifest of any form `sum` writes into a [`Listing`]: its
//! files, its columns and the style its new lines are written in.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use hashlab::{Digest, OutputRule, Registry};

use super::listing::{
    bytes_of, fault, path_of, Form, HeldRules, Item, JsonRow, Listed, Listing, Stamp, Style,
    UpdateError,
};
use crate::audit::{is_url_name, key};
use crate::lines::name_from_base64;
use crate::manifest::Framing;
use crate::many::FileDigests;
use crate::plan::{DigestForm, PlanError, SumPlan, SumRequest};
use crate::recorded::{each_line, hashdeep_fields, HashdeepLine, LineFault, Place};

#[derive(Default)]
struct Builder {
    files: Vec<Listed>,
    by_name: HashMap<Vec<u8>, usize>,
    places: Vec<Place>,
    items: Vec<Item>,
}

impl Builder {
    /// The file `name` (listed now at `place`), with one more digest.
    fn add(
        &mut self,
        name: Vec<u8>,
        algorithm: &str,
        digest: Vec<u8>,
        place: Place,
    ) -> Result<usize, UpdateError> {
        let file = match self.by_name.get(&name) {
            Some(&i) => {
                if self.files[i].digests.iter().any(|(a, _)| a == algorithm) {
                    return Err(UpdateError::Duplicate {
                        name: String::from_utf8_lossy(&name).into_owned(),
                        first: self.places[i],
                        again: place,
                    });
                }
                i
            }
            None => {
                self.by_name.insert(name.clone(), self.files.len());
                self.places.push(place);
                self.files.push(Listed {
                    name,
                    digests: Vec::new(),
                    stamp: Stamp::default(),
                });
                self.files.len() - 1
            }
        };
        self.files[file]
            .digests
            .push((algorithm.to_string(), digest));
        Ok(file)
    }
}

impl Listing {
    /// Reads a manifest of any form `sum` writes and `check` reads (GNU,
    /// tagged, SFV, NUL-ended), hashdeep's, or `sum --json`'s. Unlike
    /// `audit`, which reads past a bad line, an update refuses the whole
    /// manifest: the line would be lost or kept stale.
    pub fn read(
        registry: &Registry,
        bytes: &[u8],
        manifest_name: &str,
        framing: Framing,
    ) -> Result<Listing, UpdateError> {
        let (form, builder) = if bytes.starts_with(b"%%%% HASHDEEP-1.0") {
            (Form::Hashdeep, None)
        } else if framing == Framing::Lines && bytes.trim_ascii_start().starts_with(b"[") {
            (Form::Json, Some(read_json(registry, bytes)?))
        } else {
            (
                Form::Lines { framing },
                Some(read_lines(registry, bytes, manifest_name, framing)?),
            )
        };
        let (builder, columns) = match builder {
            Some(b) => {
                let mut columns: Vec<(String, usize)> = Vec::new();
                for file in &b.files {
                    for (algorithm, digest) in &file.digests {
                        if !columns.iter().any(|(a, _)| a == algorithm) {
                            columns.push((algorithm.clone(), digest.len()));
                        } else if !columns.contains(&(algorithm.clone(), digest.len())) {
                            return Err(UpdateError::TwoLengths {
                                algorithm: algorithm.clone(),
                            });
                        }
                    }
                }
                (b, columns)
            }
            None => read_hashdeep(registry, bytes)?,
        };
        let Some(first) = builder.files.first() else {
            return Err(UpdateError::Empty);
        };
        let absolute_names = first.name.starts_with(b"/");
        let dotted_names = first.name.starts_with(b"./");
        Ok(Listing {
            form,
            files: builder.files,
            items: builder.items,
            columns,
            style: Style::default(),
            absolute_names,
            dotted_names,
            held: HeldRules::default(),
        })
    }

    /// A manifest of no entries yet, of lines as `sum` writes them, in the
    /// algorithms and lengths of `columns`: where a program that holds its
    /// entries itself starts ([`Listing::read`] refuses an empty file, which
    /// shows no form).
    pub fn empty(columns: Vec<(String, usize)>) -> Listing {
        Listing {
            form: Form::Lines {
                framing: Framing::Lines,
            },
            files: Vec::new(),
            items: Vec::new(),
            columns,
            style: Style::default(),
            absolute_names: false,
            dotted_names: false,
            held: HeldRules::default(),
        }
    }

    /// The canonical names of the manifest's algorithms.
    pub fn algorithms(&self) -> Vec<String> {
        self.columns.iter().map(|(a, _)| a.clone()).collect()
    }

    /// `base` (backend, parameters, jobs, reading) with what the manifest
    /// decides: its algorithms, their length, hashdeep's form or NUL-ended
    /// lines. Its line style is settled on the plan ([`Listing::settle_style`]).
    pub fn sum_request(
        &self,
        registry: &Registry,
        base: &SumRequest,
    ) -> Result<SumRequest, UpdateError> {
        let mut request = SumRequest {
            algorithms: self.algorithms(),
            hashdeep: self.form == Form::Hashdeep,
            zero_terminated: self.form
                == Form::Lines {
                    framing: Framing::Nul,
                },
            ..base.clone()
        };
        for (algorithm, len) in &self.columns {
            let known = registry
                .algorithm(algorithm)
                .map_err(|e| UpdateError::Plan(e.to_string()))?;
            if !matches!(known.output, OutputRule::Fixed { .. })
                && *len != known.output.default_len()
            {
                match request.params.length {
                    Some(l) if l != *len => {
                        return Err(UpdateError::TwoLengths {
                            algorithm: algorithm.clone(),
                        })
                    }
                    _ => request.params.length = Some(*len),
                }
            }
        }
        Ok(request)
    }

    /// Settles the style new lines are written in, on `plan` (made from
    /// [`Listing::sum_request`]): the first entry line written again in each
    /// style `sum` has, until one gives it back byte for byte. Nothing to
    /// settle for hashdeep's and JSON manifests.
    pub fn settle_style(&mut self, plan: &SumPlan) -> Result<(), UpdateError> {
        if !matches!(self.form, Form::Lines { .. }) {
            return Ok(());
        }
        let (file, raw, place) = self
            .items
            .iter()
            .enumerate()
            .find_map(|(n, item)| match item {
                Item::Line { file, raw } => Some((*file, raw, Place::Line(n as u64 + 1))),
                _ => None,
            })
            .ok_or(UpdateError::Empty)?;
        let listed = &self.files[file];
        let (algorithm, digest) = listed
            .digests
            .iter()
            .find(|(_, d)| raw_holds(raw, d))
            .or(listed.digests.first())
            .ok_or(UpdateError::Empty)?;
        let digests = FileDigests {
            digests: vec![Digest(digest.clone())],
            bytes: 0,
            modified: None,
            inode: None,
            ctime_ns: None,
        };
        let alone = plan
            .alone(algorithm)
            .ok_or_else(|| UpdateError::Plan(format!("{algorithm} is not planned")))?;
        for style in candidate_styles() {
            let Ok(trial) = alone.with_lines(style.tagged, style.sfv, style.digest_form) else {
                continue;
            };
            let Ok(mut line) = trial.lines(&listed.name, &listed.name, &digests) else {
                continue;
            };
            if style.binary {
                mark_binary(&mut line);
            }
            if same_line(&line, raw) {
                self.style = style;
                return Ok(());
            }
        }
        Err(UpdateError::UnwritableForm { place })
    }

    /// `plan` writing lines in the style [`Listing::settle_style`] settled.
    pub fn styled(&self, plan: &SumPlan) -> Result<SumPlan, PlanError> {
        match self.form {
            Form::Lines { .. } => {
                plan.with_lines(self.style.tagged, self.style.sfv, self.style.digest_form)
            }
            Form::Hashdeep | Form::Json => Ok(plan.clone()),
        }
    }

    /// Refuses `asked` (canonical names) unless it is the manifest's set.
    pub fn require_algorithms(&self, asked: &[String]) -> Result<(), UpdateError> {
        let have: HashSet<&str> = self.columns.iter().map(|(a, _)| a.as_str()).collect();
        let want: HashSet<&str> = asked.iter().map(String::as_str).collect();
        if have != want {
            return Err(UpdateError::OtherAlgorithms {
                manifest: self.algorithms(),
                asked: asked.to_vec(),
            });
        }
        Ok(())
    }

    /// How a new file is named, as the manifest names its files.
    pub fn label(&self, walked: &[u8], cwd: &Path) -> Vec<u8> {
        if is_url_name(walked) {
            return walked.to_vec();
        }
        if self.absolute_names && !walked.starts_with(b"/") {
            return bytes_of(&key(&path_of(walked), cwd));
        }
        if !self.dotted_names {
            if let Some(rest) = walked.strip_prefix(b"./") {
                let rest = rest.trim_ascii_start();
                if !rest.is_empty() && !rest.starts_with(b"/") {
                    return rest.to_vec();
                }
            }
        }
        walked.to_vec()
    }
}

pub(super) fn candidate_styles() -> impl Iterator<Item = Style> {
    let mut out = vec![Style {
        sfv: true,
        ..Style::default()
    }];
    for tagged in [false, true] {
        for digest_form in [DigestForm::Hex, DigestForm::Base64] {
            for binary in [false, true] {
                if tagged && binary {
                    continue;
                }
                out.push(Style {
                    tagged,
                    sfv: false,
                    digest_form,
                    binary,
                });
            }
        }
    }
    out.into_iter()
}

/// Whether the raw line holds this digest in hex (to pick, of a file's
/// digests, the one a line records).
pub(super) fn raw_holds(raw: &[u8], digest: &[u8]) -> bool {
    let hex = hashlab::hex::encode(digest);
    raw.to_ascii_lowercase()
        .windows(hex.len())
        .any(|w| w == hex.as_bytes())
}

/// A line equal to another but for a missing final terminator or a CR.
pub(super) fn same_line(written: &[u8], raw: &[u8]) -> bool {
    let trim = |l: &[u8]| -> Vec<u8> {
        let l = l.strip_suffix(b"\n").unwrap_or(l);
        let l = l.strip_suffix(b"\0").unwrap_or(l);
        l.strip_suffix(b"\r").unwrap_or(l).to_vec()
    };
    trim(written) == trim(raw)
}

/// coreutils' `-b`: `<hex> *name` instead of `<hex>  name`, line by line.
pub(super) fn mark_binary(lines: &mut [u8]) {
    let mut start = 0;
    while start < lines.len() {
        let end = lines[start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(lines.len(), |p| start + p + 1);
        if let Some(at) = lines[start..end].windows(2).position(|w| w == b"  ") {
            lines[start + at + 1] = b'*';
        }
        start = end;
    }
}

fn read_lines(
    registry: &Registry,
    bytes: &[u8],
    manifest_name: &str,
    framing: Framing,
) -> Result<Builder, UpdateError> {
    let mut b = Builder::default();
    each_line(
        registry,
        bytes,
        manifest_name,
        None,
        framing,
        |place, raw, read| {
            match read.map_err(|why| fault(place, why))? {
                None => b.items.push(Item::Raw(raw.to_vec())),
                Some((entry, algorithm)) => {
                    if entry.name.is_empty() || entry.name.contains(&0) {
                        return Err(fault(place, LineFault::BadName));
                    }
                    let file = b.add(entry.name, &algorithm.name, entry.expected, place)?;
                    b.items.push(Item::Line {
                        file,
                        raw: raw.to_vec(),
                    });
                }
            }
            Ok(())
        },
    )?;
    Ok(b)
}

fn read_json(registry: &Registry, bytes: &[u8]) -> Result<Builder, UpdateError> {
    let values: Vec<serde_json::Value> =
        serde_json::from_slice(bytes).map_err(|e| UpdateError::Json(e.to_string()))?;
    let mut b = Builder::default();
    for (n, value) in values.into_iter().enumerate() {
        let place = Place::Entry(n as u64 + 1);
        if value.get("pieces").is_some() {
            return Err(UpdateError::Pieces { place });
        }
        let row: JsonRow = serde_json::from_value(value.clone())
            .map_err(|e| fault(place, LineFault::NotAnEntry(e.to_string())))?;
        let algorithm = registry
            .algorithm(&row.algorithm)
            .map_err(|_| fault(place, LineFault::UnknownAlgorithm(row.algorithm.clone())))?;
        let digest =
            hashlab::hex::decode(&row.digest).map_err(|_| fault(place, LineFault::NotHex))?;
        let name = match &row.file_base64 {
            Some(b64) => name_from_base64(b64).ok_or(fault(place, LineFault::BadName))?,
            None => row.file.clone().into_bytes(),
        };
        if name.is_empty() || name.contains(&0) {
            return Err(fault(place, LineFault::BadName));
        }
        let file = b.add(name, &algorithm.name, digest, place)?;
        b.files[file].stamp = row.stamp;
        b.items.push(Item::Json { file, value });
    }
    Ok(b)
}

/// hashdeep's manifest: every column, since an update writes them all.
fn read_hashdeep(
    registry: &Registry,
    bytes: &[u8],
) -> Result<(Builder, Vec<(String, usize)>), UpdateError> {
    let bad = |why: &str| UpdateError::HashdeepHeader(why.to_string());
    let mut b = Builder::default();
    let mut columns: Vec<(String, usize)> = Vec::new();
    for (n, raw) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let place = Place::Line(n as u64 + 1);
        let line = raw.strip_suffix(b"\n").unwrap_or(raw);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if n == 1 {
            let header = line
                .strip_prefix(b"%%%% ")
                .ok_or_else(|| bad("no '%%%% size,...' line after the first"))?;
            let names: Vec<String> = String::from_utf8_lossy(header)
                .split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .collect();
            if names.len() < 3
                || names.first().map(String::as_str) != Some("size")
                || names.last().map(String::as_str) != Some("filename")
            {
                return Err(bad("the columns must be size, digests, filename"));
            }
            for column in &names[1..names.len() - 1] {
                let algorithm = registry
                    .algorithms()
                    .iter()
                    .find(|a| a.hashdeep_column.as_deref() == Some(column.as_str()))
                    .ok_or_else(|| bad(&format!("a column hashlab does not compute: {column}")))?;
                columns.push((algorithm.name.clone(), algorithm.output.default_len()));
            }
        }
        if n < 2 || line.is_empty() || line.starts_with(b"#") || line.starts_with(b"%") {
            b.items.push(Item::Raw(raw.to_vec()));
            continue;
        }
        let digests = columns.len();
        let HashdeepLine {
            size,
            digests: fields,
            name,
            escaped,
        } = hashdeep_fields(line, digests).map_err(|why| fault(place, why))?;
        if !escaped && crate::lines::names_a_piece(&name) {
            return Err(UpdateError::Pieces { place });
        }
        if b.by_name.contains_key(&name) {
            let first = b.places[b.by_name[&name]];
            return Err(UpdateError::Duplicate {
                name: String::from_utf8_lossy(&name).into_owned(),
                first,
                again: place,
            });
        }
        let mut file = None;
        for (i, (algorithm, len)) in columns.iter().enumerate() {
            let digest = std::str::from_utf8(fields[i])
                .ok()
                .and_then(|hex| hashlab::hex::decode(hex).ok())
                .filter(|d| d.len() == *len)
                .ok_or(fault(place, LineFault::NotHex))?;
            file = Some(b.add(name.clone(), algorithm, digest, place)?);
        }
        let file = file.expect("hashdeep manifests have a digest column");
        b.files[file].stamp.size = Some(size);
        b.items.push(Item::Line {
            file,
            raw: raw.to_vec(),
        });
    }
    if columns.is_empty() {
        return Err(bad("no '%%%% size,...' line after the first"));
    }
    Ok((b, columns))
}
