//! The names a hashing run is given, told apart into local files and
//! object-store URLs once, and the options that depend on which of them
//! there are checked against them before anything is read.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::update::own_files;
use crate::walk::{expand, Input, WalkOptions};

/// The names of one run, each known as a local name or an object-store URL.
/// Which schemes are stores is the caller's to say (the store clients live
/// above this crate).
#[derive(Debug, Clone)]
pub struct InputNames {
    names: Vec<PathBuf>,
    urls: Vec<bool>,
}

/// What the run asks that only some inputs allow.
#[derive(Debug, Clone, Default)]
pub struct InputRules<'a> {
    /// Digests written as raw bytes, which cannot be told apart in a row.
    pub raw: bool,
    /// Each object's ETag checked against the digests read.
    pub verify_etag: bool,
    /// The digest a store records, read instead of the object: the
    /// algorithms a store records, and those the run computes.
    pub from_store: Option<StoreDigest<'a>>,
    /// Git object ids, which name files.
    pub git: bool,
}

/// `InputRules::from_store`: what the stores record, against what is asked.
#[derive(Debug, Clone)]
pub struct StoreDigest<'a> {
    pub recordable: &'a [&'a str],
    pub algorithms: Vec<String>,
    /// Whether a key, a length or another parameter is given, which no
    /// recorded digest has.
    pub with_parameters: bool,
}

/// Inputs that do not fit what the run asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputsError {
    /// Raw digests of more than one input.
    RawOfMany,
    /// Raw digests of a URL, which may name many objects.
    RawOfUrl,
    /// ETags to verify, and no URL.
    NoUrlToVerify,
    /// A store's recorded digest asked of a local file.
    LocalFromStore,
    /// A store's recorded digest asked for more than one algorithm, one no
    /// store records, or with parameters.
    NotRecorded { recordable: Vec<String> },
    /// Git object ids of an object-store URL.
    GitOfUrl,
    /// Pieces of an object-store URL.
    PiecesOfUrl { url: String },
    /// Local names and URLs in one update (a manifest describes one tree).
    Mixed,
}

impl fmt::Display for InputsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputsError::RawOfMany => write!(f, "raw digests of more than one input"),
            InputsError::RawOfUrl => write!(f, "raw digests of an object-store URL"),
            InputsError::NoUrlToVerify => write!(f, "no object-store URL whose ETag to verify"),
            InputsError::LocalFromStore => write!(f, "a local file has no store to ask"),
            InputsError::NotRecorded { recordable } => write!(
                f,
                "stores record one algorithm, without key or length: {}",
                recordable.join(", ")
            ),
            InputsError::GitOfUrl => write!(f, "git object ids of an object-store URL"),
            InputsError::PiecesOfUrl { url } => {
                write!(f, "{url}: pieces are hashed of local files only")
            }
            InputsError::Mixed => write!(f, "local names and object-store URLs in one manifest"),
        }
    }
}

impl std::error::Error for InputsError {}

/// The runs of one hashing job in the order given: local inputs (walked)
/// and object-store URLs (each a prefix, listed when hashed).
#[derive(Debug)]
pub enum Segment {
    Local(Vec<Input>),
    Objects(Vec<String>),
}

impl InputNames {
    /// `names`, each a URL where `is_url` says so.
    pub fn new(names: Vec<PathBuf>, is_url: impl Fn(&str) -> bool) -> InputNames {
        let urls = names
            .iter()
            .map(|n| n.to_str().is_some_and(&is_url))
            .collect();
        InputNames { names, urls }
    }

    pub fn names(&self) -> &[PathBuf] {
        &self.names
    }

    fn any_url(&self) -> bool {
        self.urls.iter().any(|&u| u)
    }

    fn any_local(&self) -> bool {
        self.urls.iter().any(|&u| !u)
    }

    /// Raw digests take one input: the bytes of two could not be told apart
    /// (as cksum refuses). Checked before the walk is, as the count alone decides.
    pub fn fit_raw(&self, raw: bool) -> Result<(), InputsError> {
        if raw && self.names.len() > 1 {
            return Err(InputsError::RawOfMany);
        }
        Ok(())
    }

    /// The rules that depend on whether any name is a URL, or local.
    pub fn fit(&self, rules: &InputRules) -> Result<(), InputsError> {
        let (any_url, any_local) = (self.any_url(), self.any_local());
        if rules.raw && any_url {
            return Err(InputsError::RawOfUrl);
        }
        if rules.verify_etag && !any_url {
            return Err(InputsError::NoUrlToVerify);
        }
        if let Some(store) = &rules.from_store {
            if any_local {
                return Err(InputsError::LocalFromStore);
            }
            let recorded = match store.algorithms.as_slice() {
                [one] => store.recordable.contains(&one.as_str()) && !store.with_parameters,
                _ => false,
            };
            if !recorded {
                return Err(InputsError::NotRecorded {
                    recordable: store.recordable.iter().map(|s| s.to_string()).collect(),
                });
            }
        }
        if rules.git && any_url {
            return Err(InputsError::GitOfUrl);
        }
        Ok(())
    }

    /// Pieces are hashed of local names only.
    pub fn fit_pieces(&self) -> Result<(), InputsError> {
        match self.urls.iter().position(|&u| u) {
            Some(i) => Err(InputsError::PiecesOfUrl {
                url: self.names[i].to_string_lossy().into_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Whether an update reads object-store URLs (all of them are) or
    /// local names (none is); both at once is refused.
    pub fn all_urls(&self) -> Result<bool, InputsError> {
        match (self.any_url(), self.any_local()) {
            (true, true) => Err(InputsError::Mixed),
            (urls, _) => Ok(urls),
        }
    }

    /// The runs of the names, local ones walked; a tree that holds the
    /// manifest being written (`output`) hashes neither it nor the
    /// temporary file that replaces it.
    pub fn segments(&self, walk: &WalkOptions, output: Option<&Path>) -> Vec<Segment> {
        let mut out: Vec<Segment> = Vec::new();
        let mut local: Vec<PathBuf> = Vec::new();
        for (name, &url) in self.names.iter().zip(&self.urls) {
            if !url {
                local.push(name.clone());
                continue;
            }
            if !local.is_empty() {
                out.push(Segment::Local(expand(&std::mem::take(&mut local), walk)));
            }
            let url = name.to_string_lossy().into_owned();
            match out.last_mut() {
                Some(Segment::Objects(urls)) => urls.push(url),
                _ => out.push(Segment::Objects(vec![url])),
            }
        }
        if !local.is_empty() {
            out.push(Segment::Local(expand(&local, walk)));
        }
        if let Some(output) = output {
            let own = own_files(output);
            for segment in &mut out {
                if let Segment::Local(inputs) = segment {
                    inputs.retain(|i| !matches!(i, Input::File(p) if own(p)));
                }
            }
        }
        out
    }
}

/// The local inputs of `segments`, in order.
pub fn local_inputs(segments: &[Segment]) -> Vec<&Input> {
    segments
        .iter()
        .flat_map(|s| match s {
            Segment::Local(inputs) => inputs.iter().collect(),
            Segment::Objects(_) => Vec::new(),
        })
        .collect()
}

/// How an input is named: in its manifest line (`label`), in messages
/// (`shown`), and as hashdeep writes and `hashdeep -a -k` (without `-l`)
/// matches it, absolute (`absolute`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub label: Vec<u8>,
    pub shown: String,
    pub absolute: Vec<u8>,
}

impl Named {
    /// `input`'s names; standard input is labelled `stdin_label` (`-`
    /// unless the program writes another name) and shown as `-`.
    pub fn of(input: &Input, stdin_label: &[u8]) -> Named {
        let (path, label): (PathBuf, Vec<u8>) = match input {
            Input::File(p) | Input::Problem(p, _) => (p.clone(), path_bytes(p)),
            Input::Stdin => (PathBuf::from("-"), stdin_label.to_vec()),
        };
        let absolute = match input {
            Input::File(p) if !p.is_absolute() => std::env::current_dir()
                .map(|d| path_bytes(&d.join(p)))
                .unwrap_or_else(|_| label.clone()),
            _ => label.clone(),
        };
        Named {
            label,
            shown: path.display().to_string(),
            absolute,
        }
    }
}

/// A path's bytes as the OS holds them.
fn path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> InputNames {
        InputNames::new(list.iter().map(PathBuf::from).collect(), |n| {
            n.starts_with("s3://")
        })
    }

    #[test]
    fn raw_takes_one_input_and_no_url() {
        assert_eq!(
            names(&["a", "b"]).fit_raw(true),
            Err(InputsError::RawOfMany)
        );
        assert_eq!(names(&["a", "b"]).fit_raw(false), Ok(()));
        let raw = InputRules {
            raw: true,
            ..InputRules::default()
        };
        assert_eq!(names(&["s3://b/k"]).fit(&raw), Err(InputsError::RawOfUrl));
        assert_eq!(names(&["a"]).fit(&raw), Ok(()));
    }

    #[test]
    fn a_store_digest_needs_urls_only_and_one_recorded_algorithm() {
        let rules = |algorithms: &[&str], with_parameters| InputRules {
            from_store: Some(StoreDigest {
                recordable: &["crc32c", "sha256"],
                algorithms: algorithms.iter().map(|a| a.to_string()).collect(),
                with_parameters,
            }),
            ..InputRules::default()
        };
        let urls = names(&["s3://b/p"]);
        assert_eq!(urls.fit(&rules(&["sha256"], false)), Ok(()));
        assert_eq!(
            names(&["s3://b/p", "local"]).fit(&rules(&["sha256"], false)),
            Err(InputsError::LocalFromStore)
        );
        let refused = Err(InputsError::NotRecorded {
            recordable: vec!["crc32c".into(), "sha256".into()],
        });
        assert_eq!(urls.fit(&rules(&["blake3"], false)), refused);
        assert_eq!(urls.fit(&rules(&["sha256", "crc32c"], false)), refused);
        assert_eq!(urls.fit(&rules(&["sha256"], true)), refused);
    }

    #[test]
    fn etags_need_a_url_and_git_ids_refuse_one() {
        let verify = InputRules {
            verify_etag: true,
            ..InputRules::default()
        };
        assert_eq!(names(&["a"]).fit(&verify), Err(InputsError::NoUrlToVerify));
        let git = InputRules {
            git: true,
            ..InputRules::default()
        };
        assert_eq!(
            names(&["a", "s3://b"]).fit(&git),
            Err(InputsError::GitOfUrl)
        );
        assert_eq!(names(&["a"]).fit(&git), Ok(()));
    }

    #[test]
    fn pieces_and_updates_refuse_what_they_cannot_read() {
        assert_eq!(names(&["a"]).fit_pieces(), Ok(()));
        assert_eq!(
            names(&["a", "s3://b/k"]).fit_pieces(),
            Err(InputsError::PiecesOfUrl {
                url: "s3://b/k".into()
            })
        );
        assert_eq!(names(&["s3://b", "s3://c"]).all_urls(), Ok(true));
        assert_eq!(names(&["a"]).all_urls(), Ok(false));
        assert_eq!(names(&["a", "s3://c"]).all_urls(), Err(InputsError::Mixed));
    }

    #[test]
    fn segments_keep_the_order_given_and_group_neighbouring_urls() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        let file = file.to_str().unwrap();
        let given = names(&["s3://a", "s3://b", file, "s3://c"]);
        let segments = given.segments(&WalkOptions::default(), None);
        let shape: Vec<String> = segments
            .iter()
            .map(|s| match s {
                Segment::Local(inputs) => format!("local {}", inputs.len()),
                Segment::Objects(urls) => urls.join(" "),
            })
            .collect();
        assert_eq!(shape, ["s3://a s3://b", "local 1", "s3://c"]);
        assert_eq!(local_inputs(&segments).len(), 1);
        // The manifest being written is not hashed into itself.
        let own = given.segments(&WalkOptions::default(), Some(Path::new(file)));
        assert!(local_inputs(&own).is_empty());
    }

    #[test]
    fn an_input_is_labelled_as_given_and_absolute_for_hashdeep() {
        let named = Named::of(&Input::File(PathBuf::from("dir/f")), b"-");
        assert_eq!(named.label, b"dir/f");
        assert_eq!(named.shown, "dir/f");
        let cwd = std::env::current_dir().unwrap().join("dir/f");
        assert_eq!(named.absolute, path_bytes(&cwd));
        let stdin = Named::of(&Input::Stdin, b"(stdin)");
        assert_eq!(
            (stdin.label.as_slice(), stdin.shown.as_str()),
            (&b"(stdin)"[..], "-")
        );
        assert_eq!(stdin.absolute, b"(stdin)");
    }
}
