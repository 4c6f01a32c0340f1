//! Batched modular exponentiation on the GPU (`shaders/modexp.wgsl`).
//!
//! Representation: numbers are little-endian `u32` limbs, `LIMBS` per number for the shader
//! variant ([`shaders::LIMB_VARIANTS`]) that holds the modulus; Montgomery form with
//! `R = 2^(32·LIMBS)`. The host validates every job exactly like the scalar backend
//! ([`check_modulus`] through [`DynMonty::new`], or [`DynMonty::new_vartime`] for the public
//! moduli of a `_vartime` batch; [`check_modexp_job`]), computes each modulus's
//! constants once per call on the CPU (`R mod m`, `R² mod m` with [`DynMonty::reduce`],
//! `−m⁻¹ mod 2^32` by Newton iteration), groups the valid jobs by variant and splits each
//! group into chunks that fit the device's storage-binding size and 65,535 workgroups.
//! One invocation computes one job; a chunk runs as a sequence of dispatches (load, window
//! table, exponent windows or bits, finish) sized so that no invocation runs more than
//! [`LOOP_BUDGET`] loop iterations in one dispatch (llvmpipe's silent loop limit), with the
//! state in a storage buffer between dispatches. Up to [`shaders::REGISTER_MAX_LIMBS`] limbs
//! the kernels keep their numbers in function-scope arrays (`shaders/modexp_regs.wgsl`) and
//! only load and store the running power and the table at a dispatch's ends; a product then
//! costs LIMBS loop iterations, so a 1024-bit exponentiation (an RSA-2048 half) runs its
//! windows in one dispatch, 1536- and 2048-bit ones in two and three. Above, numbers stay in
//! `scratch` throughout (`shaders/modexp.wgsl`). Results are canonical with the modulus's significant limb
//! count (as `batch-scalar` returns them), and each is checked to be below its modulus before
//! it is returned.
//!
//! Constant-time: the GPU work for a job depends on the variant and the longest exponent (in
//! limbs) of its group, never on values: the window table is scanned in full with masks, the
//! final subtraction of each product is a `select`, and no load address or branch depends on
//! the exponent. NOTE: exponents are zero-padded to the longest one in
//! their group, so a batch's time reveals its longest exponent length, which is public.

use std::collections::HashMap;

use batch_core::backend::check_modexp_job;
use batch_core::num::DynMonty;
use batch_core::{Error, JobResult, ModexpJob};

use crate::context::{Dispatch, GpuContext, Input, ModexpPipelines};
use crate::shaders::{self, LOOP_BUDGET, TABLE, WINDOW};

/// Scratch slots of LIMBS words per job (`SLOTS` in `shaders/modexp.wgsl`): the window
/// table, accumulator, selected entry, CIOS accumulator and a temporary.
const SCRATCH_SLOTS: usize = TABLE + 4;

/// Per-modulus constants for one variant, laid out as the shader reads them.
struct Prepared {
    /// Significant 64-bit limbs of the modulus (the result length).
    limbs64: usize,
    /// n, R² mod n, R mod n (each `LIMBS` words), n0inv.
    record: Vec<u32>,
}

/// Appends `limbs` to `out` as exactly `words` little-endian `u32` words (zero-padded).
pub(crate) fn push_words(out: &mut Vec<u32>, limbs: &[u64], words: usize) {
    let start = out.len();
    out.extend(limbs.iter().flat_map(|x| [*x as u32, (*x >> 32) as u32]));
    // callers pass values that fit: trailing words beyond `words` are zero
    debug_assert!(out[start..].iter().skip(words).all(|&x| x == 0));
    out.resize(start + words, 0);
}

/// Little-endian `u32` words (an even number) back to `u64` limbs.
pub(crate) fn from_words(words: &[u32]) -> Vec<u64> {
    words
        .chunks_exact(2)
        .map(|w| u64::from(w[0]) | (u64::from(w[1]) << 32))
        .collect()
}

/// `−m⁻¹ mod 2^32` for odd `m0` (Newton: each step doubles the correct low bits from 3).
pub(crate) fn neg_inv_u32(m0: u32) -> u32 {
    let mut inv = m0;
    for _ in 0..4 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(m0.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

fn prepare(d: &DynMonty, limbs: usize) -> Prepared {
    let m = d.modulus();
    // R = 2^(32·limbs) and R² = 2^(64·limbs); `limbs` is even, so both are whole u64 limbs.
    let mut r = vec![0u64; limbs / 2 + 1];
    r[limbs / 2] = 1;
    let mut r2 = vec![0u64; limbs + 1];
    r2[limbs] = 1;
    let mut record = Vec::with_capacity(3 * limbs + 1);
    push_words(&mut record, &m, limbs);
    push_words(&mut record, &d.reduce(&r2), limbs);
    push_words(&mut record, &d.reduce(&r), limbs);
    record.push(neg_inv_u32(m[0] as u32));
    Prepared {
        limbs64: d.limbs(),
        record,
    }
}

/// Runs a batch; `Err` only for the whole batch (device lost, validation error, timeout).
pub(crate) fn modexp_batch(
    ctx: &GpuContext,
    moduli: &[&[u64]],
    jobs: &[ModexpJob<'_>],
    vartime: bool,
    max_chunk_jobs: Option<usize>,
) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
    let _device = ctx.lock();
    // the moduli of a `_vartime` batch are public: variable-time setup
    let prepared: Vec<Result<DynMonty, Error>> =
        moduli.iter().map(|m| DynMonty::build(m, vartime)).collect();
    let ok: Vec<Result<(), Error>> = prepared
        .iter()
        .map(|p| p.as_ref().map(|_| ()).map_err(Clone::clone))
        .collect();
    let mut out: Vec<JobResult<Vec<u64>>> = Vec::with_capacity(jobs.len());
    // valid jobs by variant, in batch order
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        match check_modexp_job(moduli, &ok, job) {
            Err(e) => out.push(Err(e)),
            Ok(()) => {
                let bits = batch_core::num::bits_public(moduli[job.modulus]); // public by design; p may be secret
                let Some(limbs) = shaders::variant_for_bits(bits) else {
                    out.push(Err(Error::ModulusTooLarge {
                        bits,
                        max_bits: 32 * shaders::LIMB_VARIANTS[shaders::LIMB_VARIANTS.len() - 1],
                    }));
                    continue;
                };
                out.push(Err(Error::Backend("job not run".into())));
                match groups.iter_mut().find(|(l, _)| *l == limbs) {
                    Some((_, g)) => g.push(i),
                    None => groups.push((limbs, vec![i])),
                }
            }
        }
    }
    // every chunk of every variant, in order; each chunk's words are built just before it
    // is submitted (the iterator is lazy), while the previous chunk runs
    let mut plan_of = Vec::new();
    for (limbs, group) in &groups {
        let exp_words = group
            .iter()
            .map(|&i| 2 * jobs[i].exponent.len())
            .max()
            .unwrap_or(1)
            .max(1);
        let per_job = chunk_cap(ctx, *limbs, exp_words, max_chunk_jobs);
        plan_of.extend(
            group
                .chunks(per_job)
                .map(|chunk| (*limbs, exp_words, chunk)),
        );
    }
    let items = plan_of
        .into_iter()
        .map(|(limbs, exp_words, chunk)| Chunk::build(&prepared, jobs, chunk, limbs, exp_words));
    ctx.run_chunks(
        items,
        |c| {
            let c = c.as_ref().map_err(Clone::clone)?;
            let pipelines = ctx.modexp_pipelines(c.limbs)?;
            let plan = dispatch_plan(&pipelines, c.limbs, c.exp_words, vartime);
            let inputs = [
                Input::Words(&c.mod_words),
                Input::Words(&c.job_words),
                Input::Words(&c.exp_buf),
            ];
            let count = c.chunk.len();
            let scratch_words = count * SCRATCH_SLOTS * c.limbs;
            ctx.submit_plan(
                "modexp",
                &plan,
                count,
                c.exp_words as u32,
                inputs,
                count * c.limbs,
                scratch_words,
            )
        },
        |c, words| {
            if let Ok(c) = c {
                c.finish(moduli, jobs, &words, &mut out);
            }
        },
    )
    .map_err(Error::Backend)?;
    Ok(out)
}

/// Jobs per dispatch: the largest per-job binding must fit the storage-binding and buffer
/// limits, the workgroup count must fit one dimension.
fn chunk_cap(
    ctx: &GpuContext,
    limbs: usize,
    exp_words: usize,
    max_chunk_jobs: Option<usize>,
) -> usize {
    // moduli records (3·LIMBS+1 words) are at most one per job in a chunk
    let widest_words = (3 * limbs + 1).max(exp_words).max(SCRATCH_SLOTS * limbs);
    let max_binding = ctx.max_binding_bytes();
    let by_memory = (max_binding / (4 * widest_words)).max(1);
    let by_dispatch = ctx.max_jobs_per_dispatch();
    let cap = by_memory.min(by_dispatch);
    max_chunk_jobs.map_or(cap, |c| cap.min(c.max(1)))
}

/// One chunk's inputs as the shader reads them, and what reading its results back needs.
struct Chunk<'a> {
    chunk: &'a [usize],
    limbs: usize,
    exp_words: usize,
    /// the chunk's moduli, renumbered in first-use order: records and result lengths
    local: HashMap<usize, u32>,
    limbs64: Vec<usize>,
    mod_words: Vec<u32>,
    job_words: Vec<u32>,
    exp_buf: Vec<u32>,
}

impl<'a> Chunk<'a> {
    fn build(
        prepared: &[Result<DynMonty, Error>],
        jobs: &[ModexpJob<'_>],
        chunk: &'a [usize],
        limbs: usize,
        exp_words: usize,
    ) -> Result<Self, String> {
        let mut c = Chunk {
            chunk,
            limbs,
            exp_words,
            local: HashMap::new(),
            limbs64: Vec::new(),
            mod_words: Vec::new(),
            job_words: Vec::with_capacity(chunk.len() * (limbs + 1)),
            exp_buf: Vec::with_capacity(chunk.len() * exp_words),
        };
        for &i in chunk {
            let job = &jobs[i];
            let idx = match c.local.get(&job.modulus) {
                Some(&k) => k,
                None => {
                    // validated jobs only reach here, so their modulus prepared
                    let d = prepared[job.modulus].as_ref().map_err(|e| e.to_string())?;
                    let p = prepare(d, limbs);
                    let k = c.limbs64.len() as u32;
                    c.mod_words.extend(p.record);
                    c.limbs64.push(p.limbs64);
                    c.local.insert(job.modulus, k);
                    k
                }
            };
            // base < modulus (validated), so its significant limbs fit
            let sig = job.base.len().min(c.limbs64[idx as usize]);
            push_words(&mut c.job_words, &job.base[..sig], limbs);
            c.job_words.push(idx);
            push_words(&mut c.exp_buf, job.exponent, exp_words);
        }
        Ok(c)
    }

    /// Checks and stores the chunk's results (`limbs` words per job).
    fn finish(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
        results: &[u32],
        out: &mut [JobResult<Vec<u64>>],
    ) {
        let limbs = self.limbs;
        for (slot, &i) in self.chunk.iter().enumerate() {
            let job = &jobs[i];
            let words = &results[slot * limbs..(slot + 1) * limbs];
            let mut r = from_words(words);
            let n = self.limbs64[self.local[&job.modulus] as usize];
            // The result may be a secret CRT half: constant-time range check, public verdict.
            let ok = batch_core::ct::lt_mask(&r, moduli[job.modulus]);
            r.truncate(n);
            out[i] = if !batch_core::ct::declassify_mask(ok) {
                Err(Error::FaultDetected(
                    "wgpu: modexp result not below its modulus",
                ))
            } else {
                Ok(r)
            };
        }
    }
}

/// Loop iterations one invocation runs, as the shader for `limbs` is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Costs {
    /// one Montgomery product
    mul: usize,
    /// one table scan of the constant-time path
    scan: usize,
    /// once per windows dispatch (loading the table)
    windows_fixed: usize,
}

impl Costs {
    fn new(limbs: usize) -> Self {
        if shaders::modexp_in_registers(limbs) {
            // `shaders/modexp_regs.wgsl`: a product is its outer loop (LIMBS iterations),
            // every limb loop is written out; a table load or scan is TABLE iterations
            Costs {
                mul: limbs,
                scan: TABLE,
                windows_fixed: TABLE,
            }
        } else {
            // `shaders/montgomery.wgsl`: the outer loop over limbs, two inner loops of
            // `limbs / u` iterations each, three more outside it, with margin; the scan
            // clears the selected slot and ORs in every entry
            let inner = limbs / shaders::modexp_unroll(limbs);
            Costs {
                mul: limbs * (2 * inner + 2) + 4 * inner + 8,
                scan: TABLE * (inner + 1) + inner,
                windows_fixed: 0,
            }
        }
    }

    /// One step of a step loop (table entry, window step without its scan): a product and
    /// the loop's own iteration.
    fn step(self) -> usize {
        self.mul + 1
    }

    /// One whole window: WINDOW squarings, the scan, the multiplication.
    fn window(self) -> usize {
        (WINDOW + 1) * self.step() + self.scan
    }

    /// One bit of the `_vartime` path: a squaring and a multiplication.
    fn bit(self) -> usize {
        2 * self.mul + 1
    }
}

/// The dispatches of one chunk, each under [`LOOP_BUDGET`] loop iterations per invocation.
/// Constant-time windows dispatches start on window boundaries.
fn dispatch_plan(
    p: &ModexpPipelines,
    limbs: usize,
    exp_words: usize,
    vartime: bool,
) -> Vec<Dispatch<'_>> {
    plan_ranges(limbs, exp_words, vartime)
        .into_iter()
        .map(|(kind, first, steps)| {
            let pipeline = match kind {
                Kind::Load => &p.load,
                Kind::Table => &p.table,
                Kind::Windows => &p.windows,
                Kind::BitsVartime => &p.bits_vartime,
                Kind::Finish => &p.finish,
            };
            Dispatch {
                pipeline,
                first,
                steps,
                group: shaders::WORKGROUP_SIZE,
            }
        })
        .collect()
}

/// The entry points of `shaders/modexp_io.wgsl` and the kernels' files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Load,
    Table,
    Windows,
    BitsVartime,
    Finish,
}

/// [`dispatch_plan`] without the pipelines: `(entry point, first, steps)`.
fn plan_ranges(limbs: usize, exp_words: usize, vartime: bool) -> Vec<(Kind, usize, usize)> {
    let c = Costs::new(limbs);
    let split = |kind, from: usize, to: usize, per: usize| {
        let per = per.max(1);
        (from..to)
            .step_by(per)
            .map(move |first| (kind, first, per.min(to - first)))
    };
    let mut plan = vec![(Kind::Load, 0, 0)];
    // table entry 1 (the base in Montgomery form) for both paths, the rest for constant time
    plan.extend(split(
        Kind::Table,
        1,
        if vartime { 2 } else { TABLE },
        LOOP_BUDGET / c.step(),
    ));
    if vartime {
        let per = LOOP_BUDGET.saturating_sub(exp_words) / c.bit();
        plan.extend(split(Kind::BitsVartime, 0, 32 * exp_words, per));
    } else {
        // whole windows per dispatch where one fits, else single steps (the widest storage
        // variants), each counted as if it scanned the table
        let budget = LOOP_BUDGET.saturating_sub(c.windows_fixed);
        let per = match budget / c.window() {
            0 => budget / (c.step() + c.scan),
            windows => windows * (WINDOW + 1),
        };
        plan.extend(split(
            Kind::Windows,
            0,
            exp_words * 32 / WINDOW * (WINDOW + 1),
            per,
        ));
    }
    plan.push((Kind::Finish, 0, 0));
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neg_inv_u32_inverts() {
        for m0 in [1u32, 3, 5, 0xffff_ffff, 0x1234_5679, 0x8000_0001] {
            assert_eq!(m0.wrapping_mul(neg_inv_u32(m0)), u32::MAX, "{m0:#x}"); // m·(−m⁻¹) ≡ −1
        }
    }

    /// Loop iterations of one dispatch by the cost model, for `(kind, first, steps)`.
    fn dispatch_cost(
        c: Costs,
        exp_words: usize,
        (kind, first, steps): (Kind, usize, usize),
    ) -> usize {
        match kind {
            Kind::Load => 0,
            Kind::Finish => c.mul,
            Kind::Table => steps * c.step(),
            Kind::BitsVartime => exp_words + steps * c.bit(),
            Kind::Windows => {
                let scans = (first..first + steps)
                    .filter(|s| s % (WINDOW + 1) == WINDOW)
                    .count();
                c.windows_fixed + steps * c.step() + scans * c.scan
            }
        }
    }

    /// Every plan covers its table entries, steps or bits once, in order, within the budget;
    /// the register variants start windows dispatches on window boundaries and run an RSA-2048
    /// half (1024-bit exponent) in one windows dispatch.
    #[test]
    fn plans_cover_every_step_within_the_budget() {
        for limbs in shaders::LIMB_VARIANTS {
            let c = Costs::new(limbs);
            for exp_words in [1, 2, 7, 22, 32, 48, 64, 2 * limbs] {
                // `_vartime` exponents are public and short (RSA's e); a full-width one on
                // the 480-limb storage variant would not fit one bit per dispatch
                for vartime in [false, true].into_iter().filter(|&v| !v || exp_words <= 64) {
                    let plan = plan_ranges(limbs, exp_words, vartime);
                    let what = format!("{limbs} limbs, {exp_words} words, vartime {vartime}");
                    assert_eq!(plan.first().map(|d| d.0), Some(Kind::Load), "{what}");
                    assert_eq!(plan.last().map(|d| d.0), Some(Kind::Finish), "{what}");
                    for &d in &plan {
                        assert!(
                            dispatch_cost(c, exp_words, d) <= LOOP_BUDGET,
                            "{what}: {d:?}"
                        );
                    }
                    let covered = |kind| {
                        let mut next = None;
                        for &(k, first, steps) in plan.iter().filter(|d| d.0 == kind) {
                            assert!(steps > 0, "{what}");
                            assert!(next.is_none_or(|n| n == first), "{what}: gap at {first}");
                            next = Some(first + steps);
                            if k == Kind::Windows && shaders::modexp_in_registers(limbs) {
                                assert_eq!(first % (WINDOW + 1), 0, "{what}");
                            }
                        }
                        next
                    };
                    assert_eq!(covered(Kind::Table), Some(if vartime { 2 } else { TABLE }));
                    if vartime {
                        assert_eq!(covered(Kind::BitsVartime), Some(32 * exp_words), "{what}");
                    } else {
                        let steps = 32 * exp_words / WINDOW * (WINDOW + 1);
                        assert_eq!(covered(Kind::Windows), Some(steps), "{what}");
                    }
                }
            }
        }
        let windows = |limbs, exp_words| {
            plan_ranges(limbs, exp_words, false)
                .iter()
                .filter(|d| d.0 == Kind::Windows)
                .count()
        };
        assert_eq!(windows(32, 32), 1, "RSA-2048 half in one dispatch");
        assert_eq!(windows(48, 48), 2);
        assert_eq!(windows(64, 64), 3);
    }

    #[test]
    fn prepared_constants_match_their_definitions() {
        use num_bigint::BigUint;
        let m = [0xffff_ffff_0000_0001u64, 0x1234, 0x8000_0000_0000_0000];
        let d = DynMonty::new(&m).unwrap();
        let p = prepare(&d, 16);
        let big = |w: &[u32]| BigUint::from_slice(w);
        let mb = big(&p.record[..16]);
        assert_eq!(
            mb,
            BigUint::from_slice(&[1, 0xffff_ffff, 0x1234, 0, 0, 0x8000_0000])
        );
        let r = BigUint::from(1u8) << (32 * 16);
        assert_eq!(big(&p.record[16..32]), (&r * &r) % &mb);
        assert_eq!(big(&p.record[32..48]), &r % &mb);
        assert_eq!(p.record[48], neg_inv_u32(1));
        assert_eq!(p.limbs64, 3);
    }
}
