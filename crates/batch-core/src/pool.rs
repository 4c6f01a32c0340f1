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
}

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
}
