//! Batched modular exponentiation on 64-bit limbs.
//!
//! Each modulus is prepared once per batch ([`DynMonty`]: Montgomery constants at the
//! smallest monomorphised limb count that holds it; the moduli in parallel, and by the
//! variable-time setup [`DynMonty::new_vartime`] in a `_vartime` batch, whose moduli are
//! public), then jobs run in parallel, each on one core. Constant-time jobs use a fixed window over every exponent bit and read every table
//! entry; `_vartime` jobs use square-and-multiply on the significant bits. Results are
//! canonical, with the modulus's limb count.

use batch_core::backend::check_modexp_job;
use batch_core::num::DynMonty;
use batch_core::{Error, JobResult, ModexpJob};
use rayon::prelude::*;

/// Runs a batch on the current rayon pool.
pub fn modexp_batch(
    moduli: &[&[u64]],
    jobs: &[ModexpJob<'_>],
    vartime: bool,
) -> Vec<JobResult<Vec<u64>>> {
    // Moduli are prepared in parallel (a batch of unrelated keys has one per job); those of a
    // `_vartime` batch are public, so they take the variable-time setup.
    let prepared: Vec<Result<DynMonty, Error>> = moduli
        .par_iter()
        .map(|m| DynMonty::build(m, vartime))
        .collect();
    let ok: Vec<Result<(), Error>> = prepared
        .iter()
        .map(|p| p.as_ref().map(|_| ()).map_err(Clone::clone))
        .collect();
    jobs.par_iter()
        .map(|job| {
            check_modexp_job(moduli, &ok, job)?;
            let p = prepared[job.modulus].as_ref().map_err(Clone::clone)?;
            Ok(if vartime {
                p.pow_vartime(job.base, job.exponent)
            } else {
                p.pow(job.base, job.exponent)
            })
        })
        .collect()
}
