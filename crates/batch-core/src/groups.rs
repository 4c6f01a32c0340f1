//! The batch plumbing of the lane-parallel (SIMD) modexp backends: validate, bucket jobs by
//! kernel width and exponent length (both public), cut buckets into groups of `lanes` jobs,
//! run groups in parallel on the current rayon pool, and run a short leftover on the
//! backend's few-job form ([`LaneKernel::run_few`]) or the scalar kernel instead of a padded
//! group. Each modulus is prepared once, for the path that uses
//! it (the lanes' digit form, the scalar tail's constants, or both), in parallel, by the
//! variable-time setup in a `_vartime` batch, whose moduli are public.
//!
//! A group that is not full is padded with copies of its last job (their lanes are dropped).
//! Invalid jobs get the same errors as the scalar backend, in the same order of checks.

use std::collections::BTreeMap;

use rayon::prelude::*;

use std::sync::Arc;

use crate::backend::{check_modexp_job, check_modulus, ModexpJob, ModulusCache, MAX_MODULUS_BITS};
use crate::error::{Error, JobResult};
use crate::num::digits::ModulusDigits;
use crate::num::{bits_public, DynMonty, MontKernel};

/// How a backend groups its jobs.
pub trait LaneKernel: Sync {
    /// The kernel width (in digits) that holds a modulus of `bits` bits.
    fn width(&self, bits: usize) -> usize;
    /// Prepares a modulus (validated) for kernel width `digits`; called only for moduli that
    /// a group or the few-job form uses, or a cached one (without caches, a batch whose jobs
    /// all run on the scalar tail builds no digit form).
    /// `vartime`: the batch is a `_vartime` one, whose moduli are public, so the setup may
    /// take variable time ([`ModulusDigits::new_vartime`]); otherwise it must be
    /// constant-time ([`ModulusDigits::new`]: RSA-CRT primes are secret).
    fn prepare(&self, m: &[u64], digits: usize, vartime: bool) -> Result<ModulusDigits, Error>;
    /// Bits per digit of the prepared form (the key of a [`ModulusCache`] entry, with the width).
    fn digit_bits(&self) -> usize;
    /// Jobs per group at kernel width `digits`.
    fn lanes(&self, digits: usize) -> usize;
    /// Leftover groups of at most this many jobs run on the scalar kernel (unless
    /// [`Self::few_max`] takes them).
    fn scalar_tail_max(&self, lanes: usize) -> usize;
    /// Leftover groups at kernel width `digits` of at most this many jobs run on
    /// [`Self::run_few`] instead of the scalar kernel or a padded group: a form of the backend's
    /// own arithmetic that one job fills. 0 (the default) where the backend has none.
    fn few_max(&self, _digits: usize, _lanes: usize) -> usize {
        0
    }
    /// The jobs of one leftover at width `digits` ([`Self::few_max`]; any count up to it):
    /// canonical results per job, from moduli prepared as for [`Self::run_group`].
    fn run_few(
        &self,
        _digits: usize,
        _mods: &[&ModulusDigits],
        _bases: &[&[u64]],
        _exps: &[&[u64]],
        _vartime: bool,
    ) -> Vec<Vec<u64>> {
        unreachable!("few_max is 0")
    }
    /// One full group (`mods.len() == lanes`): canonical results per lane.
    fn run_group(
        &self,
        digits: usize,
        mods: &[&ModulusDigits],
        bases: &[&[u64]],
        exps: &[&[u64]],
        vartime: bool,
    ) -> Vec<Vec<u64>>;
    /// The Montgomery product kernel for jobs on the scalar path (the tail), where the
    /// backend has a faster one than the portable kernel on this CPU.
    fn tail_kernel(&self) -> Option<&dyn MontKernel> {
        None
    }
}

/// Runs a modexp batch through `k` (see the module header). `caches` (one per modulus: public
/// ones for a `_vartime` batch, [`crate::Backend::modexp_vartime_cached`]; secret ones for a
/// constant-time batch, [`crate::Backend::modexp_cached`]): each modulus's digit form is
/// taken from its cache or prepared into it, for the lanes and the scalar tail alike (the tail
/// takes its constants from the form).
pub fn modexp_in_groups(
    k: &dyn LaneKernel,
    moduli: &[&[u64]],
    caches: Option<&[&ModulusCache]>,
    jobs: &[ModexpJob<'_>],
    vartime: bool,
) -> Vec<JobResult<Vec<u64>>> {
    // A `_vartime` batch takes public caches, a constant-time one secret caches (forms from the
    // constant-time set-up); any other pairing runs uncached.
    let caches =
        caches.filter(|c| c.len() == moduli.len() && c.iter().all(|c| c.is_secret() != vartime));
    // Validation and kernel widths first: which moduli need the lanes' digit form and which
    // the scalar tail's constants depends on the bucketing, and each is built only where used.
    let widths: Vec<Result<usize, Error>> = moduli
        .iter()
        .map(|m| {
            check_modulus(m, MAX_MODULUS_BITS)?;
            Ok(k.width(bits_public(m)))
        })
        .collect();
    let ok: Vec<Result<(), Error>> = widths
        .iter()
        .map(|w| w.as_ref().map(|_| ()).map_err(Clone::clone))
        .collect();

    let mut results: Vec<JobResult<Vec<u64>>> = Vec::with_capacity(jobs.len());
    // (kernel width, exponent limbs) → job indices; the key is public.
    let mut buckets: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    for (i, job) in jobs.iter().enumerate() {
        match check_modexp_job(moduli, &ok, job) {
            Ok(()) => {
                let n = *widths[job.modulus].as_ref().expect("checked");
                let e = if vartime { 0 } else { job.exponent.len() };
                buckets.entry((n, e)).or_default().push(i);
                results.push(Ok(Vec::new()));
            }
            Err(e) => results.push(Err(e)),
        }
    }
    // (kernel width, how it runs, job indices): padded groups and few-job calls.
    let mut runs: Vec<(usize, Run, &[usize])> = Vec::new();
    let mut tail: Vec<usize> = Vec::new();
    for (&(n, _), idx) in &buckets {
        let lanes = k.lanes(n);
        for g in idx.chunks(lanes) {
            if g.len() <= k.few_max(n, lanes) {
                // Spread over the pool's threads, at least two jobs a call (the few-job forms
                // interleave jobs).
                let per = g.len().div_ceil(rayon::current_num_threads().max(1)).max(2);
                runs.extend(g.chunks(per).map(|c| (n, Run::Few, c)));
            } else if g.len() > k.scalar_tail_max(lanes) {
                runs.push((n, Run::Group(lanes), g));
            } else {
                tail.extend_from_slice(g);
            }
        }
    }
    // The moduli each path uses (public: indices), prepared once each, in parallel.
    let mut needs_form = vec![false; moduli.len()];
    for &(_, _, g) in &runs {
        for &i in g {
            needs_form[jobs[i].modulus] = true;
        }
    }
    let mut in_tail = vec![false; moduli.len()];
    for &i in &tail {
        in_tail[jobs[i].modulus] = true;
        if caches.is_some() {
            needs_form[jobs[i].modulus] = true; // the tail takes its constants from the form
        }
    }
    let digits: Vec<Option<Result<Arc<ModulusDigits>, Error>>> = (0..moduli.len())
        .into_par_iter()
        .map(|j| {
            let n = *widths[j].as_ref().ok()?;
            let prepare = || k.prepare(moduli[j], n, vartime);
            needs_form[j].then(|| match caches {
                Some(c) => c[j].get_or_prepare(moduli[j], n, k.digit_bits(), prepare),
                None => prepare().map(Arc::new),
            })
        })
        .collect();
    // A modulus on both paths takes the tail's constants from its digit form, which holds them.
    let scalar: Vec<Option<Result<DynMonty, Error>>> = (0..moduli.len())
        .into_par_iter()
        .map(|j| (in_tail[j] && !needs_form[j]).then(|| DynMonty::build(moduli[j], vartime)))
        .collect();
    let failed = |j: usize, prep: &[Option<Result<_, Error>>]| match &prep[j] {
        Some(Err(e)) => Some(e.clone()),
        _ => None,
    };
    let digits_of = |j: usize| -> &ModulusDigits {
        digits[j]
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .map(|d| &**d)
            .expect("prepared")
    };

    let tail_out: Vec<(usize, JobResult<Vec<u64>>)> = tail
        .par_iter()
        .map(|&i| {
            let job = jobs[i];
            let p = match (&scalar[job.modulus], &digits[job.modulus]) {
                (Some(Ok(p)), _) => Ok(p),
                (_, Some(Ok(d))) => Ok(d.dyn_monty()),
                (Some(Err(e)), _) | (_, Some(Err(e))) => Err(e.clone()),
                (None, None) => unreachable!("every tail modulus was prepared"),
            };
            let r = p.map(|p| {
                if vartime {
                    p.pow_vartime_in(k.tail_kernel(), job.base, job.exponent)
                } else {
                    p.pow_in(k.tail_kernel(), job.base, job.exponent)
                }
            });
            (i, r)
        })
        .collect();
    for (i, r) in tail_out {
        results[i] = r;
    }
    // A job whose modulus setup failed (not expected after validation) reports that error;
    // the other jobs of its run still run (a group is padded as any short one).
    let mut todo: Vec<(usize, Run, Vec<usize>)> = Vec::with_capacity(runs.len());
    for (n, run, g) in runs {
        let mut ok = Vec::with_capacity(g.len());
        for &i in g {
            match failed(jobs[i].modulus, &digits) {
                Some(e) => results[i] = Err(e),
                None => ok.push(i),
            }
        }
        if !ok.is_empty() {
            todo.push((n, run, ok));
        }
    }
    let outs: Vec<(Vec<usize>, Vec<Vec<u64>>)> = todo
        .into_par_iter()
        .map(|(n, run, g)| {
            let js: Vec<ModexpJob<'_>> = match run {
                Run::Group(lanes) => (0..lanes).map(|l| jobs[g[l.min(g.len() - 1)]]).collect(),
                Run::Few => g.iter().map(|&i| jobs[i]).collect(),
            };
            let mods: Vec<&ModulusDigits> = js.iter().map(|j| digits_of(j.modulus)).collect();
            let bases: Vec<&[u64]> = js.iter().map(|j| j.base).collect();
            let exps: Vec<&[u64]> = js.iter().map(|j| j.exponent).collect();
            let rs = match run {
                Run::Group(_) => k.run_group(n, &mods, &bases, &exps, vartime),
                Run::Few => k.run_few(n, &mods, &bases, &exps, vartime),
            };
            (g, rs)
        })
        .collect();
    for (g, rs) in outs {
        place(&mut results, &g, rs);
    }
    results
}

/// How a run of jobs executes: a group padded to `lanes` ([`LaneKernel::run_group`]) or a
/// few-job call ([`LaneKernel::run_few`]).
#[derive(Clone, Copy)]
enum Run {
    Group(usize),
    Few,
}

/// Puts a group's (or few-job call's) results in their jobs' slots; a backend that returned
/// fewer results than jobs fails those jobs instead of leaving them empty.
fn place(results: &mut [JobResult<Vec<u64>>], g: &[usize], rs: Vec<Vec<u64>>) {
    let got = rs.len();
    let mut rs = rs.into_iter();
    for &i in g {
        results[i] = rs.next().ok_or_else(|| {
            Error::Backend(format!("{got} results for a group of {} jobs", g.len()))
        });
    }
}
