//! `batchsig verify`: one report line per item on stdout (`NAME: ok` or `NAME: FAILED:
//! reason`), `--batch` jobs per library call. A signature that does not verify, or does not
//! even parse (wrong length, bad DER), is an item failure (exit status 1); a missing file, an
//! unreadable key or a malformed JSON-lines record is an input error (exit status 2).
//!
//! Lines: the records of `--sigs` are read in step with the lines of `--lines`; record `i`
//! must carry `"index": i` (the order `sign --lines` writes), and both files must end together.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use batchsig::ecdsa::EcdsaSignature;
use batchsig::rsa::RsaVerifyJob;
use batchsig::{Backend, Error};

use crate::files::{self, Lines};
use crate::keys::{self, Verifier};
use crate::progress::{Progress, Unit};
use crate::{Fatal, Outcome, VerifyArgs};

fn reason(e: &Error) -> String {
    match e {
        Error::InvalidSignature => "signature does not match the message and key".to_string(),
        e => e.to_string(),
    }
}

/// Per job `Ok(())` or why it failed; `Err` when the whole batch failed.
pub fn verify_digests(
    verifier: &Verifier,
    backend: &dyn Backend,
    digests: &[Vec<u8>],
    sigs: &[Vec<u8>],
) -> Result<Vec<Result<(), String>>, Fatal> {
    let fail = |e: Error| Fatal(format!("verification failed for the batch: {e}"));
    match verifier {
        Verifier::Rsa(k, scheme) => {
            let jobs: Vec<RsaVerifyJob<'_>> = digests
                .iter()
                .zip(sigs)
                .map(|(d, s)| RsaVerifyJob {
                    key: k,
                    digest: d,
                    signature: s,
                })
                .collect();
            let res = batchsig::rsa::verify_batch(backend, *scheme, &jobs).map_err(fail)?;
            if res.len() != jobs.len() {
                return Err(Fatal(format!(
                    "verification returned {} results for {} jobs",
                    res.len(),
                    jobs.len()
                )));
            }
            Ok(res.into_iter().map(|r| r.map_err(|e| reason(&e))).collect())
        }
        Verifier::Ecdsa(k, hash) => {
            // Signatures that do not parse fail here; the rest go to the backend.
            let mut out: Vec<Result<(), String>> = Vec::with_capacity(sigs.len());
            let (mut idx, mut ds, mut parsed) = (Vec::new(), Vec::new(), Vec::new());
            for (i, (d, s)) in digests.iter().zip(sigs).enumerate() {
                match EcdsaSignature::from_der(k.curve(), s) {
                    Ok(sig) => {
                        out.push(Ok(()));
                        idx.push(i);
                        ds.push(d.as_slice());
                        parsed.push(sig);
                    }
                    Err(e) => out.push(Err(reason(&e))),
                }
            }
            if !parsed.is_empty() {
                let res = k
                    .verify_digests_batch(backend, *hash, &ds, &parsed)
                    .map_err(fail)?;
                if res.len() != idx.len() {
                    return Err(Fatal(format!(
                        "verification returned {} results for {} jobs",
                        res.len(),
                        idx.len()
                    )));
                }
                for (i, r) in idx.into_iter().zip(res) {
                    out[i] = r.map_err(|e| reason(&e));
                }
            }
            Ok(out)
        }
    }
}

pub fn run(args: &VerifyArgs) -> Result<Outcome, Fatal> {
    let c = &args.common;
    crate::set_threads(c.threads)?; // before anything can start rayon's global pool
    let verifier = keys::load_public(&args.key)?.verifier(c.scheme, c.hash, c.pss(), &args.key)?;
    let backend = crate::backend(&c.backend)?;
    let batch = c.batch as usize;
    let extra = format!("{} on backend {}", verifier.describe(), backend.name());
    match (&args.lines, &args.sigs) {
        (Some(lines), Some(sigs)) => verify_lines(&verifier, &*backend, batch, lines, sigs, &extra),
        (Some(_), None) => Err("--lines needs --sigs FILE (the JSON lines to check)".into()),
        (None, _) => verify_files(&verifier, &*backend, batch, args, &extra),
    }
}

fn report(out: &mut impl Write, name: &str, r: &Result<(), String>) -> Result<(), Fatal> {
    match r {
        Ok(()) => writeln!(out, "{name}: ok"),
        Err(why) => writeln!(out, "{name}: FAILED: {why}"),
    }
    .map_err(|e| Fatal(format!("cannot write to stdout: {e}")))
}

fn finish(progress: Progress, total: u64, failed: usize, extra: &str) -> Outcome {
    let ok = total - failed as u64;
    progress.finish("verified", &format!(": {ok} ok, {failed} FAILED; {extra}"));
    Outcome { failed }
}

fn verify_files(
    verifier: &Verifier,
    backend: &dyn Backend,
    batch: usize,
    args: &VerifyArgs,
    extra: &str,
) -> Result<Outcome, Fatal> {
    use rayon::prelude::*;
    if args.sig.is_some() && args.files.len() != 1 {
        return Err(format!(
            "--sig names the signature of a single FILE, but {} files were given (each FILE \
             is otherwise checked against FILE.sig)",
            args.files.len()
        )
        .into());
    }
    let pairs: Vec<(PathBuf, PathBuf)> = args
        .files
        .iter()
        .map(|f| {
            let sig = args.sig.clone().unwrap_or_else(|| files::sig_path(f));
            files::check_input(f, "input file")?;
            files::check_input(&sig, "signature file")?;
            Ok((f.clone(), sig))
        })
        .collect::<Result<_, Fatal>>()?;
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    let mut progress = Progress::new(pairs.len() as u64, Unit::Files);
    let (mut failed, mut done) = (0usize, 0u64);
    for chunk in pairs.chunks(batch) {
        let read: Vec<(Vec<u8>, Vec<u8>)> = chunk
            .par_iter()
            .map(|(f, s)| {
                let d = files::hash_file(verifier.hash(), f)?;
                let sig = std::fs::read(s).map_err(|e| {
                    Fatal(format!("cannot read signature file {}: {e}", s.display()))
                })?;
                Ok((d, sig))
            })
            .collect::<Result<_, Fatal>>()?;
        let (digests, sigs): (Vec<_>, Vec<_>) = read.into_iter().unzip();
        let results = verify_digests(verifier, backend, &digests, &sigs)?;
        for ((f, _), r) in chunk.iter().zip(&results) {
            report(&mut stdout, &f.display().to_string(), r)?;
            failed += usize::from(r.is_err());
        }
        stdout
            .flush()
            .map_err(|e| Fatal(format!("cannot write to stdout: {e}")))?;
        done += chunk.len() as u64;
        progress.advance(chunk.len() as u64, done);
    }
    Ok(finish(progress, done, failed, extra))
}

/// The next record of the signature file, which must carry `expected` as its index.
fn next_record(sigs: &mut Lines, expected: u64, messages: &Path) -> Result<Vec<u8>, Fatal> {
    let line = loop {
        match sigs.next_line()? {
            Some(l) if l.iter().all(u8::is_ascii_whitespace) => continue,
            Some(l) => break l,
            None => {
                return Err(format!(
                    "{} ends after {expected} records, but {} has more lines",
                    sigs.path().display(),
                    messages.display()
                )
                .into())
            }
        }
    };
    let (index, sig) = files::parse_record(&line).map_err(|e| {
        Fatal(format!(
            "{}, record {}: {e}",
            sigs.path().display(),
            expected + 1
        ))
    })?;
    if index != expected {
        return Err(format!(
            "{}, record {}: index {index} where {expected} was expected (one record per line \
             of {}, in order)",
            sigs.path().display(),
            expected + 1,
            messages.display()
        )
        .into());
    }
    Ok(sig)
}

fn verify_lines(
    verifier: &Verifier,
    backend: &dyn Backend,
    batch: usize,
    lines_path: &Path,
    sigs_path: &Path,
    extra: &str,
) -> Result<Outcome, Fatal> {
    use rayon::prelude::*;
    let mut lines = Lines::open(lines_path, "lines file")?;
    let mut sigs = Lines::open(sigs_path, "signatures file")?;
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    let mut progress = Progress::new(lines.len, Unit::Bytes);
    let (mut failed, mut index) = (0usize, 0u64);
    loop {
        let msgs = lines.next_batch(batch)?;
        if msgs.is_empty() {
            break;
        }
        let sig_batch: Vec<Vec<u8>> = (0..msgs.len() as u64)
            .map(|i| next_record(&mut sigs, index + i, lines_path))
            .collect::<Result<_, Fatal>>()?;
        let hash = verifier.hash();
        let digests: Vec<Vec<u8>> = msgs.par_iter().map(|m| hash.digest(m)).collect();
        let results = verify_digests(verifier, backend, &digests, &sig_batch)?;
        for r in &results {
            report(&mut stdout, &format!("index {index}"), r)?;
            failed += usize::from(r.is_err());
            index += 1;
        }
        stdout
            .flush()
            .map_err(|e| Fatal(format!("cannot write to stdout: {e}")))?;
        progress.advance(msgs.len() as u64, lines.consumed);
    }
    while let Some(l) = sigs.next_line()? {
        if !l.iter().all(u8::is_ascii_whitespace) {
            return Err(format!(
                "{} has more records than {} has lines ({index})",
                sigs_path.display(),
                lines_path.display()
            )
            .into());
        }
    }
    Ok(finish(progress, index, failed, extra))
}
