//! `hashlab sum`: one manifest line per file.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hashlab::{hex, HashError, HashParams, Hasher, Registry};
use hashlab_integrity::{
    gnu_line, hash_file, hash_reader, tag_line, Hashed, LineStyle, ReadBuffer,
};
use serde::Serialize;

use crate::cli::SumArgs;
use crate::failure::{io_message, Failure};
use crate::output::{render, Tabular};

#[derive(Serialize)]
struct SumRow {
    file: String,
    algorithm: String,
    backend: String,
    bytes: u64,
    digest: String,
}

impl Tabular for SumRow {
    fn headers() -> &'static [&'static str] {
        &["file", "algorithm", "backend", "bytes", "digest"]
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.file.clone(),
            self.algorithm.clone(),
            self.backend.clone(),
            self.bytes.to_string(),
            self.digest.clone(),
        ]
    }
}

/// Turns a parameter error into a usage error that names the option at fault.
pub(crate) fn usage(error: HashError) -> Failure {
    let option = match &error {
        HashError::KeyNotAccepted { .. } | HashError::BadKeyLength { .. } => "--key: ",
        HashError::LengthNotAccepted { .. } | HashError::LengthOutOfRange { .. } => "--length: ",
        HashError::CustomizationNotAccepted { .. } => "--custom: ",
        HashError::UnknownBackend { .. } | HashError::BackendUnavailable { .. } => "--backend: ",
        HashError::NotSupportedByBackend { .. } => "--backend: ",
        _ => "",
    };
    Failure::Usage(format!("{option}{error}"))
}

/// The key and customization string, when given.
pub(crate) type KeyAndCustomization = (Option<Vec<u8>>, Option<Vec<u8>>);

/// `--key`/`--key-file` and `--custom`/`--custom-hex`, decoded; shared with `check`.
pub(crate) fn key_and_customization(
    key: &Option<String>,
    key_file: &Option<PathBuf>,
    custom: &Option<String>,
    custom_hex: &Option<String>,
) -> Result<KeyAndCustomization, Failure> {
    let key = match (key, key_file) {
        (Some(text), _) => {
            Some(hex::decode(text).map_err(|e| Failure::Usage(format!("--key: {e}")))?)
        }
        (None, Some(path)) => Some(std::fs::read(path).map_err(|e| {
            Failure::Usage(format!(
                "--key-file: {}: {}",
                path.display(),
                io_message(&e)
            ))
        })?),
        (None, None) => None,
    };
    let customization = match (custom, custom_hex) {
        (Some(text), _) => Some(text.as_bytes().to_vec()),
        (None, Some(h)) => {
            Some(hex::decode(h).map_err(|e| Failure::Usage(format!("--custom-hex: {e}")))?)
        }
        (None, None) => None,
    };
    Ok((key, customization))
}

fn params(args: &SumArgs) -> Result<HashParams, Failure> {
    let (key, customization) =
        key_and_customization(&args.key, &args.key_file, &args.custom, &args.custom_hex)?;
    Ok(HashParams {
        key,
        length: args.length,
        customization,
        parallel: false,
    })
}

/// The bytes of a path as it was given, for the manifest line.
pub(crate) fn name_bytes(path: &Path) -> Vec<u8> {
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

pub fn run(args: &SumArgs) -> Result<ExitCode, Failure> {
    let registry = Registry::default();
    let algorithm = registry.algorithm(&args.algorithm).map_err(usage)?.clone();
    let mut params = params(args)?;
    let backend = match &args.backend {
        Some(name) => registry.backend(&algorithm.name, name).map_err(usage)?,
        None => registry.default_backend(&algorithm.name).map_err(usage)?.0,
    };
    let strategy =
        hashlab_integrity::ReadStrategy::for_backend(&algorithm.family, backend.parallel);
    params.parallel = strategy.parallel_hash;
    let mut buffer = ReadBuffer::new(strategy.chunk);
    let mut hasher = registry
        .hasher(&algorithm.name, Some(&backend.name), &params)
        .map_err(usage)?;
    let tag = algorithm.tag_for_length(hasher.output_len());
    // xxhsum reads a 16-digit GNU line as XXH64, so XXH3 lines always carry their tag, as xxhsum writes them.
    let style = if args.tag || algorithm.name == "xxh3-64" {
        LineStyle::Tag
    } else {
        LineStyle::Gnu
    };

    let files: Vec<PathBuf> = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files.clone()
    };
    let format = args.format.chosen();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut rows = Vec::new();
    let mut status = ExitCode::SUCCESS;
    for path in &files {
        let result = hash_one(path, hasher.as_mut(), &mut buffer, strategy.read_ahead);
        let name = name_bytes(path);
        match result {
            Ok(Hashed { digest, bytes }) => {
                let hex = digest.to_hex();
                match format {
                    None => {
                        let line = match style {
                            LineStyle::Gnu => gnu_line(&hex, &name),
                            LineStyle::Tag => tag_line(&tag, &name, &hex),
                        };
                        out.write_all(&line).map_err(Failure::from_write)?;
                    }
                    Some(_) => rows.push(SumRow {
                        file: String::from_utf8_lossy(&name).into_owned(),
                        algorithm: algorithm.name.clone(),
                        backend: backend.name.clone(),
                        bytes,
                        digest: hex,
                    }),
                }
            }
            Err(e) => {
                // Lines already written reach the terminal before the complaint.
                out.flush().map_err(Failure::from_write)?;
                eprintln!("hashlab: {}: {}", path.display(), io_message(&e));
                status = ExitCode::from(1);
            }
        }
    }
    if let Some(format) = format {
        out.write_all(&render(&rows, format)?)
            .map_err(Failure::from_write)?;
    }
    out.flush().map_err(Failure::from_write)?;
    Ok(status)
}

fn hash_one(
    path: &Path,
    hasher: &mut dyn Hasher,
    buffer: &mut ReadBuffer,
    read_ahead: bool,
) -> io::Result<Hashed> {
    if path.as_os_str() == "-" {
        return hash_reader(&mut io::stdin().lock(), hasher, buffer);
    }
    hash_file(path, hasher, buffer, read_ahead)
}
