//! Segments: the immutable output of one ingest. A segment directory holds
//! `segment.json` and one or more parts (`part-N/`), each a self-contained index over
//! its documents (term dictionaries + postings per field, dedup keys, record store).
//! Parts bound the writer's memory: a part is flushed every `part_docs` records.

use crate::bytes::Bytes;
use crate::dedup::{DedupKeys, KeyLines};
use crate::keys::Removed;
use crate::error::{EngineError, Result};
use crate::fields::{email_domain, index_name, DOMAIN, EMAIL, EMAIL_DOMAIN, FIELD_COUNT, INDEXED_FIELDS, DERIVED_TABLES, PASSWORD, PASSWORD_NTLM, PASSWORD_SHA1, PASSWORD_SHA256, USERNAME};
use crate::postings;
use crate::store::{StoreReader, StoreWriter};
use crate::termdict::{self, prefix8, TermDict};
use crate::source::{Format, LineContext};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Written by this engine. 2 added trigram indexes (`<field>.tri`) and merged segments
/// (`sources` in segment.json); 3 added the derived password tables (`password_sha256`,
/// `password_sha1`, see `write_derived`); 4 changed the store (`store/`), front-codes the
/// term tables (`<field>.tfc`, see `termdict`) and more (FORMAT.md); 5 writes the derived
/// password tables' digests in binary (`.dig`, see `PordTable`); 6 keeps only their first
/// 4 bytes (`DIG_PREFIX`); 7 writes store blocks with varint lengths (`store/`) and
/// Rice-codes sparse trigram lists (`trigram::rice_encode`); 8 keeps store blocks as bare
/// zstd blocks with a grouped block map (`store/`, `zstd_block.rs`); 9 writes `.pix` blocks
/// of up to 64 terms, each with its `.post` offset (`postings::PixBuilder`); 10 keeps a short
/// dedup key per record and the whole key only of the records that are not the first with
/// theirs (`dedup.rs`); 11 writes no `email_local` table but the local parts' trigrams
/// beside the emails' (`email.ltri`, `trigram::write_local`); 12 adds the derived
/// `password_ntlm` table (`write_derived`). Formats 6 to 11 are read as they are
/// (`MIN_FORMAT_VERSION`); a part without `password_ntlm` answers no NTLM lookup until a
/// merge or `merge::upgrade` rewrites it, which derives the table.
pub const FORMAT_VERSION: u64 = 12;
/// The oldest format this engine reads: formats 6 to 11 are served as they are and
/// rewritten in the current format by `merge::upgrade` (`npm run admin -- index:upgrade`);
/// older ones are refused (`check_version`). docs/decisions/0018-index-upgrade-and-old-formats.md.
pub const MIN_FORMAT_VERSION: u64 = 6;

/// The directory of published segment `id` in index `index`.
pub fn segment_dir(index: &Path, id: &str) -> PathBuf {
    index.join(format!("seg-{}", id))
}

pub fn readable_version(v: Option<u64>) -> bool {
    matches!(v, Some(x) if (MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&x))
}

/// Ok when this engine reads format `v` of `what` (the MANIFEST, a segment, a part); else
/// the error that says what to do: an older format is re-ingested, or rewritten first by a
/// release that still reads it; a newer one needs a newer release.
pub fn check_version(v: u64, what: &str) -> Result<()> {
    if v < MIN_FORMAT_VERSION {
        return Err(EngineError::Format(format!(
            "{what} is in index format {v}, which this engine no longer reads (it reads formats {MIN_FORMAT_VERSION} to {FORMAT_VERSION}): \
             re-ingest its data, or rewrite the index with a release whose engine reads format {v} \
             (`npm run ingest -- --merge`), then run `npm run admin -- index:upgrade`"
        )));
    }
    if v > FORMAT_VERSION {
        return Err(EngineError::Format(format!("{what} is in index format {v}, newer than this engine's {FORMAT_VERSION}: run a newer release")));
    }
    Ok(())
}

mod meta;
mod part;
mod reader;
mod writer;
#[cfg(test)]
mod tests;

pub use meta::*;
pub use part::*;
pub use reader::*;
pub use writer::*;
