//! Files in and out. Every output is written to a temporary file in the destination's folder
//! and renamed over the destination only once complete, so a failed or interrupted run
//! leaves either the old file or the new one, never a half-written one. Inputs are hashed as
//! they are read (memory stays bounded whatever the file size); lines are read as bytes.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use base64ct::{Base64, Encoding};
use batchsig::HashAlg;
use serde::Deserialize;
use tempfile::NamedTempFile;

use crate::Fatal;

/// Permissions of a written file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileMode {
    /// Private keys: owner only (0600, the temporary file's own mode).
    Secret,
    /// Public keys, signatures, JSON lines: 0644.
    Public,
}

/// A temporary file next to `dest`, renamed over it by [`Staged::commit`]; dropped
/// uncommitted, it is removed.
#[derive(Debug)]
pub struct Staged {
    tmp: NamedTempFile,
    dest: PathBuf,
    mode: FileMode,
}

impl Staged {
    pub fn new(dest: &Path, mode: FileMode) -> Result<Self, Fatal> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".batchsig-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| Fatal(format!("cannot create a file in {}: {e}", dir.display())))?;
        Ok(Self {
            tmp,
            dest: dest.to_path_buf(),
            mode,
        })
    }

    pub fn writer(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    fn io_err(&self, e: impl core::fmt::Display) -> Fatal {
        Fatal(format!("cannot write {}: {e}", self.dest.display()))
    }

    /// Flushes, optionally syncs to disk, sets the mode and renames over the destination.
    pub fn commit(self, sync: bool) -> Result<(), Fatal> {
        self.finish(sync, true)
    }

    fn finish(self, sync: bool, replace: bool) -> Result<(), Fatal> {
        self.tmp.as_file().flush().map_err(|e| self.io_err(e))?;
        if sync {
            self.tmp.as_file().sync_all().map_err(|e| self.io_err(e))?;
        }
        #[cfg(unix)]
        if self.mode == FileMode::Public {
            use std::os::unix::fs::PermissionsExt;
            self.tmp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
                .map_err(|e| self.io_err(e))?;
        }
        let dest = self.dest.clone();
        let persisted = if replace {
            self.tmp.persist(&dest)
        } else {
            self.tmp.persist_noclobber(&dest)
        };
        persisted.map_err(|e| Fatal(format!("cannot write {}: {}", dest.display(), e.error)))?;
        Ok(())
    }
}

/// Writes `data` to `dest` through a [`Staged`] file.
// NOTE: signature files are renamed without an fsync (one per file would bound throughput
// by the disk's sync latency): the rename still guarantees no partial file after a failed
// run; durability across a power loss is left to the filesystem. Keys and JSON-lines
// outputs are synced.
pub fn write_atomic(dest: &Path, data: &[u8], mode: FileMode, sync: bool) -> Result<(), Fatal> {
    let mut s = Staged::new(dest, mode)?;
    s.writer().write_all(data).map_err(|e| s.io_err(e))?;
    s.commit(sync)
}

/// Writes `data` to `dest` (synced) unless `dest` exists, checked at the rename itself.
pub fn write_new(dest: &Path, data: &[u8], mode: FileMode) -> Result<(), Fatal> {
    let mut s = Staged::new(dest, mode)?;
    s.writer().write_all(data).map_err(|e| s.io_err(e))?;
    s.finish(true, false)
}

/// `FILE.sig`.
pub fn sig_path(file: &Path) -> PathBuf {
    let mut s: OsString = file.as_os_str().to_owned();
    s.push(".sig");
    PathBuf::from(s)
}

/// Fails unless `path` is a readable regular file (checked before any work starts, so a
/// missing input stops the run before anything is written).
pub fn check_input(path: &Path, what: &str) -> Result<(), Fatal> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => File::open(path)
            .map(|_| ())
            .map_err(|e| Fatal(format!("cannot read {what} {}: {e}", path.display()))),
        Ok(_) => Err(format!("{what} {} is not a regular file", path.display()).into()),
        Err(e) => Err(format!("cannot read {what} {}: {e}", path.display()).into()),
    }
}

/// `H(contents of path)`, read in blocks.
pub fn hash_file(hash: HashAlg, path: &Path) -> Result<Vec<u8>, Fatal> {
    let err = |e: std::io::Error| Fatal(format!("cannot read {}: {e}", path.display()));
    let f = File::open(path).map_err(err)?;
    hash.digest_reader(f).map_err(err)
}

/// Reads a file one line at a time as bytes, without line endings (`\n`, or `\r\n`); a final
/// line without `\n` counts, and the empty string after a final `\n` does not.
#[derive(Debug)]
pub struct Lines {
    reader: BufReader<File>,
    path: PathBuf,
    /// Bytes consumed so far (for progress).
    pub consumed: u64,
    pub len: u64,
}

impl Lines {
    pub fn open(path: &Path, what: &str) -> Result<Self, Fatal> {
        check_input(path, what)?;
        let err = |e: std::io::Error| Fatal(format!("cannot read {what} {}: {e}", path.display()));
        let f = File::open(path).map_err(err)?;
        let len = f.metadata().map_err(err)?.len();
        Ok(Self {
            reader: BufReader::with_capacity(256 * 1024, f),
            path: path.to_path_buf(),
            consumed: 0,
            len,
        })
    }

    /// The next line, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<Vec<u8>>, Fatal> {
        let mut line = Vec::new();
        let n = self
            .reader
            .read_until(b'\n', &mut line)
            .map_err(|e| Fatal(format!("cannot read {}: {e}", self.path.display())))?;
        if n == 0 {
            return Ok(None);
        }
        self.consumed += n as u64;
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        Ok(Some(line))
    }

    /// Up to `max` lines.
    pub fn next_batch(&mut self, max: usize) -> Result<Vec<Vec<u8>>, Fatal> {
        let mut out = Vec::new();
        while out.len() < max {
            match self.next_line()? {
                Some(l) => out.push(l),
                None => break,
            }
        }
        Ok(out)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// One line of the JSON-lines signature file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub index: u64,
    pub signature: String,
}

/// `{"index": i, "signature": "<base64>"}` and a newline (base64 needs no JSON escaping).
pub fn record_line(index: u64, sig: &[u8]) -> String {
    format!(
        "{{\"index\": {index}, \"signature\": \"{}\"}}\n",
        Base64::encode_string(sig)
    )
}

/// Parses one record line: its index and the decoded signature.
pub fn parse_record(line: &[u8]) -> Result<(u64, Vec<u8>), String> {
    let r: Record =
        serde_json::from_slice(line).map_err(|e| format!("not a signature record: {e}"))?;
    let sig = Base64::decode_vec(&r.signature).map_err(|e| format!("bad base64 signature: {e}"))?;
    Ok((r.index, sig))
}
