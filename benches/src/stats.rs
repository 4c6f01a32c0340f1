//! The arithmetic of `--repeat N`: every cell runs N times (interleaved with OpenSSL's runs),
//! the table shows the median, ratios are medians of per-run ratios, and a cell whose runs
//! spread by more than [`SPREAD_MARK`] of its median is marked `~`.
//!
//! Inputs are ops/s figures: finite and positive (a cell that failed has no runs).

use serde::Serialize;

/// `(max − min) / median` above which a figure is marked `~` in the table.
pub const SPREAD_MARK: f64 = 0.15;

/// The median of `xs` (the mean of the middle two for an even count); `None` when empty.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// The runs of one figure and their summary, as the JSON keeps them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Runs {
    /// Every run's figure, in run order.
    pub runs: Vec<f64>,
    pub median: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// `(max − min) / median`; `0` for a single run.
    pub spread: Option<f64>,
}

impl Runs {
    pub fn new(runs: Vec<f64>) -> Self {
        let median = median(&runs);
        let min = runs.iter().copied().reduce(f64::min);
        let max = runs.iter().copied().reduce(f64::max);
        let spread = match (median, min, max) {
            (Some(m), Some(lo), Some(hi)) if m > 0.0 => Some((hi - lo) / m),
            _ => None,
        };
        Self {
            runs,
            median,
            min,
            max,
            spread,
        }
    }

    /// Whether the runs spread by more than [`SPREAD_MARK`] (the table's `~`).
    pub fn is_spread(&self) -> bool {
        self.spread.is_some_and(|s| s > SPREAD_MARK)
    }
}

/// The median of the per-run ratios `ours[i] / theirs[i]` (run `i` of a cell against run `i`
/// of OpenSSL, measured next to it). `None` unless both have the same, non-zero number of runs.
pub fn ratio_median(ours: &[f64], theirs: &[f64]) -> Option<f64> {
    if ours.len() != theirs.len() || theirs.iter().any(|&t| t <= 0.0) {
        return None;
    }
    let ratios: Vec<f64> = ours.iter().zip(theirs).map(|(a, b)| a / b).collect();
    median(&ratios)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(
            median(&[10.0, 10.0, 1000.0]),
            Some(10.0),
            "an outlier does not move it"
        );
    }

    #[test]
    fn runs_summarise_and_mark_spread() {
        let r = Runs::new(vec![100.0, 110.0, 90.0]);
        assert_eq!(r.runs, [100.0, 110.0, 90.0], "kept in run order");
        assert_eq!(
            (r.median, r.min, r.max),
            (Some(100.0), Some(90.0), Some(110.0))
        );
        assert!((r.spread.unwrap() - 0.2).abs() < 1e-12);
        assert!(r.is_spread(), "20 % > 15 %");
        let tight = Runs::new(vec![100.0, 107.0]);
        assert!((tight.spread.unwrap() - 7.0 / 103.5).abs() < 1e-12);
        assert!(!tight.is_spread());
        // Exactly at the mark is not marked.
        let edge = Runs::new(vec![92.5, 100.0, 107.5]);
        assert!((edge.spread.unwrap() - SPREAD_MARK).abs() < 1e-12);
        assert!(!Runs::new(vec![100.0]).is_spread());
        assert_eq!(Runs::new(vec![100.0]).spread, Some(0.0));
        let none = Runs::new(vec![]);
        assert_eq!(
            (none.median, none.min, none.max, none.spread),
            (None, None, None, None)
        );
        assert!(!none.is_spread());
    }

    #[test]
    fn ratio_is_the_median_of_per_run_ratios() {
        // Per-run ratios 1.0, 3.0, 0.5: median 1.0 (the ratio of the medians, 200 / 100,
        // would say 2.0).
        assert_eq!(
            ratio_median(&[100.0, 300.0, 200.0], &[100.0, 100.0, 400.0]),
            Some(1.0)
        );
        // Paired by run: load that slows both sides of one run leaves the ratio alone.
        assert_eq!(
            ratio_median(&[200.0, 100.0, 50.0], &[100.0, 50.0, 25.0]),
            Some(2.0)
        );
        assert_eq!(ratio_median(&[300.0, 100.0], &[100.0, 100.0]), Some(2.0));
        assert_eq!(ratio_median(&[1.0, 2.0], &[1.0]), None, "runs must pair up");
        assert_eq!(ratio_median(&[], &[]), None);
        assert_eq!(ratio_median(&[1.0], &[0.0]), None);
    }
}
