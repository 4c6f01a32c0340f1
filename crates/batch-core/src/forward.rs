//! Backends built on another backend: every operation forwards to the inner one unless the
//! implementation replaces it.
//!
//! For instrumentation and fault injection — counting calls or keys, corrupting one result,
//! failing a batch as a lost device does, routing signing to a variable-time path to show that
//! the constant-time check catches it — without restating the whole [`Backend`] trait for the
//! one operation that changes. Every type implementing [`Forward`] is a [`Backend`]:
//!
//! ```
//! use batch_core::{AffinePoint, Backend, Curve, EcUint, Error, Forward, JobResult};
//!
//! /// Fails every `k·G` batch, as a GPU that lost its device would; the rest is `B`'s.
//! #[derive(Debug)]
//! struct LostDevice<B>(B);
//!
//! impl<B: Backend> Forward for LostDevice<B> {
//!     fn inner(&self) -> &dyn Backend {
//!         &self.0
//!     }
//!     fn name(&self) -> &'static str {
//!         "lost-device"
//!     }
//!     fn mul_base(&self, _: Curve, _: &[EcUint]) -> Result<Vec<JobResult<AffinePoint>>, Error> {
//!         Err(Error::Backend("device lost".into()))
//!     }
//! }
//!
//! /// What a scheme sees: a `Backend` like any other.
//! fn losing(b: impl Backend + 'static) -> Box<dyn Backend> {
//!     Box::new(LostDevice(b))
//! }
//! ```

use core::fmt::Debug;

use crate::backend::{check_caches, Availability, Backend, ModexpJob, ModulusCache};
use crate::curve::{AffinePoint, Curve, EcUint};
use crate::error::{Error, JobResult};

/// A backend that forwards to [`Forward::inner`]; each method's default is the inner
/// backend's, except [`Forward::modexp_vartime_cached`] and [`Forward::modexp_cached`]
/// (below). Implementing it makes the
/// type a [`Backend`].
pub trait Forward: Send + Sync + Debug {
    /// The backend every operation not replaced here goes to.
    fn inner(&self) -> &dyn Backend;

    /// [`Backend::name`]: required, so that a wrapper is never reported as what it wraps.
    fn name(&self) -> &'static str;

    /// [`Backend::description`].
    fn description(&self) -> String {
        self.inner().description()
    }

    /// [`Backend::availability`].
    fn availability(&self) -> Availability {
        self.inner().availability()
    }

    /// [`Backend::is_emulated`].
    fn is_emulated(&self) -> bool {
        self.inner().is_emulated()
    }

    /// [`Backend::curves`].
    fn curves(&self) -> &'static [Curve] {
        self.inner().curves()
    }

    /// [`Backend::modexp`].
    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.inner().modexp(moduli, jobs)
    }

    /// [`Backend::modexp_vartime`].
    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        self.inner().modexp_vartime(moduli, jobs)
    }

    /// [`Backend::modexp_vartime_cached`]. The default is the trait's: the caches checked,
    /// then **this** type's [`Forward::modexp_vartime`], so that a wrapper replacing
    /// `modexp_vartime` sees the calls that come with caches (RSA verification under key
    /// objects) too. A wrapper that leaves `modexp_vartime` alone and wants the inner
    /// backend's cached path forwards this as well.
    fn modexp_vartime_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        check_caches(moduli, caches)?;
        self.modexp_vartime(moduli, jobs)
    }

    /// [`Backend::modexp_cached`]. As with [`Forward::modexp_vartime_cached`], the default is
    /// the trait's: the caches checked, then **this** type's [`Forward::modexp`], so that a
    /// wrapper replacing `modexp` sees RSA signing (which comes with the key's prime caches).
    fn modexp_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        check_caches(moduli, caches)?;
        self.modexp(moduli, jobs)
    }

    /// [`Backend::mul_base`].
    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        self.inner().mul_base(curve, scalars)
    }

    /// [`Backend::mul_point`].
    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        self.inner().mul_point(curve, points, scalars)
    }

    /// [`Backend::mul_double_vartime`].
    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        self.inner().mul_double_vartime(curve, u1, u2, points)
    }
}

impl<F: Forward> Backend for F {
    fn name(&self) -> &'static str {
        Forward::name(self)
    }
    fn description(&self) -> String {
        Forward::description(self)
    }
    fn availability(&self) -> Availability {
        Forward::availability(self)
    }
    fn is_emulated(&self) -> bool {
        Forward::is_emulated(self)
    }
    fn curves(&self) -> &'static [Curve] {
        Forward::curves(self)
    }
    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        Forward::modexp(self, moduli, jobs)
    }
    fn modexp_vartime(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        Forward::modexp_vartime(self, moduli, jobs)
    }
    fn modexp_vartime_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        Forward::modexp_vartime_cached(self, moduli, caches, jobs)
    }
    fn modexp_cached(
        &self,
        moduli: &[&[u64]],
        caches: &[&ModulusCache],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
        Forward::modexp_cached(self, moduli, caches, jobs)
    }
    fn mul_base(
        &self,
        curve: Curve,
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        Forward::mul_base(self, curve, scalars)
    }
    fn mul_point(
        &self,
        curve: Curve,
        points: &[AffinePoint],
        scalars: &[EcUint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        Forward::mul_point(self, curve, points, scalars)
    }
    fn mul_double_vartime(
        &self,
        curve: Curve,
        u1: &[EcUint],
        u2: &[EcUint],
        points: &[AffinePoint],
    ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
        Forward::mul_double_vartime(self, curve, u1, u2, points)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// An inner backend that records which of its methods ran and answers each operation with
    /// a result that names it (an error per operation, an empty vector for the modexps).
    #[derive(Debug, Default)]
    struct Recorder(Mutex<Vec<&'static str>>);

    impl Recorder {
        fn hit(&self, what: &'static str) {
            self.0.lock().unwrap().push(what);
        }
        fn log(&self) -> Vec<&'static str> {
            std::mem::take(&mut self.0.lock().unwrap())
        }
    }

    impl Backend for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn description(&self) -> String {
            "records its calls".into()
        }
        fn availability(&self) -> Availability {
            Availability::Unavailable("inner".into())
        }
        fn is_emulated(&self) -> bool {
            true
        }
        fn curves(&self) -> &'static [Curve] {
            &[Curve::P384]
        }
        fn modexp(
            &self,
            _: &[&[u64]],
            _: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.hit("modexp");
            Ok(vec![])
        }
        fn modexp_vartime(
            &self,
            _: &[&[u64]],
            _: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.hit("modexp_vartime");
            Ok(vec![])
        }
        fn modexp_vartime_cached(
            &self,
            _: &[&[u64]],
            _: &[&ModulusCache],
            _: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.hit("modexp_vartime_cached");
            Ok(vec![])
        }
        fn modexp_cached(
            &self,
            _: &[&[u64]],
            _: &[&ModulusCache],
            _: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.hit("modexp_cached");
            Ok(vec![])
        }
        fn mul_base(&self, _: Curve, _: &[EcUint]) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.hit("mul_base");
            Err(Error::Backend("mul_base".into()))
        }
        fn mul_point(
            &self,
            _: Curve,
            _: &[AffinePoint],
            _: &[EcUint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.hit("mul_point");
            Err(Error::Backend("mul_point".into()))
        }
        fn mul_double_vartime(
            &self,
            _: Curve,
            _: &[EcUint],
            _: &[EcUint],
            _: &[AffinePoint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            self.hit("mul_double_vartime");
            Err(Error::Backend("mul_double_vartime".into()))
        }
    }

    /// Replaces nothing.
    #[derive(Debug, Default)]
    struct Plain(Recorder);
    impl Forward for Plain {
        fn inner(&self) -> &dyn Backend {
            &self.0
        }
        fn name(&self) -> &'static str {
            "plain"
        }
    }

    /// Replaces `modexp_vartime` (sends it to `modexp`) and `mul_point`.
    #[derive(Debug, Default)]
    struct Swapped(Recorder);
    impl Forward for Swapped {
        fn inner(&self) -> &dyn Backend {
            &self.0
        }
        fn name(&self) -> &'static str {
            "swapped"
        }
        fn modexp_vartime(
            &self,
            moduli: &[&[u64]],
            jobs: &[ModexpJob<'_>],
        ) -> Result<Vec<JobResult<Vec<u64>>>, Error> {
            self.0.modexp(moduli, jobs)
        }
        fn mul_point(
            &self,
            _: Curve,
            _: &[AffinePoint],
            _: &[EcUint],
        ) -> Result<Vec<JobResult<AffinePoint>>, Error> {
            Err(Error::Unavailable("replaced".into()))
        }
    }

    /// Every operation through `b` as a `dyn Backend`; the error text of each EC operation.
    fn call_all(b: &dyn Backend) -> [String; 3] {
        let (cache, secret) = (ModulusCache::new(), ModulusCache::new_secret());
        let m: &[u64] = &[7];
        assert!(b.modexp(&[m], &[]).unwrap().is_empty());
        assert!(b.modexp_vartime(&[m], &[]).unwrap().is_empty());
        assert!(b
            .modexp_vartime_cached(&[m], &[&cache], &[])
            .unwrap()
            .is_empty());
        assert!(b.modexp_cached(&[m], &[&secret], &[]).unwrap().is_empty());
        let c = Curve::P256;
        [
            b.mul_base(c, &[]).unwrap_err().to_string(),
            b.mul_point(c, &[], &[]).unwrap_err().to_string(),
            b.mul_double_vartime(c, &[], &[], &[])
                .unwrap_err()
                .to_string(),
        ]
    }

    #[test]
    fn forwards_what_is_not_replaced() {
        let p = Plain::default();
        let b: &dyn Backend = &p;
        assert_eq!(b.name(), "plain");
        assert_eq!(b.description(), "records its calls");
        assert_eq!(b.availability(), Availability::Unavailable("inner".into()));
        assert!(b.is_emulated());
        assert_eq!(b.curves(), &[Curve::P384]);
        let errs = call_all(b);
        for (e, op) in errs
            .iter()
            .zip(["mul_base", "mul_point", "mul_double_vartime"])
        {
            assert!(e.contains(op), "{e}");
        }
        // the cached calls reach this wrapper's `modexp_vartime` and `modexp`, which forward
        // them uncached
        assert_eq!(
            p.0.log(),
            [
                "modexp",
                "modexp_vartime",
                "modexp_vartime",
                "modexp",
                "mul_base",
                "mul_point",
                "mul_double_vartime"
            ]
        );
        // a mismatch between moduli and caches fails before reaching anything
        assert!(b.modexp_vartime_cached(&[&[7]], &[], &[]).is_err());
        assert!(b.modexp_cached(&[&[7]], &[], &[]).is_err());
        assert!(p.0.log().is_empty());
    }

    #[test]
    fn replaced_operations_run_instead() {
        let s = Swapped::default();
        let errs = call_all(&s);
        assert!(errs[0].contains("mul_base"), "{}", errs[0]);
        assert!(errs[1].contains("replaced"), "{}", errs[1]);
        assert!(errs[2].contains("mul_double_vartime"), "{}", errs[2]);
        // both variable-time calls, the cached one included, went to `modexp`, as did the
        // constant-time cached one
        assert_eq!(
            s.0.log(),
            [
                "modexp",
                "modexp",
                "modexp",
                "modexp",
                "mul_base",
                "mul_double_vartime"
            ]
        );
    }
}
