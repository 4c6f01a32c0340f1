//! Where a GPU backend overtakes the others in a `--sweep`: the batch size from which `auto`
//! should send an operation to the GPU ([`batchsig::backend::GpuRoute`]).

use std::fmt::Write as _;

use batchsig::backend::Operation;
use serde::Serialize;

use crate::alg::Alg;
use crate::measure::Op;
use crate::report::SweepRecord;

/// The backends counted as GPUs.
pub const GPU_BACKENDS: &[&str] = &["wgpu"];

/// One GPU backend against the fastest of the others, for one algorithm and operation.
#[derive(Clone, Debug, Serialize)]
pub struct Crossover {
    pub gpu: String,
    pub algorithm: String,
    pub operation: &'static str,
    /// The backends it is compared with (the best of them at each size).
    pub against: Vec<String>,
    /// The smallest swept batch size from which the GPU is ahead at every size measured;
    /// `null` where it is not ahead at the largest.
    pub from_batch: Option<usize>,
    /// The largest swept size at which another backend was ahead: the crossover lies between
    /// this and `from_batch`. `null` where the GPU led at every size.
    pub behind_at: Option<usize>,
    /// `[batch, GPU ÷ best other, best other's name]` at every size another backend
    /// measured; the ratio is 0 where the GPU has no figure there (failed, or skipped as too
    /// slow), which counts as behind.
    pub ratios: Vec<(usize, f64, String)>,
    /// The sweep's threads (the CPU backends' share of the machine).
    pub threads: usize,
    /// The backend operation `auto` routes (`Modexp`, `MulBase(P256)`, …), the jobs one
    /// signature or verification makes of it (2 for RSA signing: the CRT halves), so
    /// `from_batch × jobs_per_op` is the size for the route, and for RSA the modulus width of
    /// those jobs (half the key for signing).
    pub route: String,
    pub jobs_per_op: usize,
    pub modulus_bits: Option<usize>,
}

/// The backend operation behind an algorithm's operation, its jobs per operation, and for
/// RSA their modulus width.
pub fn route_of(alg: Alg, op: Op) -> (Operation, usize, Option<usize>) {
    match (alg, op) {
        (Alg::Rsa(bits), Op::Sign) => (Operation::Modexp, 2, Some(bits / 2)),
        (Alg::Rsa(bits), Op::Verify | Op::VerifyOneKey) => {
            (Operation::ModexpVartime, 1, Some(bits))
        }
        (Alg::Ecdsa(c), Op::Sign) => (Operation::MulBase(c), 1, None),
        (Alg::Ecdsa(c), Op::Verify) => (Operation::MulDoubleVartime(c), 1, None),
        (Alg::Ecdsa(c), Op::VerifyOneKey) => (Operation::MulDoubleSharedVartime(c), 1, None),
    }
}

/// Every GPU backend of the sweep against the best of the other backends except `exclude`
/// (`auto` where it routes to the GPU itself), per algorithm and operation; only where both
/// have figures at some size.
pub fn crossovers(sweep: &[SweepRecord], exclude: &[&str]) -> Vec<Crossover> {
    let mut keys: Vec<(&str, Alg, Op)> = sweep
        .iter()
        .filter(|p| GPU_BACKENDS.contains(&p.backend.as_str()))
        .map(|p| (p.backend.as_str(), p.alg, p.op))
        .collect();
    unique(&mut keys);
    let mut out = Vec::new();
    for (gpu, alg, op) in keys {
        let others = |p: &&SweepRecord| {
            p.alg == alg
                && p.op == op
                && !GPU_BACKENDS.contains(&p.backend.as_str())
                && !exclude.contains(&p.backend.as_str())
        };
        let mut against: Vec<String> = sweep
            .iter()
            .filter(others)
            .map(|p| p.backend.clone())
            .collect();
        unique(&mut against);
        let mine: Vec<&SweepRecord> = sweep
            .iter()
            .filter(|p| p.backend == gpu && p.alg == alg && p.op == op)
            .collect();
        let threads = mine.first().map_or(0, |p| p.threads);
        let mut sizes: Vec<usize> = mine.iter().map(|p| p.batch).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let mut ratios = Vec::new();
        for n in sizes {
            let rate = |p: &SweepRecord| p.ops_per_sec.filter(|r| *r > 0.0);
            let g = mine
                .iter()
                .find(|p| p.batch == n)
                .and_then(|p| rate(p))
                .unwrap_or(0.0);
            let best = sweep
                .iter()
                .filter(others)
                .filter(|p| p.batch == n)
                .filter_map(|p| rate(p).map(|r| (r, &p.backend)))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((r, name)) = best {
                ratios.push((n, g / r, name.clone()));
            }
        }
        if ratios.is_empty() {
            continue;
        }
        let behind_at = ratios.iter().rev().find(|r| r.1 <= 1.0).map(|r| r.0);
        let from_batch = match behind_at {
            None => Some(ratios[0].0),
            Some(b) => ratios.iter().find(|r| r.0 > b).map(|r| r.0),
        };
        let (route, jobs_per_op, modulus_bits) = route_of(alg, op);
        out.push(Crossover {
            gpu: gpu.into(),
            algorithm: alg.name(),
            operation: op.name(),
            against,
            from_batch,
            behind_at,
            ratios,
            threads,
            route: format!("{route:?}"),
            jobs_per_op,
            modulus_bits,
        });
    }
    out
}

/// Drops repeats, keeping first appearances in order.
fn unique<T: PartialEq>(v: &mut Vec<T>) {
    let mut i = 0;
    while i < v.len() {
        if v[..i].contains(&v[i]) {
            v.remove(i);
        } else {
            i += 1;
        }
    }
}

/// The crossover lines under the sweep table.
pub fn table(crossovers: &[Crossover]) -> String {
    let mut s = String::new();
    if crossovers.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "\nwhere the GPU overtakes the best other backend (GPU ÷ best other at each batch size)"
    );
    for c in crossovers {
        let at = match (c.from_batch, c.behind_at) {
            (Some(n), None) => format!("ahead from the smallest size, {n}"),
            (Some(n), Some(b)) => format!("ahead from {n} (behind at {b})"),
            (None, _) => "behind at the largest size".into(),
        };
        let ratios: Vec<String> = c
            .ratios
            .iter()
            .map(|(n, r, best)| format!("{r:.2}×{best}@{n}"))
            .collect();
        let _ = writeln!(
            s,
            "{:<6} {:<10} {:<14} {at}: {}",
            c.gpu,
            c.algorithm,
            c.operation,
            ratios.join(" ")
        );
    }
    let entries = entries(crossovers);
    if !entries.is_empty() {
        let _ = writeln!(
            s,
            "  entries for auto's GPU route (MEASURED_FROM in batchsig's gpu_route.rs; the larger \
             size where two operations share a route):"
        );
        for e in entries {
            let _ = writeln!(s, "    {e},");
        }
    }
    s
}

/// The `Threshold` entries, as Rust, for the crossovers the GPU reached: one per backend
/// operation and modulus width (RSA verify and verify-one-key are both `ModexpVartime`), at
/// the larger size where two disagree.
pub fn entries(crossovers: &[Crossover]) -> Vec<String> {
    let mut merged: Vec<(&str, Option<usize>, usize)> = Vec::new();
    for c in crossovers {
        let Some(n) = c.from_batch else { continue };
        let jobs = n * c.jobs_per_op;
        match merged
            .iter_mut()
            .find(|(r, b, _)| *r == c.route && *b == c.modulus_bits)
        {
            Some(e) => e.2 = e.2.max(jobs),
            None => merged.push((&c.route, c.modulus_bits, jobs)),
        }
    }
    merged
        .into_iter()
        .map(|(route, bits, jobs)| {
            let op = route.replace("(P", "(Curve::P");
            match bits {
                Some(b) => format!("Threshold::new(Operation::{op}, {jobs}).up_to_bits({b})"),
                None => format!("Threshold::new(Operation::{op}, {jobs})"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::Curve;

    fn point(backend: &str, alg: Alg, op: Op, batch: usize, rate: Option<f64>) -> SweepRecord {
        SweepRecord {
            backend: backend.into(),
            algorithm: alg.name(),
            operation: op.name(),
            batch,
            threads: 1,
            ops_per_sec: rate,
            keys: None,
            note: None,
            alg,
            op,
        }
    }

    #[test]
    fn crossover_is_the_size_from_which_the_gpu_stays_ahead() {
        let rsa = Alg::Rsa(2048);
        let p256 = Alg::Ecdsa(Curve::P256);
        let mut sweep = Vec::new();
        // RSA sign: avx2 1000/s flat; auto 1100/s; wgpu 100, 2000 (a fluke), 900, 5000, 9000
        for (n, g) in [
            (1, 100.0),
            (16, 2000.0),
            (256, 900.0),
            (4096, 5000.0),
            (16384, 9000.0),
        ] {
            sweep.push(point("wgpu", rsa, Op::Sign, n, Some(g)));
            sweep.push(point("avx2", rsa, Op::Sign, n, Some(1000.0)));
            sweep.push(point("auto", rsa, Op::Sign, n, Some(1100.0)));
        }
        // P-256 verify: the GPU never catches up; at 16384 the CPU point was skipped
        for (n, g) in [(1, 10.0), (256, 500.0), (16384, 9e9)] {
            sweep.push(point("wgpu", p256, Op::Verify, n, Some(g)));
            let cpu = (n != 16384).then_some(1000.0);
            sweep.push(point("auto", p256, Op::Verify, n, cpu));
        }
        // P-256 sign: ahead everywhere
        sweep.push(point("wgpu", p256, Op::Sign, 64, Some(3.0)));
        sweep.push(point("auto", p256, Op::Sign, 64, Some(2.0)));
        let c = crossovers(&sweep, &[]);
        assert_eq!(c.len(), 3);
        let rsa_sign = &c[0];
        assert_eq!(
            (rsa_sign.from_batch, rsa_sign.behind_at),
            (Some(4096), Some(256))
        );
        assert_eq!(rsa_sign.against, ["avx2", "auto"]);
        assert_eq!(rsa_sign.ratios[0], (1, 100.0 / 1100.0, "auto".to_string()));
        assert_eq!(
            (
                rsa_sign.route.as_str(),
                rsa_sign.jobs_per_op,
                rsa_sign.modulus_bits
            ),
            ("Modexp", 2, Some(1024))
        );
        let verify = &c[1];
        assert_eq!((verify.from_batch, verify.behind_at), (None, Some(256)));
        assert_eq!(
            verify.ratios.len(),
            2,
            "no ratio where the CPU has no figure"
        );
        assert_eq!((c[2].from_batch, c[2].behind_at), (Some(64), None));
        let text = table(&c);
        assert!(
            text.contains("    Threshold::new(Operation::Modexp, 8192).up_to_bits(1024),\n"),
            "{text}"
        );
        assert!(
            text.contains("    Threshold::new(Operation::MulBase(Curve::P256), 64),\n"),
            "{text}"
        );
        assert!(text.contains("behind at the largest size"), "{text}");
        assert_eq!(entries(&c).len(), 2, "none for P-256 verify");
        // `auto` left out (it routes to the GPU itself): avx2 alone is the yardstick
        let c = crossovers(&sweep, &["auto"]);
        assert_eq!(c[0].against, ["avx2"]);
        assert_eq!(c[0].ratios[0].2, "avx2");
        assert_eq!(c.len(), 1, "no other backend for P-256");
    }

    /// A size where the GPU has no figure (failed or skipped) but another backend has one
    /// counts as behind; two operations on one route give one entry, at the larger size.
    #[test]
    fn missing_gpu_points_count_as_behind_and_entries_merge() {
        let rsa = Alg::Rsa(3072);
        let mut sweep = Vec::new();
        for (n, g) in [
            (1, Some(100.0)),
            (256, Some(5000.0)),
            (1024, None),
            (4096, Some(6000.0)),
        ] {
            sweep.push(point("wgpu", rsa, Op::Sign, n, g));
            sweep.push(point("avx2", rsa, Op::Sign, n, Some(1000.0)));
        }
        // verify ahead from 256, verify-one-key from 1024: both ModexpVartime at 3072 bits
        for (op, from) in [(Op::Verify, 256), (Op::VerifyOneKey, 1024)] {
            for n in [16, 256, 1024] {
                let g = if n >= from { 2000.0 } else { 10.0 };
                sweep.push(point("wgpu", rsa, op, n, Some(g)));
                sweep.push(point("avx2", rsa, op, n, Some(1000.0)));
            }
        }
        let c = crossovers(&sweep, &[]);
        assert_eq!((c[0].from_batch, c[0].behind_at), (Some(4096), Some(1024)));
        assert_eq!(c[0].ratios[2], (1024, 0.0, "avx2".to_string()));
        assert_eq!(c[1].from_batch, Some(256));
        assert_eq!(c[2].from_batch, Some(1024));
        assert_eq!(
            entries(&c),
            [
                "Threshold::new(Operation::Modexp, 8192).up_to_bits(1536)",
                "Threshold::new(Operation::ModexpVartime, 1024).up_to_bits(3072)",
            ]
        );
    }
}
