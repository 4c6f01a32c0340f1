//! What a simulation measured, summaries over repeated runs (medians, spreads, the latency
//! per batch), and comparisons of certificate types across security levels.
//!
//! Costs are wall time per handshake of each batched step (the step's time divided by the
//! handshakes that entered it), so they include the backend's parallelism: on a multi-core
//! scalar backend they are machine-wide figures, not per core. A side's handshakes per
//! second is the inverse of its summed per-handshake costs: what this machine sustains if
//! it did only that side's public-key work.

use std::fmt::Write as _;
use std::time::Duration;

use crate::sim::Failure;
use crate::{KexGroup, Side, Suite};

/// Wall time per handshake of each step on one side; zero for steps the side does not do
/// (the client does not sign; the server verifies nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepCost {
    /// Own ephemeral key share: `k·G`.
    pub key_share: Duration,
    /// Peer key share validation and `k·Q`.
    pub ecdh: Duration,
    /// Transcript hash and CertificateVerify signature (server).
    pub sign: Duration,
    /// Transcript hash and CertificateVerify verification (client).
    pub verify: Duration,
    /// Certificate parsing and chain signature verification (client).
    pub chain: Duration,
}

impl StepCost {
    pub fn total(&self) -> Duration {
        self.key_share + self.ecdh + self.sign + self.verify + self.chain
    }

    /// `1 / total`; 0 if nothing was measured.
    pub fn handshakes_per_sec(&self) -> f64 {
        let t = self.total().as_secs_f64();
        if t > 0.0 {
            1.0 / t
        } else {
            0.0
        }
    }
}

/// One side's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideReport {
    pub side: Side,
    /// Full handshakes per second this side's public-key work sustains.
    pub handshakes_per_sec: f64,
    /// Per-step wall time per handshake.
    pub per_handshake: StepCost,
    /// Wall time of this side's steps, summed.
    pub elapsed: Duration,
}

/// The outcome of [`super::simulate`].
#[derive(Clone, Debug, PartialEq)]
pub struct TlsSimReport {
    /// The backend's [`batch_core::Backend::name`].
    pub backend: String,
    pub suite: Suite,
    pub kex: KexGroup,
    /// Handshakes simulated (the batch size of each step).
    pub handshakes: usize,
    pub chain_depth: usize,
    pub server: SideReport,
    pub client: SideReport,
    /// Handshakes corrupted on purpose.
    pub corrupted: usize,
    /// Handshakes that failed a check (equals `corrupted` on a correct backend).
    pub failed: usize,
    /// The first failed check of each failed handshake, by index.
    pub failures: Vec<Failure>,
}

impl TlsSimReport {
    pub fn side(&self, side: Side) -> &SideReport {
        match side {
            Side::Server => &self.server,
            Side::Client => &self.client,
        }
    }

    /// Handshakes that passed every check.
    pub fn succeeded(&self) -> usize {
        self.handshakes - self.failed
    }
}

/// One side over repeated runs: the median rate with its spread, the median per-step cost,
/// and what batching costs in latency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideSummary {
    pub side: Side,
    /// Median handshakes per second over the runs.
    pub median_hps: f64,
    /// Lowest and highest handshakes per second over the runs.
    pub min_hps: f64,
    pub max_hps: f64,
    /// Per-step wall time per handshake, each step's median over the runs.
    pub per_handshake: StepCost,
    /// Wall time of one batch of each step (median per-handshake cost × the batch size: the
    /// wait a handshake adds at that step because it waits for its batch). For the client,
    /// whose batches are one handshake, this is the cost of the step itself.
    pub per_batch: StepCost,
}

impl SideSummary {
    /// `(max − min) / median`: the relative spread of the runs.
    pub fn spread(&self) -> f64 {
        if self.median_hps > 0.0 {
            (self.max_hps - self.min_hps) / self.median_hps
        } else {
            0.0
        }
    }

    /// Whether the two rate ranges overlap (then neither is faster beyond noise).
    pub fn overlaps(&self, other: &SideSummary) -> bool {
        self.min_hps <= other.max_hps && other.min_hps <= self.max_hps
    }
}

/// One configuration measured several times (after a warm-up run that is not counted).
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub backend: String,
    pub suite: Suite,
    pub kex: KexGroup,
    pub handshakes: usize,
    pub chain_depth: usize,
    /// Timed runs (the warm-up excluded).
    pub runs: usize,
    pub server: SideSummary,
    pub client: SideSummary,
    /// Failed handshakes over all timed runs.
    pub failed: usize,
}

impl RunSummary {
    pub fn side(&self, side: Side) -> &SideSummary {
        match side {
            Side::Server => &self.server,
            Side::Client => &self.client,
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn median_duration(v: impl Iterator<Item = Duration>) -> Duration {
    Duration::from_secs_f64(median(v.map(|d| d.as_secs_f64()).collect()))
}

fn median_cost(costs: &[StepCost]) -> StepCost {
    StepCost {
        key_share: median_duration(costs.iter().map(|c| c.key_share)),
        ecdh: median_duration(costs.iter().map(|c| c.ecdh)),
        sign: median_duration(costs.iter().map(|c| c.sign)),
        verify: median_duration(costs.iter().map(|c| c.verify)),
        chain: median_duration(costs.iter().map(|c| c.chain)),
    }
}

fn summarize_side(side: Side, runs: &[&SideReport], batch: usize) -> SideSummary {
    let rates: Vec<f64> = runs.iter().map(|r| r.handshakes_per_sec).collect();
    let per_handshake = median_cost(&runs.iter().map(|r| r.per_handshake).collect::<Vec<_>>());
    let times = |d: Duration| d * batch as u32;
    SideSummary {
        side,
        median_hps: median(rates.clone()),
        min_hps: rates.iter().copied().fold(f64::INFINITY, f64::min),
        max_hps: rates.iter().copied().fold(0.0, f64::max),
        per_handshake,
        per_batch: StepCost {
            key_share: times(per_handshake.key_share),
            ecdh: times(per_handshake.ecdh),
            sign: times(per_handshake.sign),
            verify: times(per_handshake.verify),
            chain: times(per_handshake.chain),
        },
    }
}

/// Medians and spreads of runs of one configuration; `None` for no runs or runs of
/// different configurations.
pub fn summarize(runs: &[TlsSimReport]) -> Option<RunSummary> {
    let first = runs.first()?;
    let same = |r: &TlsSimReport| {
        (&r.backend, r.suite, r.kex, r.handshakes, r.chain_depth)
            == (
                &first.backend,
                first.suite,
                first.kex,
                first.handshakes,
                first.chain_depth,
            )
    };
    if !runs.iter().all(same) {
        return None;
    }
    let side = |s: Side, batch: usize| {
        summarize_side(
            s,
            &runs.iter().map(|r| r.side(s)).collect::<Vec<_>>(),
            batch,
        )
    };
    Some(RunSummary {
        backend: first.backend.clone(),
        suite: first.suite,
        kex: first.kex,
        handshakes: first.handshakes,
        chain_depth: first.chain_depth,
        runs: runs.len(),
        // The server's steps are batches of N; each client's are batches of one.
        server: side(Side::Server, first.handshakes),
        client: side(Side::Client, 1),
        failed: runs.iter().map(|r| r.failed).sum(),
    })
}

/// How two certificate types compare on one side, across security levels.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub backend: String,
    pub kex: KexGroup,
    /// The batch size both ran at.
    pub handshakes: usize,
    pub side: Side,
    /// The faster by median (the first given when equal).
    pub faster: Suite,
    pub slower: Suite,
    /// Median rate of `faster` over that of `slower` (≥ 1).
    pub ratio: f64,
    /// The runs' ranges overlap: no winner beyond noise.
    pub overlap: bool,
}

/// Every pair of certificate types measured on the same backend, key exchange and batch
/// size, per side — across security levels (RSA-2048 vs P-256, RSA-3072 vs P-256, …), since
/// that is the choice a server operator makes.
pub fn compare(summaries: &[RunSummary]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (i, a) in summaries.iter().enumerate() {
        for b in &summaries[i + 1..] {
            if (&a.backend, a.kex, a.handshakes) != (&b.backend, b.kex, b.handshakes)
                || a.suite == b.suite
            {
                continue;
            }
            for side in [Side::Server, Side::Client] {
                let (sa, sb) = (a.side(side), b.side(side));
                let (faster, slower, fs, ss) = if sb.median_hps > sa.median_hps {
                    (b.suite, a.suite, sb, sa)
                } else {
                    (a.suite, b.suite, sa, sb)
                };
                out.push(Comparison {
                    backend: a.backend.clone(),
                    kex: a.kex,
                    handshakes: a.handshakes,
                    side,
                    faster,
                    slower,
                    ratio: if ss.median_hps > 0.0 {
                        fs.median_hps / ss.median_hps
                    } else {
                        f64::INFINITY
                    },
                    overlap: fs.overlaps(ss),
                });
            }
        }
    }
    out
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A plain-text table, one line per configuration: median rates per side with their range,
/// the per-step cost in µs per handshake, and the server's time per batch of its slowest
/// step.
pub fn format_table(summaries: &[RunSummary]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<8} {:<10} {:>4} {:<9} {:>5} {:>5} {:>4} | {:>8} {:>17} | {:>8} {:>17} | {:>8} {:>8} {:>8} | {:>8} {:>8} {:>8} {:>8} | {:>9} | {:>6}",
        "backend", "cert", "bits", "kex", "chain", "N", "runs",
        "server", "(min–max) hs/s", "client", "(min–max) hs/s",
        "S kshare", "S ecdh", "S sign", "C kshare", "C ecdh", "C chain", "C verify",
        "S batch", "failed"
    );
    for r in summaries {
        let (sv, cl) = (&r.server, &r.client);
        let range = |x: &SideSummary| format!("({:.0}–{:.0})", x.min_hps, x.max_hps);
        let slowest = [sv.per_batch.key_share, sv.per_batch.ecdh, sv.per_batch.sign]
            .into_iter()
            .max()
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{:<8} {:<10} {:>4} {:<9} {:>5} {:>5} {:>4} | {:>8.0} {:>17} | {:>8.0} {:>17} | {:>8.1} {:>8.1} {:>8.1} | {:>8.1} {:>8.1} {:>8.1} {:>8.1} | {:>7.1}ms | {:>6}",
            r.backend,
            r.suite.certificate_type(),
            r.suite.security_bits(),
            r.kex.name(),
            r.chain_depth,
            r.handshakes,
            r.runs,
            sv.median_hps,
            range(sv),
            cl.median_hps,
            range(cl),
            us(sv.per_handshake.key_share),
            us(sv.per_handshake.ecdh),
            us(sv.per_handshake.sign),
            us(cl.per_handshake.key_share),
            us(cl.per_handshake.ecdh),
            us(cl.per_handshake.chain),
            us(cl.per_handshake.verify),
            ms(slowest),
            r.failed
        );
    }
    let _ = writeln!(
        s,
        "(hs/s: median over the runs, after a warm-up run; step columns: µs of wall time per \
         handshake, medians; S = server, one batch of N per step; C = N independent clients, \
         one handshake each; S batch: wall time of the server's slowest batch, the latency \
         batching adds at that step)"
    );
    s
}

/// One line per pair and side: which certificate type is faster and by how much, or that
/// the runs overlap.
pub fn format_comparison(comparisons: &[Comparison]) -> String {
    let mut s = String::new();
    for c in comparisons {
        let (f, sl) = (c.faster.certificate_type(), c.slower.certificate_type());
        let (fb, sb) = (c.faster.security_bits(), c.slower.security_bits());
        if c.overlap {
            let _ = writeln!(
                s,
                "{} {} ({}, N = {}): {f} ({fb}-bit) vs {sl} ({sb}-bit): within noise (runs overlap, medians {:.2}x)",
                c.backend, c.side, c.kex, c.handshakes, c.ratio
            );
        } else {
            let _ = writeln!(
                s,
                "{} {} ({}, N = {}): {f} ({fb}-bit) {:.2}x the handshakes/s of {sl} ({sb}-bit)",
                c.backend, c.side, c.kex, c.handshakes, c.ratio
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::Curve;

    fn report(suite: Suite, server: f64, client: f64) -> TlsSimReport {
        let handshakes = 4;
        let side = |side, hs: f64| SideReport {
            side,
            handshakes_per_sec: hs,
            per_handshake: StepCost {
                sign: Duration::from_secs_f64(1.0 / hs),
                ..StepCost::default()
            },
            elapsed: Duration::ZERO,
        };
        TlsSimReport {
            backend: "scalar".into(),
            suite,
            kex: KexGroup::P256,
            handshakes,
            chain_depth: 2,
            server: side(Side::Server, server),
            client: side(Side::Client, client),
            corrupted: 0,
            failed: 0,
            failures: Vec::new(),
        }
    }

    #[test]
    fn summaries_take_medians_and_spreads() {
        let runs = vec![
            report(Suite::RsaPss(2048), 1000.0, 20000.0),
            report(Suite::RsaPss(2048), 1200.0, 18000.0),
            report(Suite::RsaPss(2048), 900.0, 30000.0),
        ];
        let s = summarize(&runs).unwrap();
        assert_eq!(s.runs, 3);
        assert_eq!(
            (s.server.median_hps, s.server.min_hps, s.server.max_hps),
            (1000.0, 900.0, 1200.0)
        );
        assert_eq!(s.client.median_hps, 20000.0);
        assert!((s.server.spread() - 0.3).abs() < 1e-12);
        // The server's batch takes N × the per-handshake cost; a client's batch is one.
        assert_eq!(s.server.per_batch.sign, s.server.per_handshake.sign * 4);
        assert_eq!(s.client.per_batch.sign, s.client.per_handshake.sign);
        assert!((s.server.per_handshake.sign.as_secs_f64() - 1e-3).abs() < 1e-9);
        // Runs of different configurations are not summarized together.
        let mixed = [runs[0].clone(), report(Suite::Ecdsa(Curve::P256), 1.0, 1.0)];
        assert_eq!(summarize(&mixed), None);
        assert_eq!(summarize(&[]), None);
    }

    #[test]
    fn comparisons_cross_levels_and_call_overlaps_noise() {
        let rsa = summarize(&[
            report(Suite::RsaPss(2048), 1000.0, 20000.0),
            report(Suite::RsaPss(2048), 1100.0, 21000.0),
        ])
        .unwrap();
        let p256 = summarize(&[
            report(Suite::Ecdsa(Curve::P256), 30000.0, 20500.0),
            report(Suite::Ecdsa(Curve::P256), 32000.0, 22000.0),
        ])
        .unwrap();
        let c = compare(&[rsa.clone(), p256.clone()]);
        assert_eq!(c.len(), 2);
        let server = &c[0];
        assert_eq!(
            (server.side, server.faster, server.slower),
            (Side::Server, Suite::Ecdsa(Curve::P256), Suite::RsaPss(2048))
        );
        assert!((server.ratio - 31000.0 / 1050.0).abs() < 1e-9);
        assert!(!server.overlap);
        let client = &c[1];
        assert!(client.overlap, "20000–21000 and 20500–22000 overlap");
        let text = format_comparison(&c);
        assert!(text.contains("scalar server (secp256r1, N = 4): P-256 (128-bit) 29.52x the handshakes/s of RSA-2048 (112-bit)"), "{text}");
        assert!(
            text.contains(
                "scalar client (secp256r1, N = 4): P-256 (128-bit) vs RSA-2048 (112-bit): within noise"
            ),
            "{text}"
        );
        assert_eq!(format_table(&[rsa, p256]).lines().count(), 4);
    }

    #[test]
    fn step_cost_rate_is_the_inverse_of_the_total() {
        let c = StepCost {
            key_share: Duration::from_micros(100),
            ecdh: Duration::from_micros(100),
            ..StepCost::default()
        };
        assert!((c.handshakes_per_sec() - 5000.0).abs() < 1e-6);
        assert_eq!(StepCost::default().handshakes_per_sec(), 0.0);
    }
}
