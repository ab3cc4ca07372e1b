//! File integrity on top of the `hashlab` registry: how files are read, how
//! manifest lines are written so that coreutils, b2sum, b3sum, xxhsum and
//! rhash (SFV) read them, how manifests those tools write are read back and verified,
//! and how known-hash sets (those manifests, NSRL's RDS v3) are held for lookups.
//! Prints nothing; returns data and errors for the caller to present.

mod ambiguity;
mod audit;
pub mod bounded;
mod cancel;
mod check;
mod hashed;
mod inputs;
mod known;
mod lines;
mod lock;
mod manifest;
mod many;
#[cfg(unix)]
mod mapped;
mod outfile;
#[cfg(unix)]
pub mod pagecache;
mod pieces;
mod plan;
mod read;
mod recorded;
mod rows;
mod stdin;
mod update;
mod walk;

pub use ambiguity::{candidates as untagged_candidates, cksum_candidates, Settlement};
pub use audit::{
    audit, audit_with, is_url_name, records_size_or_time, AuditError, AuditReport, AuditScope,
    RemoteHash,
};
pub use audit::{verdict_words, AuditCounts, AuditRow, ManifestAudit, RowStatus};
pub use cancel::{is_interrupted, Cancel, Interrupted};
pub use check::{
    algorithm_from_manifest_name, manifest_hint, manifest_shape, verdict_line, CheckError,
    CheckOptions, Checker, EntryCheckError, EntryChecker, EntryVerdict, LineResult, ManifestForm,
    ManifestHint, ManifestShape, Opener, Outcome, ProblemCount, Summary, Unsettled,
};
pub use inputs::{local_inputs, InputNames, InputRules, InputsError, Named, Segment, StoreDigest};
pub use known::{
    load_set, load_set_from, DigestTable, Group, Hit, KnownBuilder, KnownError, KnownHash,
    KnownPlan, KnownSets, Lookup, NsrlBound, NsrlError, SetForm, SetOptions, SetReport,
    MAX_ENTRIES, MAX_NSRL_ROWS,
};
pub use lines::{
    escape_name, escape_name_as, escaping_for, gnu_line, gnu_line_as, hashdeep_line, name_base64,
    name_from_base64, sfv_banner, sfv_comment, sfv_line, tag_line, LineStyle, NameEscaping,
    UnwritableName,
};
pub use lock::{lock_manifest, LockError, ManifestLock};
pub use manifest::{
    display_name, parse_line, parse_record, parse_sfv_line, resolve_tag, sfv_algorithm, Entry,
    Framing, GnuLine, GnuReading, Line, TagHint,
};
pub use many::{
    hash_input, hash_inputs, inode_and_ctime_ns, mtime_ns, Fanout, FileDigests, HashJob, MAX_JOBS,
};
pub use outfile::{io_message, write_file, OutputError, OutputFile, WriteMode};
pub use pieces::{
    audit_pieces, compare_file, hash_inputs_in_pieces, hashdeep_piece_lines, parse_piece_size,
    ChangedPieces, Comparer, Comparison, EntryHasher, JsonPieces, PieceDigests, PieceFault,
    PieceOnly, PieceSizeError, Pieces, Ranges, UnwritablePieces, MAX_PIECES,
};
pub use plan::{plans, Column, DigestForm, PlanError, SumPlan, SumRequest, DEFAULT_ALGORITHM};
pub use read::{hash_file, hash_reader, hash_reader_read_ahead, Hashed, ReadBuffer, ReadStrategy};
pub use recorded::{
    read_manifest, LineFault, LineProblem, Manifest, ManifestError, Place, ReadOptions, Recorded,
    MAX_ALGORITHMS, MAX_DIGEST_BYTES,
};
pub use rows::{LengthFirst, PieceRow};
pub use stdin::StandardInput;
pub use update::{
    own_files, sidecar_path, update_tree, update_tree_with, write_updated, Form as ListingForm,
    HeldRules, JsonRow, Known, Listed, Listing, Pending, PrepareError, Seen, Sidecar, SidecarEntry,
    SidecarRead, Stamp, TreeUpdate, UpdateError, UpdateReport, Updated,
};
pub use walk::{
    exclude_set, expand, first_files, on_rotating_disk, parse_file_list, reads_from_spinning_disk,
    FileSystemLoop, Input, WalkOptions,
};
