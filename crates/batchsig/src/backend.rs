//! Backend registry and selection, including [`AutoBackend`]: each operation on the backend
//! measured fastest for it.

use std::sync::Arc;

use batch_core::{AffinePoint, Availability, Backend, Curve, EcUint, Error, JobResult, ModexpJob};

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

/// Sends each operation to a chosen backend; anything without a route goes to the fallback.
/// A route whose backend is unavailable here, or lacks the route's curve
/// ([`Backend::curves`]), falls back too, so the same table works on every CPU. Results are identical whichever backend runs an operation (the equivalence
/// tests hold every backend to the scalar one), so routing changes speed only.
#[derive(Clone)]
pub struct AutoBackend {
    fallback: Arc<dyn Backend>,
    routes: Vec<(Operation, Arc<dyn Backend>)>,
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
        let supports = |op: &Operation, b: &Arc<dyn Backend>| match op {
            Operation::Modexp | Operation::ModexpVartime => true,
            Operation::MulBase(c)
            | Operation::MulPoint(c)
            | Operation::MulDoubleVartime(c)
            | Operation::MulDoubleSharedVartime(c) => b.curves().contains(c),
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
    /// A route whose backend is unavailable on this CPU falls back to scalar.
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
        Self::new(Arc::new(batch_scalar::ScalarBackend::new()), routes)
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
        let plain = self.route(Operation::MulDoubleVartime(curve));
        let shared = self.route(Operation::MulDoubleSharedVartime(curve));
        if !std::ptr::addr_eq(plain, shared) && mostly_shared(curve, points) {
            shared
        } else {
            plain
        }
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
        if routes.is_empty() {
            format!("every operation on {}", self.fallback.name())
        } else {
            format!(
                "per operation: {}; the rest on {}",
                routes.join(", "),
                self.fallback.name()
            )
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
        self.route(Operation::Modexp).modexp(moduli, jobs)
    }

    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.route(Operation::ModexpVartime)
            .modexp_vartime(moduli, jobs)
    }

    fn modexp_vartime_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&batch_core::ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.route(Operation::ModexpVartime)
            .modexp_vartime_cached(moduli, caches, jobs)
    }

    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        self.route(Operation::MulBase(curve))
            .mul_base(curve, scalars)
    }

    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        self.route(Operation::MulPoint(curve))
            .mul_point(curve, points, scalars)
    }

    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        self.route_double(curve, points)
            .mul_double_vartime(curve, u1, u2, points)
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

    /// A backend that forwards to scalar and counts its `u₁·G + u₂·Q` calls.
    #[derive(Debug)]
    struct Counting(batch_scalar::ScalarBackend, std::sync::atomic::AtomicUsize);

    impl Backend for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn description(&self) -> String {
            "scalar, counting".into()
        }
        fn availability(&self) -> Availability {
            Availability::Available
        }
        fn modexp(
            &self,
            moduli: &[&[u64]],
            jobs: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.0.modexp(moduli, jobs)
        }
        fn modexp_vartime(
            &self,
            moduli: &[&[u64]],
            jobs: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.0.modexp_vartime(moduli, jobs)
        }
        fn mul_base(
            &self,
            curve: Curve,
            scalars: &[EcUint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.0.mul_base(curve, scalars)
        }
        fn mul_point(
            &self,
            curve: Curve,
            points: &[AffinePoint],
            scalars: &[EcUint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.0.mul_point(curve, points, scalars)
        }
        fn mul_double_vartime(
            &self,
            curve: Curve,
            u1: &[EcUint],
            u2: &[EcUint],
            points: &[AffinePoint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.0.mul_double_vartime(curve, u1, u2, points)
        }
    }

    /// A batch goes to the shared-key route exactly when at least half its jobs share a
    /// point in groups of [`shared_route_min`]; a curve without that route keeps the plain one.
    #[test]
    fn shared_key_batches_take_the_shared_route() {
        use std::sync::atomic::Ordering::Relaxed;
        let scalar = batch_scalar::ScalarBackend::new();
        let counting = || Arc::new(Counting(batch_scalar::ScalarBackend::new(), 0.into()));
        let (plain, shared) = (counting(), counting());
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
            let before = (plain.1.load(Relaxed), shared.1.load(Relaxed));
            let got = auto.mul_double_vartime(c, &u1, &u2, pts).expect("batch");
            let want = scalar.mul_double_vartime(c, &u1, &u2, pts).expect("batch");
            assert_eq!(got, want, "case {i}");
            let after = (plain.1.load(Relaxed), shared.1.load(Relaxed));
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
        let before = shared.1.load(Relaxed);
        auto.mul_double_vartime(Curve::P256, &u[..min], &u[min..], &vec![g; min])
            .expect("batch");
        assert_eq!(shared.1.load(Relaxed), before);
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
