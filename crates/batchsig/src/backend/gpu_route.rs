//! [`GpuRoute`]: [`AutoBackend`](super::AutoBackend)'s large batches on a GPU.
//!
//! A GPU pays a fixed cost per batch (upload, dispatch, readback, a device that may need to
//! wake up) and then runs thousands of jobs at once, so it overtakes the CPU backends only from
//! some batch size on. `batch-speed --sweep` finds that size (its crossover lines); the route
//! sends every batch of at least that many jobs to the GPU and the rest to the CPU routes.

use std::sync::{Arc, OnceLock};

use batch_core::{Availability, Backend};

use super::Operation;

/// Batches from a size on, per operation, to a GPU backend. The backend is asked whether it
/// can run (which opens its device) on the first batch that reaches a size, not before, and
/// once: a machine without an adapter pays nothing until then, and nothing after. A software
/// adapter (llvmpipe: the "GPU" is the CPU's own cores) is refused unless
/// [`GpuRoute::allow_emulated`] says otherwise. When a batch fails on the GPU as a whole
/// (device lost, driver error), that batch and every later one run on the CPU routes, and
/// [`GpuRoute::status`] says why.
#[derive(Clone)]
pub struct GpuRoute {
    backend: Arc<dyn Backend>,
    from: Vec<Threshold>,
    allow_emulated: bool,
    state: Arc<State>,
}

#[derive(Default)]
struct State {
    /// The first qualifying batch's answer: `Ok` where the backend runs, else why not.
    probe: OnceLock<Result<(), String>>,
    /// The first whole-batch failure, after which the route is off.
    failed: OnceLock<String>,
}

impl core::fmt::Debug for GpuRoute {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GpuRoute")
            .field("backend", &self.backend.name())
            .field("from", &self.from)
            .field("allow_emulated", &self.allow_emulated)
            .finish()
    }
}

/// From how many jobs a batch of one operation goes to the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threshold {
    pub op: Operation,
    /// Jobs in the backend call (an RSA signature is two `Modexp` jobs, its CRT halves).
    pub jobs: usize,
    /// For the modexps: the widest modulus, in bits, this size holds for; a batch with a wider
    /// one takes the next entry that covers it, or stays on the CPU. `None`: any width.
    pub max_bits: Option<usize>,
}

impl Threshold {
    /// `op` from `jobs` jobs, at any modulus width.
    pub const fn new(op: Operation, jobs: usize) -> Self {
        Self {
            op,
            jobs,
            max_bits: None,
        }
    }

    /// The same, for batches whose widest modulus has at most `bits` bits.
    pub const fn up_to_bits(self, bits: usize) -> Self {
        Self {
            max_bits: Some(bits),
            ..self
        }
    }

    fn covers(&self, op: Operation, bits: usize) -> bool {
        self.op == op && self.max_bits.is_none_or(|m| bits <= m)
    }
}

/// The batch sizes from which a GPU beat every CPU backend on this project's machines, for
/// [`GpuRoute::measured`]: the first entry that covers a batch's operation and modulus width
/// counts. Empty: no GPU has been lent to this project yet (issue 18), so
/// nothing is measured and `auto` stays on the CPU unless `BATCHSIG_AUTO_GPU` asks otherwise.
/// `scripts/gpu-run.sh` prints the crossover to enter here.
const MEASURED_FROM: &[Threshold] = &[];

/// What `BATCHSIG_AUTO_GPU` asks for.
#[derive(Debug, PartialEq)]
enum Wanted {
    /// Unset or empty: the measured sizes.
    Measured,
    Off,
    /// Every operation from this many jobs, on any adapter.
    From(usize),
}

impl Wanted {
    fn parse(value: Option<&str>) -> Result<Self, String> {
        match value.map(str::trim) {
            None | Some("") => Ok(Wanted::Measured),
            Some(v) if v.eq_ignore_ascii_case("off") => Ok(Wanted::Off),
            Some(v) => match v.parse::<usize>() {
                Ok(n) if n > 0 => Ok(Wanted::From(n)),
                _ => Err(format!(
                    "{ENV}={v:?} not understood (a batch size of at least 1, or `off`): no GPU route"
                )),
            },
        }
    }
}

/// The environment variable that sets the GPU route of [`super::AutoBackend::measured`].
pub const ENV: &str = "BATCHSIG_AUTO_GPU";

impl GpuRoute {
    /// `backend` takes every batch that reaches the first of `from` covering it. An operation
    /// not listed never goes to it; [`Operation::MulDoubleSharedVartime`] not listed goes
    /// where [`Operation::MulDoubleVartime`] does, as in the CPU routes.
    pub fn new(backend: Arc<dyn Backend>, from: Vec<Threshold>) -> Self {
        Self {
            backend,
            from,
            allow_emulated: false,
            state: Arc::default(),
        }
    }

    /// Every operation of [`Operation::all`] from `jobs` jobs.
    pub fn everything_from(backend: Arc<dyn Backend>, jobs: usize) -> Self {
        Self::new(
            backend,
            Operation::all()
                .into_iter()
                .map(|op| Threshold::new(op, jobs))
                .collect(),
        )
    }

    /// The same route, taking a software adapter too (tests, or a user who asked for it).
    pub fn allow_emulated(self) -> Self {
        Self {
            allow_emulated: true,
            ..self
        }
    }

    /// The GPU route of [`super::AutoBackend::measured`], on the wgpu backend (the adapter
    /// wgpu's environment variables choose):
    /// - `BATCHSIG_AUTO_GPU` unset: the measured sizes (`MEASURED_FROM` in this file; none yet, so no
    ///   route), hardware adapters only;
    /// - `BATCHSIG_AUTO_GPU=off`: no route;
    /// - `BATCHSIG_AUTO_GPU=N`: every operation from `N` jobs, on whatever adapter wgpu opens,
    ///   a software one included (the caller asked for it).
    ///
    /// `Err` says why a value was not understood (then there is no route). Without the `wgpu`
    /// feature there is never a route. Made once per process: every `auto` shares the one
    /// route, its device, and its state (a route switched off stays off).
    pub fn measured() -> Result<Option<Self>, String> {
        static ROUTE: OnceLock<Result<Option<GpuRoute>, String>> = OnceLock::new();
        ROUTE.get_or_init(Self::from_env).clone()
    }

    fn from_env() -> Result<Option<Self>, String> {
        let from = match Wanted::parse(std::env::var(ENV).ok().as_deref())? {
            Wanted::Off => return Ok(None),
            Wanted::Measured if MEASURED_FROM.is_empty() => return Ok(None),
            Wanted::Measured => None,
            Wanted::From(n) => Some(n),
        };
        #[cfg(feature = "wgpu")]
        {
            let gpu: Arc<dyn Backend> = Arc::new(batch_wgpu::WgpuBackend::new());
            Ok(Some(match from {
                Some(n) => Self::everything_from(gpu, n).allow_emulated(),
                None => Self::new(gpu, MEASURED_FROM.to_vec()),
            }))
        }
        #[cfg(not(feature = "wgpu"))]
        {
            // the measured sizes are for builds with a GPU backend; only an explicit ask fails
            if from.is_none() {
                return Ok(None);
            }
            Err(format!(
                "{ENV} asks for a GPU route but this build has no GPU backend (the `wgpu` feature)"
            ))
        }
    }

    /// The fewest jobs a batch of `op` needs to go to the GPU, if it ever does; `bits`: the
    /// batch's widest modulus (0 for the curve operations).
    pub fn min_jobs(&self, op: Operation, bits: usize) -> Option<usize> {
        let find = |op| {
            self.from
                .iter()
                .find(|t| t.covers(op, bits))
                .map(|t| t.jobs)
        };
        find(op).or(match op {
            Operation::MulDoubleSharedVartime(c) => find(Operation::MulDoubleVartime(c)),
            _ => None,
        })
    }

    /// The GPU backend for a batch of `jobs` jobs of `op` whose widest modulus has `bits`
    /// bits, if the batch goes there.
    pub(super) fn take(&self, op: Operation, jobs: usize, bits: usize) -> Option<&dyn Backend> {
        if jobs == 0 || jobs < self.min_jobs(op, bits)? || self.state.failed.get().is_some() {
            return None;
        }
        if !op
            .curve()
            .is_none_or(|c| self.backend.curves().contains(&c))
        {
            return None;
        }
        let usable = self
            .state
            .probe
            .get_or_init(|| match self.backend.availability() {
                Availability::Available if !self.allow_emulated && self.backend.is_emulated() => {
                    Err("its adapter is a software one (CPU)".into())
                }
                Availability::Available => Ok(()),
                Availability::Unavailable(why) => Err(why),
            });
        usable.is_ok().then_some(self.backend.as_ref())
    }

    /// Switches the route off after a batch failed on the GPU as a whole.
    pub(super) fn fail(&self, why: String) {
        let _ = self.state.failed.set(why);
    }

    /// One line: the sizes, and whether the GPU was found usable or switched off.
    pub fn status(&self) -> String {
        let mut sizes: Vec<usize> = self.from.iter().map(|t| t.jobs).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let sizes = match sizes.as_slice() {
            [] => "no operation".to_string(),
            [n] if Operation::all()
                .into_iter()
                .all(|op| self.from.contains(&Threshold::new(op, *n))) =>
            {
                format!("every operation from {n} jobs")
            }
            _ => self
                .from
                .iter()
                .map(|t| match t.max_bits {
                    Some(b) => format!("{:?} up to {b} bits from {}", t.op, t.jobs),
                    None => format!("{:?} from {}", t.op, t.jobs),
                })
                .collect::<Vec<_>>()
                .join(", "),
        };
        let state = match (self.state.failed.get(), self.state.probe.get()) {
            (Some(why), _) => format!("switched off after a failed batch: {why}"),
            (None, None) => "not yet opened".into(),
            (None, Some(Ok(()))) => "in use".into(),
            (None, Some(Err(why))) => format!("unused: {why}"),
        };
        format!("{sizes} on {} ({state})", self.backend.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_values() {
        assert_eq!(Wanted::parse(None), Ok(Wanted::Measured));
        assert_eq!(Wanted::parse(Some(" ")), Ok(Wanted::Measured));
        assert_eq!(Wanted::parse(Some("off")), Ok(Wanted::Off));
        assert_eq!(Wanted::parse(Some("4096")), Ok(Wanted::From(4096)));
        for bad in ["0", "-1", "lots", "1e3"] {
            let err = Wanted::parse(Some(bad)).expect_err(bad);
            assert!(err.contains(ENV) && err.contains(bad), "{err}");
        }
    }
}
