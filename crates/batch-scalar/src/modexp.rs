//! Batched modular exponentiation on 64-bit limbs.
//!
//! Each modulus is prepared once per batch (Montgomery constants for the smallest supported
//! limb count `N` that holds it), then jobs run in parallel, each on one core. Constant-time
//! jobs use a fixed window over every exponent bit and read every table entry
//! ([`MontyParams::pow`]); `_vartime` jobs use square-and-multiply on the significant bits.
//! Results are canonical, with the modulus's limb count.

use batch_core::backend::{check_modexp_job, check_modulus};
use batch_core::num::{MontyParams, Uint};
use batch_core::{Error, JobResult, ModexpJob, MAX_MODULUS_BITS};
use rayon::prelude::*;

/// Limb counts with a monomorphised kernel: CRT halves and full moduli of RSA-2048 … 15360,
/// plus small sizes for tests. A modulus runs on the smallest that holds it.
pub const KERNEL_LIMBS: [usize; 10] = [4, 8, 16, 24, 32, 48, 60, 64, 120, 240];

/// Montgomery constants for one modulus, at its kernel width.
#[derive(Debug)]
enum Prepared {
    L4(MontyParams<4>),
    L8(MontyParams<8>),
    L16(MontyParams<16>),
    L24(MontyParams<24>),
    L32(MontyParams<32>),
    L48(MontyParams<48>),
    L60(MontyParams<60>),
    L64(MontyParams<64>),
    L120(MontyParams<120>),
    L240(Box<MontyParams<240>>),
}

fn params<const N: usize>(m: &[u64]) -> MontyParams<N> {
    MontyParams::new(Uint::from_limbs(m).expect("kernel width holds the modulus"))
}

impl Prepared {
    fn new(m: &[u64]) -> Result<Self, Error> {
        check_modulus(m, MAX_MODULUS_BITS)?;
        let limbs = batch_core::num::bits_vartime(m).div_ceil(64);
        let n = *KERNEL_LIMBS.iter().find(|&&n| n >= limbs).expect("MAX_MODULUS_BITS fits the widest kernel");
        Ok(match n {
            4 => Prepared::L4(params(m)),
            8 => Prepared::L8(params(m)),
            16 => Prepared::L16(params(m)),
            24 => Prepared::L24(params(m)),
            32 => Prepared::L32(params(m)),
            48 => Prepared::L48(params(m)),
            60 => Prepared::L60(params(m)),
            64 => Prepared::L64(params(m)),
            120 => Prepared::L120(params(m)),
            _ => Prepared::L240(Box::new(params(m))),
        })
    }

    fn run(&self, job: &ModexpJob<'_>, out_limbs: usize, vartime: bool) -> Vec<u64> {
        match self {
            Prepared::L4(p) => exp(p, job, out_limbs, vartime),
            Prepared::L8(p) => exp(p, job, out_limbs, vartime),
            Prepared::L16(p) => exp(p, job, out_limbs, vartime),
            Prepared::L24(p) => exp(p, job, out_limbs, vartime),
            Prepared::L32(p) => exp(p, job, out_limbs, vartime),
            Prepared::L48(p) => exp(p, job, out_limbs, vartime),
            Prepared::L60(p) => exp(p, job, out_limbs, vartime),
            Prepared::L64(p) => exp(p, job, out_limbs, vartime),
            Prepared::L120(p) => exp(p, job, out_limbs, vartime),
            Prepared::L240(p) => exp(p, job, out_limbs, vartime),
        }
    }
}

/// Window width for a constant-time exponent of `bits` bits: table cost `2^w` against
/// `bits / w` multiplications.
pub fn window_for(bits: usize) -> usize {
    match bits {
        0..=64 => 2,
        65..=256 => 4,
        257..=1536 => 5,
        _ => 6,
    }
}

fn exp<const N: usize>(p: &MontyParams<N>, job: &ModexpJob<'_>, out_limbs: usize, vartime: bool) -> Vec<u64> {
    let base = Uint::<N>::from_limbs(job.base).expect("base below modulus fits");
    let b = p.to_monty(&base);
    let r = if vartime {
        p.pow_vartime(&b, job.exponent)
    } else {
        p.pow(&b, job.exponent, window_for(64 * job.exponent.len()))
    };
    let out = p.from_monty(&r);
    out.0[..out_limbs].to_vec()
}

/// Runs a batch on the current rayon pool.
pub fn modexp_batch(moduli: &[&[u64]], jobs: &[ModexpJob<'_>], vartime: bool) -> Vec<JobResult<Vec<u64>>> {
    let prepared: Vec<Result<Prepared, Error>> = moduli.iter().map(|m| Prepared::new(m)).collect();
    let ok: Vec<Result<(), Error>> = prepared.iter().map(|p| p.as_ref().map(|_| ()).map_err(Clone::clone)).collect();
    jobs.par_iter()
        .with_min_len(1)
        .map(|job| {
            check_modexp_job(moduli, &ok, job)?;
            let p = prepared[job.modulus].as_ref().map_err(Clone::clone)?;
            let out_limbs = batch_core::num::bits_vartime(moduli[job.modulus]).div_ceil(64);
            Ok(p.run(job, out_limbs, vartime))
        })
        .collect()
}
