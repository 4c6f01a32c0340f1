//! Batched modular exponentiation on 64-bit limbs.
//!
//! Each modulus is prepared once per batch ([`DynMonty`]: Montgomery constants at the
//! smallest monomorphised limb count that holds it), then jobs run in parallel, each on one
//! core. Constant-time jobs use a fixed window over every exponent bit and read every table
//! entry; `_vartime` jobs use square-and-multiply on the significant bits. Results are
//! canonical, with the modulus's limb count.

use batch_core::backend::check_modexp_job;
use batch_core::num::DynMonty;
use batch_core::{Error, JobResult, ModexpJob};
use rayon::prelude::*;

/// Runs a batch on the current rayon pool. Constant-time jobs go in adjacent pairs
/// ([`DynMonty::pow_x2`]: two carry chains interleaved, the RSA-CRT `p`/`q` halves sit next
/// to each other in a signing batch).
pub fn modexp_batch(moduli: &[&[u64]], jobs: &[ModexpJob<'_>], vartime: bool) -> Vec<JobResult<Vec<u64>>> {
    let prepared: Vec<Result<DynMonty, Error>> = moduli.iter().map(|m| DynMonty::new(m)).collect();
    let ok: Vec<Result<(), Error>> = prepared.iter().map(|p| p.as_ref().map(|_| ()).map_err(Clone::clone)).collect();
    let one = |job: &ModexpJob<'_>| -> JobResult<Vec<u64>> {
        check_modexp_job(moduli, &ok, job)?;
        let p = prepared[job.modulus].as_ref().map_err(Clone::clone)?;
        Ok(if vartime { p.pow_vartime(job.base, job.exponent) } else { p.pow(job.base, job.exponent) })
    };
    if vartime {
        return jobs.par_iter().map(one).collect();
    }
    jobs.par_chunks(2)
        .flat_map_iter(|pair| {
            if let [a, b] = pair {
                let checked = (check_modexp_job(moduli, &ok, a), check_modexp_job(moduli, &ok, b));
                if let (Ok(()), Ok(())) = checked {
                    let (p, q) = (prepared[a.modulus].as_ref().expect("checked"), prepared[b.modulus].as_ref().expect("checked"));
                    let [x, y] = p.pow_x2(q, [a.base, b.base], [a.exponent, b.exponent]);
                    return vec![Ok(x), Ok(y)];
                }
            }
            pair.iter().map(one).collect()
        })
        .collect()
}
