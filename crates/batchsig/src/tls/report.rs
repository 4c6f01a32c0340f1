//! What a simulation measured, and the per-security-level comparison across reports.
//!
//! Costs are wall time per handshake of each batched step (the step's time divided by the
//! handshakes that entered it), so they include the backend's parallelism: on a multi-core
//! scalar backend they are machine-wide figures, not per core. A side's handshakes per
//! second is the inverse of its summed per-handshake costs: what this machine sustains if
//! it did only that side's public-key work.

use std::fmt::Write as _;
use std::time::Duration;

use super::sim::Failure;
use super::{KexGroup, Side, Suite};

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

/// For one security level (and backend and key-exchange group): which certificate type
/// costs the server least, and which the client.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelComparison {
    /// Security strength in bits ([`Suite::security_bits`]).
    pub security_bits: u32,
    pub backend: String,
    pub kex: KexGroup,
    /// The suites measured at this level, with server and client handshakes per second,
    /// fastest server first.
    pub suites: Vec<(Suite, f64, f64)>,
    /// Highest server handshakes per second.
    pub cheaper_for_server: Suite,
    /// Highest client handshakes per second.
    pub cheaper_for_client: Suite,
    /// Server rate of the best over the runner-up (1 with a single candidate).
    pub server_advantage: f64,
    /// Client rate of the best over the runner-up (1 with a single candidate).
    pub client_advantage: f64,
}

fn best(rates: &[(Suite, f64)]) -> (Suite, f64) {
    let mut sorted = rates.to_vec();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let adv = match sorted.get(1) {
        Some(second) if second.1 > 0.0 => sorted[0].1 / second.1,
        _ => 1.0,
    };
    (sorted[0].0, adv)
}

/// Groups reports by backend, key-exchange group and security level, and says which
/// certificate type is cheaper for each side. When a suite was measured more than once in a
/// group, the last report counts. Levels with a single suite are listed too (advantage 1).
pub fn compare_security_levels(reports: &[TlsSimReport]) -> Vec<LevelComparison> {
    let mut keys: Vec<(String, KexGroup, u32)> = reports
        .iter()
        .map(|r| (r.backend.clone(), r.kex, r.suite.security_bits()))
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|(backend, kex, bits)| {
            let mut suites: Vec<(Suite, f64, f64)> = Vec::new();
            for r in reports
                .iter()
                .filter(|r| r.backend == backend && r.kex == kex && r.suite.security_bits() == bits)
            {
                suites.retain(|s| s.0 != r.suite);
                suites.push((
                    r.suite,
                    r.server.handshakes_per_sec,
                    r.client.handshakes_per_sec,
                ));
            }
            suites.sort_by(|a, b| b.1.total_cmp(&a.1));
            let (cheaper_for_server, server_advantage) =
                best(&suites.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>());
            let (cheaper_for_client, client_advantage) =
                best(&suites.iter().map(|s| (s.0, s.2)).collect::<Vec<_>>());
            LevelComparison {
                security_bits: bits,
                backend,
                kex,
                suites,
                cheaper_for_server,
                cheaper_for_client,
                server_advantage,
                client_advantage,
            }
        })
        .collect()
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A plain-text table, one line per report: rates per side and the per-step cost in µs per
/// handshake.
pub fn format_table(reports: &[TlsSimReport]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<8} {:<28} {:<9} {:>5} {:>6} {:>11} {:>11} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} {:>9} | {:>6}",
        "backend",
        "suite",
        "kex",
        "chain",
        "N",
        "server hs/s",
        "client hs/s",
        "S kshare",
        "S ecdh",
        "S sign",
        "C kshare",
        "C ecdh",
        "C chain",
        "C verify",
        "failed"
    );
    for r in reports {
        let (sv, cl) = (&r.server.per_handshake, &r.client.per_handshake);
        let _ = writeln!(
            s,
            "{:<8} {:<28} {:<9} {:>5} {:>6} {:>11.0} {:>11.0} | {:>9.1} {:>9.1} {:>9.1} | {:>9.1} {:>9.1} {:>9.1} {:>9.1} | {:>6}",
            r.backend,
            r.suite.name(),
            r.kex.name(),
            r.chain_depth,
            r.handshakes,
            r.server.handshakes_per_sec,
            r.client.handshakes_per_sec,
            us(sv.key_share),
            us(sv.ecdh),
            us(sv.sign),
            us(cl.key_share),
            us(cl.ecdh),
            us(cl.chain),
            us(cl.verify),
            r.failed
        );
    }
    let _ = writeln!(
        s,
        "(step columns: µs of wall time per handshake; S = server, C = client)"
    );
    s
}

/// One line per security level: the cheaper certificate for each side and by how much.
pub fn format_comparison(levels: &[LevelComparison]) -> String {
    let mut s = String::new();
    for l in levels {
        let names: Vec<&str> = l.suites.iter().map(|x| x.0.certificate_type()).collect();
        if l.suites.len() < 2 {
            let _ = writeln!(
                s,
                "{} bits ({}, {}): only {} measured",
                l.security_bits,
                l.backend,
                l.kex,
                names.join(", ")
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{} bits ({}, {}; {}): server: {} ({:.2}x the next), client: {} ({:.2}x the next)",
            l.security_bits,
            l.backend,
            l.kex,
            names.join(" vs "),
            l.cheaper_for_server.certificate_type(),
            l.server_advantage,
            l.cheaper_for_client.certificate_type(),
            l.client_advantage
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(suite: Suite, server: f64, client: f64) -> TlsSimReport {
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
            handshakes: 1,
            chain_depth: 2,
            server: side(Side::Server, server),
            client: side(Side::Client, client),
            corrupted: 0,
            failed: 0,
            failures: Vec::new(),
        }
    }

    #[test]
    fn comparison_picks_the_faster_side_by_side() {
        let reports = vec![
            report(Suite::RsaPss2048, 1000.0, 20000.0),
            report(Suite::RsaPss3072, 300.0, 9000.0),
            report(Suite::EcdsaP256, 30000.0, 3000.0),
            report(Suite::EcdsaP384, 900.0, 600.0),
        ];
        let levels = compare_security_levels(&reports);
        assert_eq!(
            levels.iter().map(|l| l.security_bits).collect::<Vec<_>>(),
            vec![112, 128, 192]
        );
        let l128 = &levels[1];
        assert_eq!(l128.cheaper_for_server, Suite::EcdsaP256);
        assert_eq!(l128.cheaper_for_client, Suite::RsaPss3072);
        assert!((l128.server_advantage - 100.0).abs() < 1e-9);
        assert!((l128.client_advantage - 3.0).abs() < 1e-9);
        assert_eq!(levels[0].suites.len(), 1);
        assert_eq!(levels[0].server_advantage, 1.0);
        let text = format_comparison(&levels);
        assert!(text.contains("128 bits (scalar, secp256r1; P-256 vs RSA-3072): server: P-256 (100.00x the next), client: RSA-3072 (3.00x the next)"), "{text}");
        assert!(
            text.contains("112 bits (scalar, secp256r1): only RSA-2048 measured"),
            "{text}"
        );
        assert!(format_table(&reports).lines().count() == reports.len() + 2);
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
