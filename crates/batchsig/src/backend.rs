//! Backend registry and selection, including [`AutoBackend`]: each operation on the backend
//! measured fastest for it.

use std::sync::Arc;

use batch_core::{AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult, ModexpJob};

mod gpu_route;
pub use gpu_route::{GpuRoute, Threshold};

/// Every backend this build knows, available or not (check [`Backend::availability`]):
/// `scalar`, `avx2` (unavailable on CPUs without AVX2 and on other targets), `avx512`
/// (AVX-512 IFMA; unavailable on CPUs without it; RSA only for now), `wgpu`
/// (unavailable without a GPU adapter; the adapter comes from `WGPU_BACKEND` /
/// `WGPU_ADAPTER_NAME`, and the device opens on first use; only with the `wgpu` feature, on by
/// default) and `auto`.
pub fn all_backends() -> Vec<Arc<dyn Backend>> {
    vec![
        Arc::new(batch_scalar::ScalarBackend::new()),
        Arc::new(batch_avx2::Avx2Backend::new()),
        Arc::new(batch_avx512::Avx512Backend::new()),
        #[cfg(feature = "wgpu")]
        Arc::new(batch_wgpu::WgpuBackend::new()),
        Arc::new(AutoBackend::measured()),
    ]
}

/// Looks a backend up by its [`Backend::name`].
pub fn by_name(name: &str) -> Option<Arc<dyn Backend>> {
    all_backends().into_iter().find(|b| b.name() == name)
}

/// The backend to use when the caller has no preference: [`AutoBackend::measured`], which
/// runs each operation on the fastest backend available here (scalar when nothing else is).
pub fn default_backend() -> Arc<dyn Backend> {
    Arc::new(AutoBackend::measured())
}

/// The CPU backend with the fastest modular exponentiation here (docs/PERF.md): `avx512`
/// where the CPU has AVX-512 IFMA, else `avx2` where it has AVX2, else `scalar`. `auto`
/// routes modexp to it, and RSA signing checks its signatures on it (`rsa::checker`).
pub fn fastest_cpu_modexp() -> Arc<dyn Backend> {
    let avx512 = batch_avx512::Avx512Backend::new();
    let avx2 = batch_avx2::Avx2Backend::new();
    if avx512.availability().is_available() {
        Arc::new(avx512)
    } else if avx2.availability().is_available() {
        Arc::new(avx2)
    } else {
        Arc::new(batch_scalar::ScalarBackend::new())
    }
}

/// The fastest Montgomery kernel for the scheme layer's own big-number products on this CPU
/// (RSA blinding, unblinding, CRT reductions and recombination, on `DynMonty::mul_in` and
/// `reduce_in`): `mulx`/`adcx`/`adox` where the CPU has BMI2 and ADX, else `None` (batch-core's
/// portable kernel). Constant-time like the portable one.
pub(crate) fn cpu_mont_kernel() -> Option<&'static dyn batch_core::num::MontKernel> {
    batch_avx2::adx_kernel()
}

/// One kind of backend call, for routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    Modexp,
    ModexpVartime,
    MulBase(Curve),
    MulPoint(Curve),
    MulDoubleVartime(Curve),
    /// `u₁·G + u₂·Q` where at least half the batch's jobs share their `Q` with at least
    /// [`shared_route_min`] jobs each (one key verifying many signatures): backends that
    /// build a comb table per shared point gain there. Without a route of its own it goes
    /// where [`Operation::MulDoubleVartime`] goes.
    MulDoubleSharedVartime(Curve),
}

impl Operation {
    /// Every operation: the two modexps, then the four curve operations of every curve.
    pub fn all() -> Vec<Operation> {
        let mut ops = vec![Operation::Modexp, Operation::ModexpVartime];
        for c in Curve::ALL {
            ops.extend([
                Operation::MulBase(c),
                Operation::MulPoint(c),
                Operation::MulDoubleVartime(c),
                Operation::MulDoubleSharedVartime(c),
            ]);
        }
        ops
    }

    /// The curve of a curve operation.
    pub fn curve(self) -> Option<Curve> {
        match self {
            Operation::Modexp | Operation::ModexpVartime => None,
            Operation::MulBase(c)
            | Operation::MulPoint(c)
            | Operation::MulDoubleVartime(c)
            | Operation::MulDoubleSharedVartime(c) => Some(c),
        }
    }
}

/// Jobs per point from which a shared-key route is taken: where the avx2 backend's comb over
/// a shared point overtakes the scalar wNAF (`avx2bench`, Zen 4, 2026-12-06, avx2 ÷ scalar:
/// P-224 0.94× at 4 jobs a point, 1.12× at 8; P-384 0.98×, 1.14×; P-521 0.99× at 16, 1.06×
/// at 32).
pub fn shared_route_min(curve: Curve) -> usize {
    match curve {
        Curve::P521 => 32,
        _ => 8,
    }
}

/// Whether at least half of `points` (and at least one group) share their point with at
/// least [`shared_route_min`] jobs each. Variable-time (public keys only).
fn mostly_shared(curve: Curve, points: &[AffinePoint]) -> bool {
    let min = shared_route_min(curve);
    if points.len() < min {
        return false;
    }
    let split = batch_core::shared::split_vartime(curve, points, min);
    2 * (points.len() - split.rest.len()) >= points.len()
}

/// The bit length of the widest of `moduli` (0 for none), computed in constant time: RSA's
/// CRT primes are secret, their widths public (`batch_core::num::bits_public`).
fn widest_bits(moduli: &[&[u64]]) -> usize {
    moduli
        .iter()
        .map(|m| batch_core::num::bits_public(m))
        .max()
        .unwrap_or(0)
}

/// Sends each operation to a chosen backend; anything without a route goes to the fallback.
/// A route whose backend is unavailable here, or lacks the route's curve
/// ([`Backend::curves`]), falls back too, so the same table works on every CPU. Results are identical whichever backend runs an operation (the equivalence
/// tests hold every backend to the scalar one), so routing changes speed only.
#[derive(Clone)]
pub struct AutoBackend {
    fallback: Arc<dyn Backend>,
    routes: Vec<(Operation, Arc<dyn Backend>)>,
    /// Large batches to a GPU, ahead of `routes` ([`AutoBackend::with_gpu`]).
    gpu: Option<GpuRoute>,
    /// Why `measured` set no GPU route although asked to (`BATCHSIG_AUTO_GPU` not understood).
    gpu_note: Option<String>,
}

impl core::fmt::Debug for AutoBackend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AutoBackend")
            .field("routes", &self.description())
            .finish()
    }
}

impl AutoBackend {
    /// Routes `routes` (the first usable one per operation), everything else to `fallback`
    /// (which must be available).
    pub fn new(fallback: Arc<dyn Backend>, routes: Vec<(Operation, Arc<dyn Backend>)>) -> Self {
        let supports = |op: &Operation, b: &Arc<dyn Backend>| {
            op.curve().is_none_or(|c| b.curves().contains(&c))
        };
        // The first usable route for an operation is kept; later ones for it are dropped.
        let mut kept: Vec<(Operation, Arc<dyn Backend>)> = Vec::new();
        for (op, b) in routes {
            if b.availability().is_available()
                && supports(&op, &b)
                && !kept.iter().any(|(o, _)| *o == op)
            {
                kept.push((op, b));
            }
        }
        Self {
            fallback,
            routes: kept,
            gpu: None,
            gpu_note: None,
        }
    }

    /// The same routes, with batches of at least `gpu`'s sizes sent to its backend first.
    pub fn with_gpu(self, gpu: GpuRoute) -> Self {
        Self {
            gpu: Some(gpu),
            ..self
        }
    }

    /// The routing measured on this project's reference machines (docs/PERF.md,
    /// `batch-speed --threads 1`, batch 1024), chosen by the CPU features detected here — a
    /// table, not a start-up calibration, so the choice is the same in every process and
    /// costs nothing at start:
    /// - modular exponentiation (RSA sign and verify): `avx512` where the CPU has AVX-512
    ///   IFMA (Zen 4: 2.5–3× `avx2` per job at every RSA size, modexp kernel bench and
    ///   `batch-speed`), else `avx2` (RSA-2048 sign 1.4–2.1× scalar);
    /// - every curve operation where the CPU has AVX-512 IFMA: `avx512` (Zen 4, one thread,
    ///   batch 1024, `examples/ecbench.rs` in batch-avx512: `k·G` 3.1–4.8× scalar, `k·Q`
    ///   3.6–4.8×, `u₁·G + u₂·Q` 1.8–2.8×, every curve);
    /// - elsewhere, where the CPU has BMI2 and ADX (every AVX2 CPU in practice): every P-256,
    ///   P-384 and P-521 operation on `avx2`, whose curves other than P-224 are batch-scalar's
    ///   point code on `mulx`/`adcx`/`adox` fields (`batch_avx2::scalar_ecc`; `avx2bench`,
    ///   Zen 4, 2026-12-06, against the portable field: P-256 `k·Q` 1.4× and `u₁·G + u₂·Q`
    ///   1.3×; P-384 `k·Q` and `u₁·G + u₂·Q` 1.5–1.6×, `k·G` 1.14× or more; P-521 1.40×,
    ///   1.23×, 1.28×);
    /// - P-224 `k·G` and `k·Q` on `avx2`'s four lanes (1.22–1.23× and 1.09× scalar in
    ///   `avx2bench`), and P-224 `u₁·G + u₂·Q` on scalar, where four lanes in lockstep lose
    ///   the scalar wNAF's skipped additions; without BMI2/ADX the four lanes also take `k·G`
    ///   on P-256 and P-384 and `k·Q` on P-384, and scalar the rest;
    /// - but a `u₁·G + u₂·Q` batch on P-224, P-384 or P-521 whose jobs mostly share their
    ///   point ([`Operation::MulDoubleSharedVartime`], [`shared_route_min`]): `avx2`, whose
    ///   comb over a shared point beats the scalar wNAF (one-key verify/s 1.42×, 1.59× and
    ///   1.08–1.23× scalar, Zen 4, 2026-12-06; docs/PERF.md; with BMI2 and ADX that comb is
    ///   the `mulx` fields' own, 1.46–1.48× and 1.16–1.20× at 32 and 128 jobs a point, but for
    ///   P-384 groups of 128 jobs or more).
    ///
    /// A route whose backend is unavailable on this CPU falls back to scalar. Ahead of these,
    /// batches from a size on go to the GPU where [`GpuRoute::measured`] sets a route (no GPU
    /// has been measured yet, so only where `BATCHSIG_AUTO_GPU` asks for one).
    pub fn measured() -> Self {
        let modexp = fastest_cpu_modexp();
        let mut routes = vec![
            (Operation::Modexp, modexp.clone()),
            (Operation::ModexpVartime, modexp),
        ];
        // The first route listed for an operation wins: avx512 first where it runs, then the
        // avx2 routes, which serve every curve where it does not.
        let avx512 = batch_avx512::Avx512Backend::new();
        if avx512.availability().is_available() {
            let avx512: Arc<dyn Backend> = Arc::new(avx512);
            for &c in avx512.curves() {
                for op in [
                    Operation::MulBase(c),
                    Operation::MulPoint(c),
                    Operation::MulDoubleVartime(c),
                    Operation::MulDoubleSharedVartime(c),
                ] {
                    routes.push((op, avx512.clone()));
                }
            }
        }
        let avx2: Arc<dyn Backend> = Arc::new(batch_avx2::Avx2Backend::new());
        routes.extend([
            (Operation::MulBase(Curve::P224), avx2.clone()),
            (Operation::MulBase(Curve::P256), avx2.clone()),
            (Operation::MulBase(Curve::P384), avx2.clone()),
            (Operation::MulPoint(Curve::P224), avx2.clone()),
            (Operation::MulPoint(Curve::P384), avx2.clone()),
            // one key verifying many signatures: avx2's comb over the shared point (one-key
            // verify/s 1.42× scalar on P-224, 1.59× on P-384, 1.08–1.23× on P-521; Zen 4)
            (Operation::MulDoubleSharedVartime(Curve::P224), avx2.clone()),
            (Operation::MulDoubleSharedVartime(Curve::P384), avx2.clone()),
            (Operation::MulDoubleSharedVartime(Curve::P521), avx2.clone()),
        ]);
        // Where the CPU has BMI2 and ADX, every P-256, P-384 and P-521 operation on
        // batch-avx2's `mulx`/`adx` fields (the scalar point code, wNAF verification included;
        // `avx2bench`, Zen 4, against the portable field: P-256 `k·Q` 1.4×, `u₁·G + u₂·Q`
        // 1.3×; P-384 1.14–1.6×; P-521 1.23–1.40×, where its four lanes take 0.75–0.90×).
        // Routes listed above for the same operation win; they are `avx2` too.
        for c in [Curve::P256, Curve::P384, Curve::P521] {
            if batch_avx2::scalar_ecc::has_fast_field(c) {
                routes.extend(
                    [
                        Operation::MulBase(c),
                        Operation::MulPoint(c),
                        Operation::MulDoubleVartime(c),
                    ]
                    .map(|op| (op, avx2.clone())),
                );
            }
        }
        let cpu = Self::new(Arc::new(batch_scalar::ScalarBackend::new()), routes);
        match GpuRoute::measured() {
            Ok(Some(gpu)) => cpu.with_gpu(gpu),
            Ok(None) => cpu,
            Err(why) => Self {
                gpu_note: Some(why),
                ..cpu
            },
        }
    }

    /// The backend that runs `op`.
    pub fn route(&self, op: Operation) -> &dyn Backend {
        match self.routes.iter().find(|(o, _)| *o == op) {
            Some((_, b)) => b.as_ref(),
            None => match op {
                Operation::MulDoubleSharedVartime(c) => self.route(Operation::MulDoubleVartime(c)),
                _ => self.fallback.as_ref(),
            },
        }
    }

    /// The backend for a `u₁·G + u₂·Q` batch over `points`: the shared-key route where the
    /// batch is [`mostly_shared`] and that route differs from the ordinary one (the grouping
    /// is computed only then).
    pub fn route_double(&self, curve: Curve, points: &[AffinePoint]) -> &dyn Backend {
        self.route_double_by(curve, || mostly_shared(curve, points))
    }

    /// [`AutoBackend::route_double`] with the grouping's answer from `shared_batch`, asked
    /// only where the two routes differ.
    fn route_double_by(&self, curve: Curve, shared_batch: impl FnOnce() -> bool) -> &dyn Backend {
        let plain = self.route(Operation::MulDoubleVartime(curve));
        let shared = self.route(Operation::MulDoubleSharedVartime(curve));
        if !std::ptr::addr_eq(plain, shared) && shared_batch() {
            shared
        } else {
            plain
        }
    }

    /// Runs a batch of `op` with `(jobs, bits of its widest modulus)`: on the GPU route where
    /// it takes the batch, else on the CPU backend `cpu` names. A batch the GPU fails as a
    /// whole (a device or driver error, or a result count that is not one per job) reruns on
    /// the CPU, and the route switches off; errors in the caller's input come back as they are.
    fn run<'a, T>(
        &'a self,
        op: Operation,
        (jobs, bits): (usize, usize),
        cpu: impl FnOnce() -> &'a dyn Backend,
        call: impl Fn(&dyn Backend) -> Result<Vec<T>, Error>,
    ) -> Result<Vec<T>, Error> {
        if let Some(gpu) = &self.gpu {
            if let Some(b) = gpu.take(op, jobs, bits) {
                match call(b) {
                    Ok(v) if v.len() != jobs => {
                        gpu.fail(format!("{} results for {jobs} jobs", v.len()))
                    }
                    Err(e @ (Error::Backend(_) | Error::Unavailable(_))) => gpu.fail(e.to_string()),
                    done => return done,
                }
            }
        }
        call(cpu())
    }
}

impl Backend for AutoBackend {
    fn name(&self) -> &'static str {
        "auto"
    }

    fn description(&self) -> String {
        let routes: Vec<String> = self
            .routes
            .iter()
            .map(|(op, b)| format!("{op:?}→{}", b.name()))
            .collect();
        let cpu = if routes.is_empty() {
            format!("every operation on {}", self.fallback.name())
        } else {
            format!(
                "per operation: {}; the rest on {}",
                routes.join(", "),
                self.fallback.name()
            )
        };
        match (&self.gpu, &self.gpu_note) {
            (Some(gpu), _) => format!("{cpu}; large batches: {}", gpu.status()),
            (None, Some(note)) => format!("{cpu}; {note}"),
            (None, None) => cpu,
        }
    }

    fn availability(&self) -> Availability {
        self.fallback.availability()
    }

    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        let op = Operation::Modexp;
        self.run(
            op,
            (jobs.len(), widest_bits(moduli)),
            || self.route(op),
            |b| b.modexp(moduli, jobs),
        )
    }

    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        let op = Operation::ModexpVartime;
        self.run(
            op,
            (jobs.len(), widest_bits(moduli)),
            || self.route(op),
            |b| b.modexp_vartime(moduli, jobs),
        )
    }

    fn modexp_vartime_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&batch_core::ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        // the caller's mismatch, not a device failure (backends report it as `Backend`)
        batch_core::backend::check_caches(moduli, caches)?;
        let op = Operation::ModexpVartime;
        self.run(
            op,
            (jobs.len(), widest_bits(moduli)),
            || self.route(op),
            |b| b.modexp_vartime_cached(moduli, caches, jobs),
        )
    }

    fn modexp_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&batch_core::ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        batch_core::backend::check_caches(moduli, caches)?;
        let op = Operation::Modexp;
        self.run(
            op,
            (jobs.len(), widest_bits(moduli)),
            || self.route(op),
            |b| b.modexp_cached(moduli, caches, jobs),
        )
    }

    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let op = Operation::MulBase(curve);
        self.run(
            op,
            (scalars.len(), 0),
            || self.route(op),
            |b| b.mul_base(curve, scalars),
        )
    }

    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let op = Operation::MulPoint(curve);
        self.run(
            op,
            (points.len(), 0),
            || self.route(op),
            |b| b.mul_point(curve, points, scalars),
        )
    }

    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        let (plain, shared) = (
            Operation::MulDoubleVartime(curve),
            Operation::MulDoubleSharedVartime(curve),
        );
        // The grouping (a hash over the points), at most once, and only where a route tells
        // shared batches apart: the GPU's where its two sizes differ and the batch reaches the
        // smaller, the CPU's where its two backends differ.
        let grouped = std::cell::OnceCell::new();
        let is_shared = || *grouped.get_or_init(|| mostly_shared(curve, points));
        let op = match &self.gpu {
            Some(g) => {
                let (p, s) = (g.min_jobs(plain, 0), g.min_jobs(shared, 0));
                let reaches = p
                    .into_iter()
                    .chain(s)
                    .min()
                    .is_some_and(|m| points.len() >= m);
                if p != s && reaches && is_shared() {
                    shared
                } else {
                    plain
                }
            }
            None => plain,
        };
        self.run(
            op,
            (points.len(), 0),
            || self.route_double_by(curve, is_shared),
            |b| b.mul_double_vartime(curve, u1, u2, points),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_fall_back_when_unavailable() {
        let scalar: Arc<dyn Backend> = Arc::new(batch_scalar::ScalarBackend::new());
        let avx2: Arc<dyn Backend> = Arc::new(batch_avx2::Avx2Backend::new());
        let auto = AutoBackend::new(scalar, vec![(Operation::Modexp, avx2.clone())]);
        let want = if avx2.availability().is_available() {
            "avx2"
        } else {
            "scalar"
        };
        assert_eq!(auto.route(Operation::Modexp).name(), want);
        assert_eq!(auto.route(Operation::MulBase(Curve::P256)).name(), "scalar");
        assert!(auto.availability().is_available());
    }

    #[test]
    fn ifma_takes_modexp_and_curves_where_present() {
        let auto = AutoBackend::measured();
        let ifma = batch_avx512::cpu_support().is_ok();
        let avx2 = batch_avx2::Avx2Backend::new().availability().is_available();
        let want = if ifma {
            "avx512"
        } else if avx2 {
            "avx2"
        } else {
            "scalar"
        };
        assert_eq!(auto.route(Operation::Modexp).name(), want);
        assert_eq!(auto.route(Operation::ModexpVartime).name(), want);
        for c in Curve::ALL {
            let verify = auto.route(Operation::MulDoubleVartime(c)).name();
            let adx_field = c != Curve::P224 && batch_avx2::scalar_ecc::has_fast_field(c) && avx2;
            let want_verify = if ifma {
                "avx512"
            } else if adx_field {
                "avx2"
            } else {
                "scalar"
            };
            assert_eq!(verify, want_verify, "{c:?}");
            let shared = auto.route(Operation::MulDoubleSharedVartime(c)).name();
            let want_shared = if ifma {
                "avx512"
            } else if avx2 && c != Curve::P256 {
                "avx2"
            } else {
                want_verify
            };
            assert_eq!(shared, want_shared, "{c:?} shared");
            let sign = auto.route(Operation::MulBase(c)).name();
            assert_eq!(
                sign,
                if ifma {
                    "avx512"
                } else if avx2 && (c != Curve::P521 || adx_field) {
                    "avx2"
                } else {
                    "scalar"
                },
                "{c:?}"
            );
            let ecdh = auto.route(Operation::MulPoint(c)).name();
            assert_eq!(
                ecdh,
                if ifma {
                    "avx512"
                } else if adx_field || (avx2 && matches!(c, Curve::P224 | Curve::P384)) {
                    "avx2"
                } else {
                    "scalar"
                },
                "{c:?} k·Q"
            );
        }
        if !ifma {
            eprintln!("no AVX-512 IFMA on this CPU: checked the routes without it");
        }
    }

    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    /// How a [`Counting`] backend behaves besides computing on scalar.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Kind {
        Plain,
        /// Available, on a software adapter.
        Emulated,
        /// Unavailable here.
        Absent,
        /// Fails every batch as a whole, as a lost device does.
        Failing,
        /// Returns one result too few.
        Short,
    }

    /// A backend that forwards to scalar and counts its batch calls and its availability
    /// probes.
    #[derive(Debug)]
    struct Counting {
        inner: batch_scalar::ScalarBackend,
        kind: Kind,
        calls: AtomicUsize,
        probes: AtomicUsize,
    }

    impl Counting {
        fn new(kind: Kind) -> Arc<Self> {
            Arc::new(Self {
                inner: batch_scalar::ScalarBackend::new(),
                kind,
                calls: 0.into(),
                probes: 0.into(),
            })
        }

        fn calls(&self) -> usize {
            self.calls.load(Relaxed)
        }

        /// Counts a call, and fails it as a whole for [`Kind::Failing`].
        fn enter(&self) -> Result<(), Error> {
            self.calls.fetch_add(1, Relaxed);
            match self.kind {
                Kind::Failing => Err(Error::Backend("device lost (test)".into())),
                _ => Ok(()),
            }
        }

        /// `results`, one short for [`Kind::Short`].
        fn out<T>(&self, results: Result<Vec<T>, Error>) -> Result<Vec<T>, Error> {
            let mut v = results?;
            if self.kind == Kind::Short {
                v.pop();
            }
            Ok(v)
        }
    }

    impl Backend for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn description(&self) -> String {
            "scalar, counting".into()
        }
        fn availability(&self) -> Availability {
            self.probes.fetch_add(1, Relaxed);
            match self.kind {
                Kind::Absent => Availability::Unavailable("no adapter (test)".into()),
                _ => Availability::Available,
            }
        }
        fn is_emulated(&self) -> bool {
            self.kind == Kind::Emulated
        }
        fn modexp(
            &self,
            moduli: &[&[u64]],
            jobs: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.enter()?;
            self.out(self.inner.modexp(moduli, jobs))
        }
        fn modexp_vartime(
            &self,
            moduli: &[&[u64]],
            jobs: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.enter()?;
            self.out(self.inner.modexp_vartime(moduli, jobs))
        }
        fn mul_base(
            &self,
            curve: Curve,
            scalars: &[EcUint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.enter()?;
            self.out(self.inner.mul_base(curve, scalars))
        }
        fn mul_point(
            &self,
            curve: Curve,
            points: &[AffinePoint],
            scalars: &[EcUint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.enter()?;
            self.out(self.inner.mul_point(curve, points, scalars))
        }
        fn mul_double_vartime(
            &self,
            curve: Curve,
            u1: &[EcUint],
            u2: &[EcUint],
            points: &[AffinePoint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.enter()?;
            self.out(self.inner.mul_double_vartime(curve, u1, u2, points))
        }
    }

    /// A batch goes to the shared-key route exactly when at least half its jobs share a
    /// point in groups of [`shared_route_min`]; a curve without that route keeps the plain one.
    #[test]
    fn shared_key_batches_take_the_shared_route() {
        let scalar = batch_scalar::ScalarBackend::new();
        let (plain, shared) = (Counting::new(Kind::Plain), Counting::new(Kind::Plain));
        let auto = AutoBackend::new(
            plain.clone(),
            vec![(
                Operation::MulDoubleSharedVartime(Curve::P384),
                shared.clone(),
            )],
        );
        let c = Curve::P384;
        let mut r = batch_core::dev::rng(5);
        let keys: Vec<AffinePoint> = scalar
            .mul_base(c, &batch_core::dev::ec_scalars(&mut r, c, 26)[6..]) // past 0, 1, 2, …
            .expect("batch")
            .into_iter()
            .map(|p| p.expect("key"))
            .collect();
        let min = shared_route_min(c);
        // (points, goes to the shared route): 8 of 16 on one key; 7 of 15; every job its own
        // key; 8 jobs a key over two keys; and a group one short of the minimum
        let cases: [(Vec<AffinePoint>, bool); 5] = [
            ([vec![keys[0]; min], keys[1..=8].to_vec()].concat(), true),
            (
                [vec![keys[0]; min - 1], keys[1..=8].to_vec()].concat(),
                false,
            ),
            (keys.clone(), false),
            ([vec![keys[0]; min], vec![keys[1]; min]].concat(), true),
            (vec![keys[0]; min - 1], false),
        ];
        for (i, (pts, want_shared)) in cases.iter().enumerate() {
            let u1 = batch_core::dev::ec_scalars(&mut r, c, pts.len());
            let u2 = batch_core::dev::ec_scalars(&mut r, c, pts.len());
            let before = (plain.calls(), shared.calls());
            let got = auto.mul_double_vartime(c, &u1, &u2, pts).expect("batch");
            let want = scalar.mul_double_vartime(c, &u1, &u2, pts).expect("batch");
            assert_eq!(got, want, "case {i}");
            let after = (plain.calls(), shared.calls());
            let took_shared = after.1 > before.1;
            assert_eq!(took_shared, *want_shared, "case {i}");
            assert_eq!(
                after.0 + after.1,
                before.0 + before.1 + 1,
                "case {i}: one call"
            );
        }
        // P-256 has no shared route here: a shared batch stays on the plain route
        let g = Curve::P256.generator();
        let u = batch_core::dev::ec_scalars(&mut r, Curve::P256, 2 * min);
        let before = shared.calls();
        auto.mul_double_vartime(Curve::P256, &u[..min], &u[min..], &vec![g; min])
            .expect("batch");
        assert_eq!(shared.calls(), before);
    }

    /// What [`every_call`] returns: each call's results, `None` where it failed as a whole.
    #[derive(Debug, PartialEq)]
    struct Calls {
        modexps: [Option<Vec<JobResult<Vec<u64>>>>; 2],
        points: [Option<Vec<JobResult<AffinePoint>>>; 3],
    }

    /// `n` jobs of each of five operations (both modexps on a 256-bit modulus, `k·G`, `k·Q`
    /// and `u₁·G + u₂·Q` on P-256) run through `b`.
    fn every_call(b: &dyn Backend, n: usize) -> Calls {
        let c = Curve::P256;
        let mut r = batch_core::dev::rng(n as u64);
        let m = batch_core::dev::random_modulus(&mut r, 256);
        let bases = batch_core::dev::modexp_bases(&mut r, &m, n);
        let exps = batch_core::dev::modexp_exponents(&mut r, 4, n);
        let jobs: Vec<ModexpJob<'_>> = (0..n)
            .map(|i| ModexpJob {
                base: &bases[i],
                exponent: &exps[i],
                modulus: 0,
            })
            .collect();
        let k = batch_core::dev::ec_scalars(&mut r, c, 2 * n);
        let q = vec![c.generator(); n];
        Calls {
            modexps: [
                b.modexp(&[&m], &jobs).ok(),
                b.modexp_vartime(&[&m], &jobs).ok(),
            ],
            points: [
                b.mul_base(c, &k[..n]).ok(),
                b.mul_point(c, &q, &k[..n]).ok(),
                b.mul_double_vartime(c, &k[..n], &k[n..], &q).ok(),
            ],
        }
    }

    /// Asserts that `auto`'s description says every one of `what`.
    fn says(auto: &AutoBackend, what: &[&str]) {
        let d = auto.description();
        assert!(what.iter().all(|w| d.contains(w)), "{what:?} not in: {d}");
    }

    /// Batches reach the GPU route's backend exactly from their operation's size; it is
    /// probed once, on the first batch that reaches a size; results are scalar's either way.
    #[test]
    fn gpu_route_takes_batches_from_their_size() {
        let scalar = batch_scalar::ScalarBackend::new();
        let (cpu, gpu) = (Counting::new(Kind::Plain), Counting::new(Kind::Plain));
        let c = Curve::P256;
        let route = GpuRoute::new(
            gpu.clone(),
            vec![
                // every_call's modulus has 256 bits: the second entry is the one for it
                Threshold::new(Operation::Modexp, 100).up_to_bits(255),
                Threshold::new(Operation::Modexp, 3).up_to_bits(256),
                Threshold::new(Operation::MulBase(c), 2),
                Threshold::new(Operation::MulDoubleVartime(c), 4),
            ],
        );
        let shared = Operation::MulDoubleSharedVartime(c);
        assert_eq!(route.min_jobs(shared, 0), Some(4));
        assert_eq!(route.min_jobs(Operation::MulBase(Curve::P384), 0), None);
        assert_eq!(route.min_jobs(Operation::Modexp, 200), Some(100));
        assert_eq!(
            route.min_jobs(Operation::Modexp, 257),
            None,
            "wider than any"
        );
        assert_eq!(route.min_jobs(Operation::ModexpVartime, 256), None);
        let auto = AutoBackend::new(cpu.clone(), vec![]).with_gpu(route);
        says(&auto, &["not yet opened"]);
        // (batch size, how many of the five calls go to the GPU)
        for (n, on_gpu) in [(1, 0), (2, 1), (3, 2), (4, 3), (9, 3)] {
            let (before_cpu, before_gpu) = (cpu.calls(), gpu.calls());
            let got = every_call(&auto, n);
            assert_eq!(got, every_call(&scalar, n), "batch {n}");
            assert_eq!(gpu.calls() - before_gpu, on_gpu, "batch {n}");
            assert_eq!(cpu.calls() - before_cpu, 5 - on_gpu, "batch {n}");
            let probes = gpu.probes.load(Relaxed);
            assert_eq!(
                probes,
                usize::from(on_gpu > 0),
                "batch {n}: probed once, when due"
            );
        }
        says(&auto, &["(in use)"]);
    }

    /// A software adapter is refused unless the route allows it, and an unavailable backend
    /// leaves every batch on the CPU; both say why.
    #[test]
    fn gpu_route_refuses_software_and_absent_adapters() {
        let scalar = batch_scalar::ScalarBackend::new();
        for (kind, allow, want_gpu, why) in [
            (Kind::Emulated, false, false, "software"),
            (Kind::Emulated, true, true, "in use"),
            (Kind::Absent, true, false, "no adapter (test)"),
        ] {
            let (cpu, gpu) = (Counting::new(Kind::Plain), Counting::new(kind));
            let mut route = GpuRoute::everything_from(gpu.clone(), 1);
            if allow {
                route = route.allow_emulated();
            }
            let auto = AutoBackend::new(cpu.clone(), vec![]).with_gpu(route);
            for _ in 0..2 {
                assert_eq!(every_call(&auto, 3), every_call(&scalar, 3), "{kind:?}");
            }
            assert_eq!(gpu.calls(), if want_gpu { 10 } else { 0 }, "{kind:?}");
            assert_eq!(gpu.probes.load(Relaxed), 1, "{kind:?}");
            says(&auto, &[why, "every operation from 1 jobs"]);
        }
    }

    /// A batch the GPU fails as a whole (an error, or a result missing) is run on the CPU,
    /// with nothing lost, and the route stays off afterwards.
    #[test]
    fn gpu_failure_falls_back_and_switches_the_route_off() {
        let scalar = batch_scalar::ScalarBackend::new();
        for (kind, why) in [
            (Kind::Failing, "device lost (test)"),
            (Kind::Short, "1 results for 2 jobs"),
        ] {
            let (cpu, gpu) = (Counting::new(Kind::Plain), Counting::new(kind));
            let auto = AutoBackend::new(cpu.clone(), vec![])
                .with_gpu(GpuRoute::everything_from(gpu.clone(), 2));
            assert_eq!(every_call(&auto, 2), every_call(&scalar, 2), "{kind:?}");
            assert_eq!((gpu.calls(), cpu.calls()), (1, 5), "{kind:?}: failed over");
            assert_eq!(every_call(&auto, 2), every_call(&scalar, 2), "{kind:?}");
            assert_eq!((gpu.calls(), cpu.calls()), (1, 10), "{kind:?}: stays off");
            says(&auto, &["switched off", why]);
        }
    }

    /// Errors in the caller's input are the caller's, not the device's: they come back as
    /// they are, without a CPU rerun, and leave the route on.
    #[test]
    fn input_errors_leave_the_gpu_route_on() {
        let (cpu, gpu) = (Counting::new(Kind::Plain), Counting::new(Kind::Plain));
        let auto = AutoBackend::new(cpu.clone(), vec![])
            .with_gpu(GpuRoute::everything_from(gpu.clone(), 1));
        let k = batch_core::dev::ec_scalars(&mut batch_core::dev::rng(3), Curve::P256, 2);
        let err = auto
            .mul_point(Curve::P256, &[Curve::P256.generator()], &k)
            .expect_err("length mismatch");
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
        assert_eq!((gpu.calls(), cpu.calls()), (1, 0));
        says(&auto, &["(in use)"]);
        // caches that do not pair with the moduli: backends call that `Backend`, but it is
        // the caller's, so auto checks it before the route
        let m = batch_core::dev::random_modulus(&mut batch_core::dev::rng(4), 256);
        let job = ModexpJob {
            base: &[3, 0, 0, 0],
            exponent: &[65537],
            modulus: 0,
        };
        let err = auto
            .modexp_vartime_cached(&[&m], &[], &[job])
            .expect_err("no cache for the modulus");
        assert!(matches!(err, Error::Backend(_)), "{err}");
        assert_eq!((gpu.calls(), cpu.calls()), (1, 0));
        says(&auto, &["(in use)"]);
    }

    /// With a GPU size for shared-key verification apart from the plain one, a batch mostly
    /// under shared keys goes by the shared size, any other by the plain one.
    #[test]
    fn gpu_route_tells_shared_key_batches_apart() {
        let scalar = batch_scalar::ScalarBackend::new();
        let c = Curve::P256;
        let (cpu, gpu) = (Counting::new(Kind::Plain), Counting::new(Kind::Plain));
        let auto = AutoBackend::new(cpu.clone(), vec![]).with_gpu(GpuRoute::new(
            gpu.clone(),
            vec![
                Threshold::new(Operation::MulDoubleVartime(c), 100),
                Threshold::new(Operation::MulDoubleSharedVartime(c), 8),
            ],
        ));
        let mut r = batch_core::dev::rng(6);
        let keys: Vec<AffinePoint> = scalar
            .mul_base(c, &batch_core::dev::ec_scalars(&mut r, c, 12)[4..])
            .expect("batch")
            .into_iter()
            .map(|p| p.expect("key"))
            .collect();
        let min = shared_route_min(c);
        // (points, goes to the GPU): one key for 8 jobs; 8 distinct keys; 7 jobs on one key
        for (pts, want_gpu) in [
            (vec![keys[0]; min], true),
            (keys.clone(), false),
            (vec![keys[1]; 7], false),
        ] {
            let u = batch_core::dev::ec_scalars(&mut r, c, 2 * pts.len());
            let (u1, u2) = u.split_at(pts.len());
            let before = gpu.calls();
            let got = auto.mul_double_vartime(c, u1, u2, &pts).expect("batch");
            assert_eq!(
                got,
                scalar.mul_double_vartime(c, u1, u2, &pts).expect("batch")
            );
            assert_eq!(gpu.calls() > before, want_gpu, "{} jobs", pts.len());
        }
    }

    #[test]
    fn widest_modulus_bits() {
        assert_eq!(widest_bits(&[]), 0);
        assert_eq!(widest_bits(&[&[1]]), 1);
        assert_eq!(widest_bits(&[&[u64::MAX]]), 64);
        assert_eq!(
            widest_bits(&[&[5, 1, 0], &[7]]),
            65,
            "top zero limbs do not count"
        );
        assert_eq!(widest_bits(&[&[7], &[0, 0, 1 << 62]]), 191);
    }

    #[test]
    fn auto_agrees_with_scalar() {
        let scalar = batch_scalar::ScalarBackend::new();
        batch_core::dev::check_backend_vs_reference(
            &scalar,
            &AutoBackend::measured(),
            &Curve::ALL,
            &[2048],
            &[0, 1, 5, 9],
            77,
        );
        // batches mostly on shared keys, groups above every curve's shared_route_min
        batch_core::dev::check_shared_points_vs_reference(
            &scalar,
            &AutoBackend::measured(),
            33,
            78,
        );
    }

    #[test]
    fn registry_names_are_unique() {
        let names: Vec<&str> = all_backends().iter().map(|b| b.name()).collect();
        let want: &[&str] = if cfg!(feature = "wgpu") {
            &["scalar", "avx2", "avx512", "wgpu", "auto"]
        } else {
            &["scalar", "avx2", "avx512", "auto"]
        };
        assert_eq!(names, want);
        assert_eq!(default_backend().name(), "auto");
        assert!(by_name("avx2").is_some() && by_name("gpu9000").is_none());
    }
}
