//! How long a `batch-speed` run takes, and the default `--seconds` that fits the whole run
//! into about [`DEFAULT_BUDGET_S`].
//!
//! The model is rough and says so. A cell costs [`CELL_FACTOR`] × `--seconds`: a batch that
//! is capped to fit `--seconds` runs once to warm up and usually twice timed (the first ends
//! just short of the deadline), plus the probe. An `openssl speed` run costs its sign and
//! verify passes of `ceil(seconds)` each and a start-up; an RSA-15360 signing cell costs
//! [`SLOW_CELL_S`] more whatever `--seconds` is (probe, warm-up and timed batches of a few
//! signatures per thread at a few signatures per second per core); each algorithm's key pool
//! [`POOL_S`]. Calibrated on a 2-core AMD EPYC shared with other builds (`--backends scalar
//! --seconds 0.5`, all algorithms: 80 s measured, 72 s estimated). Generating the RSA pool
//! keys the first time (cached after), `--sweep` and `--tls` come on top.

/// The default run's target duration: about 3 minutes.
pub const DEFAULT_BUDGET_S: f64 = 180.0;
/// The default `--seconds` stays within these (shorter cells say little, longer ones do not
/// fit the budget with every algorithm).
pub const MIN_SECONDS: f64 = 0.5;
pub const MAX_SECONDS: f64 = 3.0;
/// A cell's duration over its `--seconds`.
pub const CELL_FACTOR: f64 = 2.5;
/// Start-up of one `openssl speed` run, seconds.
pub const OPENSSL_START_S: f64 = 0.5;
/// Fixed cost of an RSA-15360 signing cell, seconds.
pub const SLOW_CELL_S: f64 = 14.0;
/// Making one algorithm's distinct-key pool (RSA keys cached), seconds.
pub const POOL_S: f64 = 1.0;

/// What a run measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub algorithms: usize,
    /// Timed cells (libraries × algorithms × operations × repeats).
    pub cells: usize,
    /// `openssl speed` runs (algorithms × repeats, or 0).
    pub openssl_runs: usize,
    /// RSA-15360 signing cells among `cells`.
    pub slow_cells: usize,
}

impl Plan {
    /// Expected seconds at `seconds` per cell.
    pub fn estimate(&self, seconds: f64) -> f64 {
        self.cells as f64 * seconds * CELL_FACTOR
            + self.openssl_runs as f64 * (2.0 * seconds.ceil().max(1.0) + OPENSSL_START_S)
            + self.slow_cells as f64 * SLOW_CELL_S
            + self.algorithms as f64 * POOL_S
    }

    /// The longest `--seconds` (in quarter seconds, within [`MIN_SECONDS`]..=[`MAX_SECONDS`])
    /// whose estimate fits `budget`; [`MIN_SECONDS`] when none does.
    pub fn fit_seconds(&self, budget: f64) -> f64 {
        let steps = ((MAX_SECONDS - MIN_SECONDS) / 0.25).round() as usize;
        (0..=steps)
            .map(|i| MAX_SECONDS - 0.25 * i as f64)
            .find(|&s| self.estimate(s) <= budget)
            .unwrap_or(MIN_SECONDS)
    }
}

/// `secs` as prose: `45 s`, `3.2 min`.
pub fn pretty(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else {
        format!("{:.1} min", secs / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_adds_cells_openssl_and_slow_cells() {
        let p = Plan {
            algorithms: 2,
            cells: 10,
            openssl_runs: 2,
            slow_cells: 1,
        };
        // 10 × 2 × 2.5 + 2 × (2 × 2 + 0.5) + 14 + 2 × 1
        assert_eq!(p.estimate(2.0), 50.0 + 9.0 + 14.0 + 2.0);
        // OpenSSL rounds its seconds up: 1.5 s per pass costs 2.
        assert_eq!(p.estimate(1.5), 37.5 + 9.0 + 14.0 + 2.0);
    }

    #[test]
    fn fit_seconds_fills_the_budget_within_bounds() {
        // A small run keeps the longest cells.
        let small = Plan {
            algorithms: 2,
            cells: 6,
            openssl_runs: 2,
            slow_cells: 0,
        };
        assert_eq!(small.fit_seconds(DEFAULT_BUDGET_S), MAX_SECONDS);
        // Two libraries × 4 algorithms × 3 operations, OpenSSL for each: between the bounds.
        let mid = Plan {
            algorithms: 4,
            cells: 24,
            openssl_runs: 4,
            slow_cells: 0,
        };
        let s = mid.fit_seconds(DEFAULT_BUDGET_S);
        assert_eq!(s, 2.5, "24 × 2.5 × 2.5 + 4 × 6.5 + 4 = 180");
        assert!(mid.estimate(s + 0.25) > DEFAULT_BUDGET_S);
        // Three backends × 8 algorithms × 3 operations, OpenSSL for each, RSA-15360 signing
        // on each backend: the default run on a 2-core AVX2 machine, within the budget.
        let default = Plan {
            algorithms: 8,
            cells: 72,
            openssl_runs: 8,
            slow_cells: 3,
        };
        let s = default.fit_seconds(DEFAULT_BUDGET_S);
        assert!(default.estimate(s) <= DEFAULT_BUDGET_S, "{s}");
        assert!(default.estimate(s + 0.25) > DEFAULT_BUDGET_S, "{s}");
        // A run too big for the budget takes the shortest cells rather than none.
        let huge = Plan {
            algorithms: 8,
            cells: 10_000,
            openssl_runs: 0,
            slow_cells: 0,
        };
        assert_eq!(huge.fit_seconds(DEFAULT_BUDGET_S), MIN_SECONDS);
    }

    #[test]
    fn pretty_durations() {
        assert_eq!(pretty(45.2), "45 s");
        assert_eq!(pretty(192.0), "3.2 min");
    }
}
