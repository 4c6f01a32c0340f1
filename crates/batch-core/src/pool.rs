//! The thread-pool plumbing every CPU backend shares: rayon's global pool by default, or a
//! private pool of a chosen size (`1` for single-core figures); batch work runs inside it.

use std::sync::Arc;

use crate::error::Error;

/// Where a backend runs its batches: rayon's global pool (`Default`), or a private one.
#[derive(Clone, Default)]
pub struct Pool {
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl core::fmt::Debug for Pool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads())
            .field("private", &self.pool.is_some())
            .finish()
    }
}

impl Pool {
    /// Rayon's global pool (all cores unless `RAYON_NUM_THREADS` says otherwise).
    pub fn global() -> Self {
        Self::default()
    }

    /// A private pool of `threads` threads (at least one), named `{name}-{i}`.
    pub fn with_threads(name: &'static str, threads: usize) -> Result<Self, Error> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(move |i| format!("{name}-{i}"))
            .build()
            .map_err(|e| Error::Backend(format!("thread pool: {e}")))?;
        Ok(Self {
            pool: Some(Arc::new(pool)),
        })
    }

    /// Threads a batch is spread over.
    pub fn threads(&self) -> usize {
        match &self.pool {
            Some(p) => p.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }

    /// Runs `f` inside the pool (rayon's parallel iterators in `f` use its threads).
    pub fn install<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// [`Self::install`] for a batch of `jobs` jobs; at most [`INLINE_MAX`] run on the
    /// calling thread instead (a parallel iterator over one job stays on a rayon worker that
    /// calls it).
    pub fn install_batch<T: Send>(&self, jobs: usize, f: impl FnOnce() -> T + Send) -> T {
        if jobs <= INLINE_MAX {
            f()
        } else {
            self.install(f)
        }
    }
}

/// Batches of at most this many jobs run on the calling thread ([`Pool::install_batch`]):
/// handing work to a pool thread and waiting for it costs several µs (docs/PERF.md, small
/// batches), more than a second thread can save on one job.
pub const INLINE_MAX: usize = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_pool_has_its_size_and_runs_inside() {
        let p = Pool::with_threads("t", 3).unwrap();
        assert_eq!(p.threads(), 3);
        assert_eq!(p.install(rayon::current_num_threads), 3);
        assert_eq!(Pool::with_threads("t", 0).unwrap().threads(), 1);
        assert_eq!(Pool::global().threads(), rayon::current_num_threads());
    }

    /// A one-job batch runs on the calling thread (a pool worker: its one-job parallel
    /// iterators stay there); a larger one runs in the backend's pool.
    #[test]
    fn tiny_batches_stay_on_the_calling_thread() {
        use rayon::prelude::*;
        let p = Pool::with_threads("t", 2).unwrap();
        let outer = Pool::with_threads("o", 1).unwrap();
        outer.install(|| {
            let me = std::thread::current().id();
            let ids: Vec<_> = p.install_batch(1, || {
                [0].par_iter()
                    .map(|_| std::thread::current().id())
                    .collect()
            });
            assert_eq!(ids, vec![me], "a one-job batch left the thread");
            let away = p.install_batch(2, || std::thread::current().id());
            assert_ne!(away, me, "a two-job batch should run in the backend's pool");
        });
    }
}
