//! The report: records per cell, the `openssl speed`-style tables, the equal-security
//! comparison, and the JSON written by `--json` (fields documented in the README).

use std::fmt::Write as _;

use serde::Serialize;

use crate::alg::{Alg, EQUAL_SECURITY};
use crate::machine::Machine;
use crate::measure::Op;

/// One timed cell.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub backend: String,
    /// The `--algs` name (`rsa2048`, `ecdsap256`, …).
    pub algorithm: String,
    /// `sign` or `verify`.
    pub operation: &'static str,
    /// Jobs per batch actually run (signing batches of slow algorithms may be capped to fit
    /// `--seconds`; see `batch_capped`).
    pub batch: usize,
    pub batch_capped: bool,
    pub threads: usize,
    /// `null` when the cell failed (then `error` says why).
    pub ops_per_sec: Option<f64>,
    pub ops: usize,
    pub seconds: f64,
    /// OpenSSL's figure for the same algorithm and operation, measured in this run.
    pub openssl_ops_per_sec: Option<f64>,
    /// `ops_per_sec / openssl_ops_per_sec`.
    pub ratio_to_openssl: Option<f64>,
    pub security_bits: usize,
    pub error: Option<String>,
    /// Why the cell was not measured although the backend is available (it does not
    /// implement the algorithm's curve yet); `null` for measured or failed cells.
    pub not_measured: Option<String>,
    #[serde(skip)]
    pub alg: Alg,
    #[serde(skip)]
    pub op: Op,
}

/// One point of a `--sweep`.
#[derive(Clone, Debug, Serialize)]
pub struct SweepRecord {
    pub backend: String,
    pub algorithm: String,
    pub operation: &'static str,
    pub batch: usize,
    pub threads: usize,
    pub ops_per_sec: Option<f64>,
    /// Why the point has no figure (skipped as too slow, or failed).
    pub note: Option<String>,
    #[serde(skip)]
    pub alg: Alg,
    #[serde(skip)]
    pub op: Op,
}

/// A backend as the report lists it.
#[derive(Clone, Debug, Serialize)]
pub struct BackendInfo {
    pub name: String,
    pub available: bool,
    /// The backend's description, or why it is unavailable.
    pub description: String,
}

/// The run's settings.
#[derive(Clone, Debug, Serialize)]
pub struct Config {
    pub batch: usize,
    pub seconds: f64,
    pub threads: usize,
    pub algorithms: Vec<String>,
    pub openssl: bool,
}

/// Everything `--json` writes.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub tool: &'static str,
    pub version: &'static str,
    /// Seconds since the Unix epoch at the start of the run.
    pub unix_time: u64,
    pub machine: Machine,
    pub config: Config,
    pub backends: Vec<BackendInfo>,
    pub results: Vec<Record>,
    pub sweep: Vec<SweepRecord>,
    /// TLS handshake figures (`--tls`), as the simulator reports them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tls: Vec<serde_json::Value>,
}

impl Report {
    fn find(&self, backend: &str, alg: Alg, op: Op) -> Option<&Record> {
        self.results
            .iter()
            .find(|r| r.backend == backend && r.alg == alg && r.op == op)
    }

    fn rate(&self, backend: &str, alg: Alg, op: Op) -> Option<f64> {
        self.find(backend, alg, op).and_then(|r| r.ops_per_sec)
    }

    /// OpenSSL's figure for `alg`/`op`, from any record carrying it.
    fn openssl_rate(&self, alg: Alg, op: Op) -> Option<f64> {
        self.results
            .iter()
            .find(|r| r.alg == alg && r.op == op)
            .and_then(|r| r.openssl_ops_per_sec)
    }
}

fn fmt_rate(x: Option<f64>) -> String {
    match x {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
        None => "n/a".into(),
    }
}

fn fmt_time(x: Option<f64>) -> String {
    match x {
        Some(v) if v > 0.0 => format!("{:.6}s", 1.0 / v),
        _ => "n/a".into(),
    }
}

fn fmt_ratio(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.2}"))
}

/// The header: machine and settings.
pub fn header(r: &Report) -> String {
    let m = &r.machine;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "batch-speed {} — batches of {} jobs, {} s per cell, {} threads",
        r.version, r.config.batch, r.config.seconds, r.config.threads
    );
    let _ = writeln!(
        s,
        "cpu:     {} ({} logical cores; {})",
        m.cpu,
        m.cores,
        if m.simd.is_empty() {
            "no SIMD extensions detected".into()
        } else {
            m.simd.join(" ")
        }
    );
    let _ = writeln!(s, "gpu:     {}", m.gpu);
    let _ = writeln!(s, "openssl: {}", m.openssl);
    s
}

/// The `openssl speed`-style table of one backend, with OpenSSL's column and the ratios.
pub fn backend_table(r: &Report, b: &BackendInfo, algs: &[Alg]) -> String {
    let mut s = String::new();
    if !b.available {
        let _ = writeln!(s, "\n{}: n/a ({})", b.name, b.description);
        return s;
    }
    let _ = writeln!(s, "\n{} — {}", b.name, b.description);
    let _ = writeln!(
        s,
        "{:<26} {:>11} {:>11} {:>10} {:>10} | {:>10} {:>10} | {:>6} {:>6}",
        "", "sign", "verify", "sign/s", "verify/s", "ossl sign", "ossl verif", "×sign", "×verif"
    );
    let mut notes = Vec::new();
    for &alg in algs {
        let sign = r.find(&b.name, alg, Op::Sign);
        let verify = r.find(&b.name, alg, Op::Verify);
        let (sr, vr) = (
            sign.and_then(|x| x.ops_per_sec),
            verify.and_then(|x| x.ops_per_sec),
        );
        let _ = writeln!(
            s,
            "{:<26} {:>11} {:>11} {:>10} {:>10} | {:>10} {:>10} | {:>6} {:>6}",
            alg.label(),
            fmt_time(sr),
            fmt_time(vr),
            fmt_rate(sr),
            fmt_rate(vr),
            fmt_rate(r.openssl_rate(alg, Op::Sign)),
            fmt_rate(r.openssl_rate(alg, Op::Verify)),
            fmt_ratio(sign.and_then(|x| x.ratio_to_openssl)),
            fmt_ratio(verify.and_then(|x| x.ratio_to_openssl)),
        );
        for rec in [sign, verify].into_iter().flatten() {
            if let Some(e) = &rec.error {
                notes.push(format!("{} {}: FAILED — {e}", alg.name(), rec.operation));
            } else if let Some(why) = &rec.not_measured {
                notes.push(format!("{} {}: n/a — {why}", alg.name(), rec.operation));
            } else if rec.batch_capped {
                notes.push(format!(
                    "{} {}: batch capped to {} to fit --seconds",
                    alg.name(),
                    rec.operation,
                    rec.batch
                ));
            }
        }
    }
    for n in notes {
        let _ = writeln!(s, "  note: {n}");
    }
    s
}

/// `a / b` as prose: "57×" or "0.50×".
fn times(a: f64, b: f64) -> String {
    let x = a / b;
    if x >= 10.0 {
        format!("{x:.0}×")
    } else {
        format!("{x:.2}×")
    }
}

/// The equal-security comparison (NIST SP 800-57) for one backend (or OpenSSL with
/// `backend = None`), over the algorithms measured.
pub fn equal_security(r: &Report, backend: Option<&str>) -> String {
    let rate = |alg: Alg, op: Op| match backend {
        Some(b) => r.rate(b, alg, op),
        None => r.openssl_rate(alg, op),
    };
    let mut s = String::new();
    for (level, rsa, ec) in EQUAL_SECURITY {
        let line = match ec {
            None => match (rate(rsa, Op::Sign), rate(rsa, Op::Verify)) {
                (Some(sg), Some(v)) => format!(
                    "{} only (no NIST curve at this level): {} sign/s, {} verify/s",
                    rsa.pretty(),
                    fmt_rate(Some(sg)),
                    fmt_rate(Some(v))
                ),
                _ => continue,
            },
            Some(ec) => match (
                rate(ec, Op::Sign),
                rate(ec, Op::Verify),
                rate(rsa, Op::Sign),
                rate(rsa, Op::Verify),
            ) {
                (Some(es), Some(ev), Some(rs), Some(rv)) => format!(
                    "{} signs {} and verifies {} as fast as {}",
                    ec.pretty(),
                    times(es, rs),
                    times(ev, rv),
                    rsa.pretty()
                ),
                (None, None, None, None) => continue,
                _ => format!(
                    "not compared: measure both (--algs {},{})",
                    rsa.name(),
                    ec.name()
                ),
            },
        };
        let _ = writeln!(s, "  at {level}-bit: {line}");
    }
    s
}

/// The `--sweep` table: ops/s per batch size.
pub fn sweep_table(r: &Report, sizes: &[usize]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "\nthroughput (ops/s) by batch size\n{:<10} {:<10} {:<7}",
        "backend", "alg", "op"
    );
    for n in sizes {
        let _ = write!(s, " {n:>9}");
    }
    let _ = writeln!(s);
    let mut keys: Vec<(&str, Alg, Op)> = r
        .sweep
        .iter()
        .map(|p| (p.backend.as_str(), p.alg, p.op))
        .collect();
    keys.dedup();
    for (b, alg, op) in keys {
        let _ = write!(s, "{:<10} {:<10} {:<7}", b, alg.name(), op.name());
        for &n in sizes {
            let p = r
                .sweep
                .iter()
                .find(|p| p.backend == b && p.alg == alg && p.op == op && p.batch == n);
            let cell = match p {
                Some(p) if p.ops_per_sec.is_some() => fmt_rate(p.ops_per_sec),
                Some(_) => "skip".into(),
                None => "-".into(),
            };
            let _ = write!(s, " {cell:>9}");
        }
        let _ = writeln!(s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::Curve;

    fn rec(backend: &str, alg: Alg, op: Op, rate: f64, ossl: Option<f64>) -> Record {
        Record {
            backend: backend.into(),
            algorithm: alg.name(),
            operation: op.name(),
            batch: 64,
            batch_capped: false,
            threads: 1,
            ops_per_sec: Some(rate),
            ops: 64,
            seconds: 64.0 / rate,
            openssl_ops_per_sec: ossl,
            ratio_to_openssl: ossl.map(|o| rate / o),
            security_bits: alg.security_bits(),
            error: None,
            not_measured: None,
            alg,
            op,
        }
    }

    fn report(results: Vec<Record>) -> Report {
        Report {
            tool: "batch-speed",
            version: "test",
            unix_time: 0,
            machine: Machine {
                cpu: "cpu".into(),
                cores: 1,
                simd: vec![],
                gpu: "none".into(),
                os: "os".into(),
                openssl: "n/a".into(),
            },
            config: Config {
                batch: 64,
                seconds: 1.0,
                threads: 1,
                algorithms: vec![],
                openssl: true,
            },
            backends: vec![],
            results,
            sweep: vec![],
            tls: vec![],
        }
    }

    #[test]
    fn equal_security_states_ratios() {
        let p256 = Alg::Ecdsa(Curve::P256);
        let r = report(vec![
            rec("scalar", Alg::Rsa(3072), Op::Sign, 100.0, Some(200.0)),
            rec("scalar", Alg::Rsa(3072), Op::Verify, 10000.0, Some(20000.0)),
            rec("scalar", p256, Op::Sign, 5700.0, Some(5700.0)),
            rec("scalar", p256, Op::Verify, 5000.0, Some(2000.0)),
            rec("scalar", Alg::Ecdsa(Curve::P384), Op::Sign, 1000.0, None),
            rec("scalar", Alg::Ecdsa(Curve::P384), Op::Verify, 500.0, None),
        ]);
        let s = equal_security(&r, Some("scalar"));
        assert!(
            s.contains("at 128-bit: ECDSA P-256 signs 57× and verifies 0.50× as fast as RSA-3072"),
            "{s}"
        );
        assert!(
            s.contains("at 192-bit: not compared: measure both (--algs rsa7680,ecdsap384)"),
            "{s}"
        );
        assert!(!s.contains("112-bit"), "{s}");
        let o = equal_security(&r, None);
        assert!(
            o.contains("signs 28× and verifies 0.10× as fast as RSA-3072"),
            "{o}"
        );
    }

    #[test]
    fn table_marks_failures_and_openssl_ratios() {
        let mut bad = rec("scalar", Alg::Rsa(2048), Op::Verify, 1.0, None);
        bad.ops_per_sec = None;
        bad.error = Some("a genuine signature (job 0) was rejected".into());
        let r = report(vec![
            rec("scalar", Alg::Rsa(2048), Op::Sign, 500.0, Some(1000.0)),
            bad,
        ]);
        let b = BackendInfo {
            name: "scalar".into(),
            available: true,
            description: "d".into(),
        };
        let t = backend_table(&r, &b, &[Alg::Rsa(2048)]);
        assert!(t.contains("rsa 2048 bits"), "{t}");
        assert!(t.contains("0.50"), "{t}");
        assert!(t.contains("FAILED"), "{t}");
        let off = BackendInfo {
            name: "avx2".into(),
            available: false,
            description: "CPU lacks AVX2".into(),
        };
        assert!(backend_table(&r, &off, &[Alg::Rsa(2048)]).contains("avx2: n/a (CPU lacks AVX2)"));
    }

    #[test]
    fn json_has_the_documented_fields() {
        let r = report(vec![rec(
            "scalar",
            Alg::Rsa(2048),
            Op::Sign,
            500.0,
            Some(1000.0),
        )]);
        let v: serde_json::Value = serde_json::to_value(&r).unwrap();
        let rec = &v["results"][0];
        for k in [
            "backend",
            "algorithm",
            "operation",
            "batch",
            "threads",
            "ops_per_sec",
            "openssl_ops_per_sec",
        ] {
            assert!(!rec[k].is_null(), "missing {k}");
        }
        assert_eq!(rec["algorithm"], "rsa2048");
        assert_eq!(rec["operation"], "sign");
        assert!(v["machine"]["cpu"].is_string());
    }
}
