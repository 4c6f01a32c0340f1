//! `batchsig sign`: inputs are hashed here (files streamed, in parallel), then signed
//! `--batch` digests per library call. Output bytes: RSA the raw `k`-byte signature, ECDSA
//! DER `SEQUENCE { r, s }` — what `openssl dgst -sign` writes. ECDSA nonces are hedged
//! (RFC 6979 plus fresh randomness), RSA PSS salts as long as the hash.
//!
//! Files: every input is checked before the first is signed; each `FILE.sig` is renamed into
//! place complete. Lines: the JSON lines go to a temporary file renamed over `--out` only
//! after the last record (to stdout they stream), and any item that cannot be signed stops
//! the run (a record missing from the sequence would be worse than no file).

use std::io::Write;
use std::path::PathBuf;

use batchsig::ecdsa::NonceMode;
use batchsig::Backend;

use crate::files::{self, FileMode, Lines, Staged};
use crate::keys::{self, Signer};
use crate::progress::{Progress, Unit};
use crate::{Fatal, Outcome, SignArgs};

/// One signature per digest (or why that job failed); `Err` when the whole batch failed.
pub fn sign_digests(
    signer: &Signer,
    backend: &dyn Backend,
    digests: &[Vec<u8>],
) -> Result<Vec<Result<Vec<u8>, String>>, Fatal> {
    let refs: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
    let fail = |e: batchsig::Error| Fatal(format!("signing failed for the batch: {e}"));
    let sigs: Vec<Result<Vec<u8>, String>> = match signer {
        Signer::Rsa(k, scheme) => k
            .sign_digests_batch(backend, *scheme, &refs)
            .map_err(fail)?
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect(),
        Signer::Ecdsa(k, hash) => k
            .sign_digests_batch(backend, *hash, &refs, NonceMode::Hedged)
            .map_err(fail)?
            .into_iter()
            .map(|r| r.map(|s| s.to_der()).map_err(|e| e.to_string()))
            .collect(),
    };
    if sigs.len() != digests.len() {
        return Err(Fatal(format!(
            "signing returned {} results for {} jobs",
            sigs.len(),
            digests.len()
        )));
    }
    Ok(sigs)
}

pub fn run(args: &SignArgs) -> Result<Outcome, Fatal> {
    let c = &args.common;
    crate::set_threads(c.threads)?; // before anything can start rayon's global pool
    let signer = keys::load_private(&args.key)?.signer(c.scheme, c.hash, c.pss(), &args.key)?;
    let backend = crate::backend(&c.backend)?;
    let batch = c.batch as usize;
    let extra = format!("; {} on backend {}", signer.describe(), backend.name());
    match &args.lines {
        Some(lines) => sign_lines(&signer, &*backend, batch, lines, args.out.as_ref(), &extra),
        None => sign_files(&signer, &*backend, batch, &args.files, &extra),
    }
}

fn sign_files(
    signer: &Signer,
    backend: &dyn Backend,
    batch: usize,
    inputs: &[PathBuf],
    extra: &str,
) -> Result<Outcome, Fatal> {
    use rayon::prelude::*;
    for f in inputs {
        files::check_input(f, "input file")?;
    }
    let mut progress = Progress::new(inputs.len() as u64, Unit::Files);
    let mut outcome = Outcome::default();
    let mut done = 0u64;
    for chunk in inputs.chunks(batch) {
        let digests: Vec<Vec<u8>> = chunk
            .par_iter()
            .map(|f| files::hash_file(signer.hash(), f))
            .collect::<Result<_, Fatal>>()?;
        let sigs = sign_digests(signer, backend, &digests)?;
        let mut signed = 0u64;
        for (f, sig) in chunk.iter().zip(sigs) {
            match sig {
                Ok(sig) => {
                    files::write_atomic(&files::sig_path(f), &sig, FileMode::Public, false)?;
                    signed += 1;
                }
                Err(why) => {
                    eprintln!("{}: FAILED: {why}", f.display());
                    outcome.failed += 1;
                }
            }
        }
        done += chunk.len() as u64;
        progress.advance(signed, done);
    }
    progress.finish("signed", extra);
    if outcome.failed > 0 {
        eprintln!(
            "{} of {} files could not be signed",
            outcome.failed,
            inputs.len()
        );
    }
    Ok(outcome)
}

fn sign_lines(
    signer: &Signer,
    backend: &dyn Backend,
    batch: usize,
    input: &std::path::Path,
    out: Option<&PathBuf>,
    extra: &str,
) -> Result<Outcome, Fatal> {
    use rayon::prelude::*;
    let mut lines = Lines::open(input, "lines file")?;
    let mut staged = out.map(|p| Staged::new(p, FileMode::Public)).transpose()?;
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    let dest = out.map_or("stdout".to_string(), |p| p.display().to_string());
    let mut progress = Progress::new(lines.len, Unit::Bytes);
    let mut index = 0u64;
    loop {
        let msgs = lines.next_batch(batch)?;
        if msgs.is_empty() {
            break;
        }
        let hash = signer.hash();
        let digests: Vec<Vec<u8>> = msgs.par_iter().map(|m| hash.digest(m)).collect();
        let sigs = sign_digests(signer, backend, &digests)?;
        let mut text = String::with_capacity(sigs.len() * 400);
        for sig in sigs {
            match sig {
                Ok(sig) => text.push_str(&files::record_line(index, &sig)),
                Err(why) => {
                    eprintln!(
                        "index {index} (line {} of {}): FAILED: {why}",
                        index + 1,
                        lines.path().display()
                    );
                    eprintln!("stopped: a JSON-lines file with a missing record is not written");
                    return Ok(Outcome { failed: 1 });
                }
            }
            index += 1;
        }
        let w: &mut dyn Write = match staged.as_mut() {
            Some(s) => s.writer(),
            None => &mut stdout,
        };
        w.write_all(text.as_bytes())
            .map_err(|e| Fatal(format!("cannot write to {dest}: {e}")))?;
        progress.advance(msgs.len() as u64, lines.consumed);
    }
    match staged {
        Some(s) => s.commit(true)?,
        None => stdout
            .flush()
            .map_err(|e| Fatal(format!("cannot write to stdout: {e}")))?,
    }
    progress.finish("signed", extra);
    Ok(Outcome::default())
}
