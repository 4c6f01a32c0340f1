//! The report: records per cell, the `openssl speed`-style tables, the equal-security
//! comparison, and the JSON written by `--json` (fields documented in the README).

use std::fmt::Write as _;

use serde::Serialize;

use crate::alg::{Alg, EQUAL_SECURITY};
use crate::keys::KeyInfo;
use crate::machine::Machine;
use crate::measure::Op;
use crate::stats::{Runs, SPREAD_MARK};

/// One timed cell (over all its `--repeat` runs).
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    /// Our backend's name, or the peer library's (`ring`, `aws-lc-rs`, `rustcrypto`).
    pub backend: String,
    /// `backend` (one of ours) or `peer` (another library's single-signature API, `--peers`).
    pub kind: &'static str,
    /// The `--algs` name (`rsa2048`, `ecdsap256`, …).
    pub algorithm: String,
    /// `sign`, `verify` (distinct keys) or `verify-one-key` (one key for the whole batch).
    pub operation: &'static str,
    /// Jobs per batch actually run, the smallest over the runs (a batch that would not fit
    /// `--seconds` is capped; see `batch_capped`).
    pub batch: usize,
    pub batch_capped: bool,
    /// The public keys of each batch: `distinct` (how many), `per_job` (each job its own key
    /// object), `source`. `null` where the keys could not be made.
    pub keys: Option<KeyInfo>,
    pub threads: usize,
    /// The median of `runs`; `null` when the cell failed (then `error` says why).
    pub ops_per_sec: Option<f64>,
    /// Every run's ops/s in run order (`--repeat N`: N of them), with their `median`, `min`,
    /// `max` and `spread` (`(max − min) / median`); empty when the cell failed.
    #[serde(flatten)]
    pub runs: Runs,
    /// Operations and seconds timed, summed over the runs.
    pub ops: usize,
    pub seconds: f64,
    /// OpenSSL's figure for the same algorithm and operation, measured in this run (for
    /// both verify operations its verify figure: `openssl speed` times one key): the median
    /// of `openssl_runs`, each run taken right after the same run of every cell.
    pub openssl_ops_per_sec: Option<f64>,
    pub openssl_runs: Vec<f64>,
    /// The median of the per-run ratios `runs[i] / openssl_runs[i]`.
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
    /// As in [`Record::keys`].
    pub keys: Option<KeyInfo>,
    /// Why the point has no figure (skipped as too slow, or failed).
    pub note: Option<String>,
    #[serde(skip)]
    pub alg: Alg,
    #[serde(skip)]
    pub op: Op,
}

/// A backend (or peer library) as the report lists it.
#[derive(Clone, Debug, Serialize)]
pub struct BackendInfo {
    pub name: String,
    /// `backend` or `peer`, as in [`Record::kind`].
    pub kind: &'static str,
    pub available: bool,
    /// The backend's description, or why it is unavailable.
    pub description: String,
    /// For a peer: how its verify cells hold their keys (the table's legend says it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_keys: Option<String>,
}

impl BackendInfo {
    /// One of our backends.
    pub fn backend(name: &str, available: bool, description: String) -> Self {
        Self {
            name: name.into(),
            kind: "backend",
            available,
            description,
            verify_keys: None,
        }
    }
}

/// The run's settings.
#[derive(Clone, Debug, Serialize)]
pub struct Config {
    pub batch: usize,
    pub seconds: f64,
    pub threads: usize,
    pub algorithms: Vec<String>,
    pub openssl: bool,
    /// Runs of every cell (`--repeat`).
    pub repeat: usize,
    /// The peers asked for (`--peers`).
    pub peers: Vec<String>,
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
    /// The peer libraries (`--peers`), listed like `backends`.
    pub peers: Vec<BackendInfo>,
    pub results: Vec<Record>,
    pub sweep: Vec<SweepRecord>,
    /// Where each GPU backend overtakes the others in the sweep (`--sweep` with a GPU).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crossovers: Vec<crate::crossover::Crossover>,
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

    pub(crate) fn rate(&self, backend: &str, alg: Alg, op: Op) -> Option<f64> {
        self.find(backend, alg, op).and_then(|r| r.ops_per_sec)
    }

    /// OpenSSL's figure for `alg`/`op`, from any record carrying it.
    pub(crate) fn openssl_rate(&self, alg: Alg, op: Op) -> Option<f64> {
        self.openssl_record(alg, op)
            .and_then(|r| r.openssl_ops_per_sec)
    }

    fn openssl_record(&self, alg: Alg, op: Op) -> Option<&Record> {
        self.results
            .iter()
            .find(|r| r.alg == alg && r.op == op && r.openssl_ops_per_sec.is_some())
    }
}

/// A rate with its `~` mark when its runs spread too far (`--repeat`).
fn fmt_runs(x: Option<f64>, runs: &Runs) -> String {
    let s = fmt_rate(x);
    if x.is_some() && runs.is_spread() {
        format!("~{s}")
    } else {
        s
    }
}

/// A cell's figure: `—` where it was not measured (a size or curve the library lacks),
/// `n/a` where it failed or is missing, else the median, `~` marked if spread.
fn fmt_cell(rec: Option<&Record>) -> String {
    match rec {
        Some(r) if r.not_measured.is_some() => "—".into(),
        Some(r) => fmt_runs(r.ops_per_sec, &r.runs),
        None => "n/a".into(),
    }
}

fn fmt_cell_time(rec: Option<&Record>) -> String {
    match rec {
        Some(r) if r.not_measured.is_some() => "—".into(),
        r => fmt_time(r.and_then(|r| r.ops_per_sec)),
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
        "batch-speed {} — batches of {} jobs, {} s per cell, {} threads{}",
        r.version,
        r.config.batch,
        r.config.seconds,
        r.config.threads,
        if r.config.repeat > 1 {
            format!(", {} runs of every cell", r.config.repeat)
        } else {
            String::new()
        }
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
/// `verify` is the distinct-key figure (the one compared with OpenSSL); `verify/s (one key)`
/// the shared-key path; a legend under the table says which keys each algorithm used.
pub fn backend_table(r: &Report, b: &BackendInfo, algs: &[Alg]) -> String {
    let mut s = String::new();
    if !b.available {
        let _ = writeln!(s, "\n{}: n/a ({})", b.name, b.description);
        return s;
    }
    let _ = writeln!(s, "\n{} — {}", b.name, b.description);
    let row = |s: &mut String, c: [&str; 11]| {
        let _ = writeln!(
            s,
            "{:<26} {:>11} {:>11} {:>10} {:>10} | {:>10} {:>10} | {:>6} {:>6} | {:>18} {:>6}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]
        );
    };
    row(
        &mut s,
        [
            "",
            "sign",
            "verify",
            "sign/s",
            "verify/s",
            "ossl sign",
            "ossl verif",
            "×sign",
            "×verif",
            "verify/s (one key)",
            "×1key",
        ],
    );
    let mut notes = Vec::new();
    // (description of the distinct keys, algorithms using it), in table order.
    let mut legend: Vec<(String, Vec<String>)> = Vec::new();
    for &alg in algs {
        let sign = r.find(&b.name, alg, Op::Sign);
        let verify = r.find(&b.name, alg, Op::Verify);
        let one = r.find(&b.name, alg, Op::VerifyOneKey);
        let ratio = |x: Option<&Record>| match x {
            Some(x) if x.not_measured.is_some() => "—".into(),
            x => fmt_ratio(x.and_then(|x| x.ratio_to_openssl)),
        };
        let ossl = |op: Op| {
            r.openssl_record(alg, op).map_or("n/a".into(), |x| {
                fmt_runs(x.openssl_ops_per_sec, &Runs::new(x.openssl_runs.clone()))
            })
        };
        row(
            &mut s,
            [
                &alg.label(),
                &fmt_cell_time(sign),
                &fmt_cell_time(verify),
                &fmt_cell(sign),
                &fmt_cell(verify),
                &ossl(Op::Sign),
                &ossl(Op::Verify),
                &ratio(sign),
                &ratio(verify),
                &fmt_cell(one),
                &ratio(one),
            ],
        );
        if let Some(k) = verify.and_then(|v| v.keys.as_ref().map(|k| k.describe(v.batch))) {
            match legend.iter_mut().find(|(d, _)| *d == k) {
                Some((_, a)) => a.push(alg.name()),
                None => legend.push((k, vec![alg.name()])),
            }
        }
        for rec in [sign, verify, one].into_iter().flatten() {
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
    let _ = writeln!(
        s,
        "  verify, verify/s, ×verif: distinct keys (×verif: this figure over OpenSSL's)"
    );
    for (d, a) in legend {
        let _ = writeln!(s, "    {}: {d}", a.join(", "));
    }
    if let Some(k) = &b.verify_keys {
        let _ = writeln!(s, "    {}'s key objects: {k}", b.name);
    }
    let _ = writeln!(
        s,
        "  verify/s (one key), ×1key: every job under one key, the shared-key path"
    );
    let _ = writeln!(
        s,
        "  ossl sign, ossl verif: `openssl speed` in this run, which times one key throughout"
    );
    if r.config.repeat > 1 {
        let _ = writeln!(
            s,
            "  each figure: the median of {} runs, interleaved with OpenSSL's; ratios: medians of \
             the per-run ratios; ~: the runs spread by more than {:.0} % ((max − min) / median)",
            r.config.repeat,
            SPREAD_MARK * 100.0
        );
    }
    if r.results
        .iter()
        .any(|x| x.backend == b.name && x.not_measured.is_some())
    {
        let _ = writeln!(s, "  —: not measured (the notes say why)");
    }
    for n in notes {
        let _ = writeln!(s, "  note: {n}");
    }
    s
}

/// Every library side by side, one column per available backend or peer (`libs`): each
/// cell `sign / verify` (distinct keys) as ratios to OpenSSL in this run, or as ops/s where
/// OpenSSL was not measured. `—`: not measured (a size or curve the library lacks); `n/a`:
/// failed or missing; `~`: the runs spread by more than 15 %.
pub fn libraries_table(r: &Report, libs: &[&BackendInfo], algs: &[Alg]) -> String {
    let mut s = String::new();
    let ratios = r.config.openssl;
    let _ = writeln!(
        s,
        "\nevery library, sign / verify (distinct keys){}:",
        if ratios {
            " as ratios to OpenSSL in this run"
        } else {
            ", ops/s"
        }
    );
    let _ = write!(s, "{:<26}", "");
    for b in libs {
        let _ = write!(
            s,
            " {:>17}",
            format!(
                "{} ({})",
                b.name,
                if b.kind == "peer" { "peer" } else { "ours" }
            )
        );
    }
    let _ = writeln!(s);
    let one = |rec: Option<&Record>| match rec {
        Some(x) if x.not_measured.is_some() => "—".to_string(),
        Some(x) if ratios => {
            let v = fmt_ratio(x.ratio_to_openssl);
            if x.ratio_to_openssl.is_some() && x.runs.is_spread() {
                format!("~{v}")
            } else {
                v
            }
        }
        Some(x) => fmt_runs(x.ops_per_sec, &x.runs),
        None => "n/a".into(),
    };
    for &alg in algs {
        let _ = write!(s, "{:<26}", alg.label());
        for b in libs {
            let cell = format!(
                "{} / {}",
                one(r.find(&b.name, alg, Op::Sign)),
                one(r.find(&b.name, alg, Op::Verify))
            );
            let _ = write!(s, " {cell:>17}");
        }
        let _ = writeln!(s);
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
    // What the library lacks (a peer without RSA-7680 signing, say) cannot be compared.
    let lacks = |alg: Alg| {
        let b = backend?;
        Op::ALL[..2]
            .iter()
            .find_map(|&op| r.find(b, alg, op)?.not_measured.as_ref())
    };
    let mut s = String::new();
    for (level, rsa, ec) in EQUAL_SECURITY {
        if let Some(why) = [rsa, ec].into_iter().find_map(lacks) {
            let _ = writeln!(s, "  at {level}-bit: not compared: {why}");
            continue;
        }
        let line = match (
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
        "\nthroughput (ops/s) by batch size\n{:<10} {:<10} {:<14}",
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
        let _ = write!(s, "{:<10} {:<10} {:<14}", b, alg.name(), op.name());
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
    if r.sweep.iter().any(|p| p.op != Op::Sign) {
        let _ = writeln!(
            s,
            "  verify: distinct keys, from the same pools as the tables above (min(batch, pool) keys \
             per batch); verify-one-key: one key for the whole batch"
        );
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use batch_core::Curve;

    pub(crate) fn rec(backend: &str, alg: Alg, op: Op, rate: f64, ossl: Option<f64>) -> Record {
        Record {
            backend: backend.into(),
            kind: "backend",
            algorithm: alg.name(),
            operation: op.name(),
            batch: 64,
            batch_capped: false,
            keys: Some(match op {
                Op::Verify => KeyInfo {
                    distinct: 64,
                    per_job: true,
                    source: "test".into(),
                },
                Op::Sign | Op::VerifyOneKey => KeyInfo::one_fixed(),
            }),
            threads: 1,
            ops_per_sec: Some(rate),
            runs: Runs::new(vec![rate]),
            ops: 64,
            seconds: 64.0 / rate,
            openssl_ops_per_sec: ossl,
            openssl_runs: ossl.into_iter().collect(),
            ratio_to_openssl: ossl.map(|o| rate / o),
            security_bits: alg.security_bits(),
            error: None,
            not_measured: None,
            alg,
            op,
        }
    }

    pub(crate) fn report(results: Vec<Record>) -> Report {
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
                repeat: 1,
                peers: vec![],
            },
            backends: vec![],
            peers: vec![],
            results,
            sweep: vec![],
            crossovers: vec![],
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
        // A library that lacks one side of a level says so instead of asking to measure it.
        let mut gone = rec("ring", Alg::Ecdsa(Curve::P384), Op::Sign, 1.0, None);
        gone.ops_per_sec = None;
        gone.not_measured = Some("ring has no P-384 today".into());
        let r2 = report(vec![
            gone,
            rec("ring", Alg::Rsa(7680), Op::Sign, 10.0, None),
            rec("ring", Alg::Rsa(7680), Op::Verify, 10.0, None),
        ]);
        let g = equal_security(&r2, Some("ring"));
        assert!(
            g.contains("at 192-bit: not compared: ring has no P-384 today"),
            "{g}"
        );
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
        let b = BackendInfo::backend("scalar", true, "d".into());
        let t = backend_table(&r, &b, &[Alg::Rsa(2048)]);
        assert!(t.contains("rsa 2048 bits"), "{t}");
        assert!(t.contains("0.50"), "{t}");
        assert!(t.contains("FAILED"), "{t}");
        let off = BackendInfo::backend("avx2", false, "CPU lacks AVX2".into());
        assert!(backend_table(&r, &off, &[Alg::Rsa(2048)]).contains("avx2: n/a (CPU lacks AVX2)"));
    }

    #[test]
    fn table_tells_distinct_keys_from_one_key() {
        let p256 = Alg::Ecdsa(Curve::P256);
        let mut rsa_verify = rec("scalar", Alg::Rsa(2048), Op::Verify, 30000.0, Some(40000.0));
        rsa_verify.keys = Some(KeyInfo {
            distinct: 8,
            per_job: true,
            source: "test".into(),
        });
        let r = report(vec![
            rec("scalar", Alg::Rsa(2048), Op::Sign, 1000.0, Some(2000.0)),
            rsa_verify,
            rec(
                "scalar",
                Alg::Rsa(2048),
                Op::VerifyOneKey,
                36000.0,
                Some(40000.0),
            ),
            rec("scalar", p256, Op::Sign, 30000.0, Some(30000.0)),
            rec("scalar", p256, Op::Verify, 5000.0, Some(10000.0)),
            rec("scalar", p256, Op::VerifyOneKey, 60000.0, Some(10000.0)),
        ]);
        let b = BackendInfo::backend("scalar", true, "d".into());
        let t = backend_table(&r, &b, &[Alg::Rsa(2048), p256]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[2].contains("verify/s (one key)") && lines[2].contains("×1key"),
            "{t}"
        );
        // distinct-key verify/s, OpenSSL, ×verif (0.50), then one-key verify/s and ×1key (6.00)
        let p256_row = lines
            .iter()
            .find(|l| l.starts_with("256 bits ecdsa"))
            .unwrap();
        let cols: Vec<&str> = p256_row.split_whitespace().collect();
        assert_eq!(
            cols[cols.len() - 10..],
            ["5000", "|", "30000", "10000", "|", "1.00", "0.50", "|", "60000", "6.00"],
            "{t}"
        );
        assert!(t.contains("verify, verify/s, ×verif: distinct keys"), "{t}");
        assert!(
            t.contains("rsa2048: 8 keys cycled over 64 jobs, a key object per job"),
            "{t}"
        );
        assert!(t.contains("ecdsap256: a key per job (64 keys)"), "{t}");
        assert!(
            t.contains("verify/s (one key), ×1key: every job under one key"),
            "{t}"
        );
        assert!(t.contains("times one key throughout"), "{t}");
    }

    #[test]
    fn libraries_side_by_side() {
        let p521 = Alg::Ecdsa(Curve::P521);
        let mut lacking = rec("ring", p521, Op::Sign, 1.0, Some(100.0));
        lacking.kind = "peer";
        lacking.ops_per_sec = None;
        lacking.ratio_to_openssl = None;
        lacking.not_measured = Some("ring has no P-521".into());
        let mut spread = rec("scalar", p521, Op::Verify, 300.0, Some(100.0));
        spread.runs = Runs::new(vec![200.0, 300.0, 400.0]);
        let r = report(vec![
            rec("scalar", p521, Op::Sign, 250.0, Some(100.0)),
            spread,
            lacking,
        ]);
        let ours = BackendInfo::backend("scalar", true, "d".into());
        let ring = BackendInfo {
            kind: "peer",
            verify_keys: Some("bytes".into()),
            ..BackendInfo::backend("ring", true, "d".into())
        };
        let t = libraries_table(&r, &[&ours, &ring], &[p521]);
        assert!(t.contains("as ratios to OpenSSL"), "{t}");
        assert!(
            t.contains("scalar (ours)") && t.contains("ring (peer)"),
            "{t}"
        );
        let row = t.lines().find(|l| l.starts_with("521 bits")).unwrap();
        assert!(row.contains("2.50 / ~3.00"), "{t}");
        assert!(row.contains("— / n/a"), "{t}");
        let table = backend_table(&r, &ring, &[p521]);
        assert!(table.contains("ring's key objects: bytes"), "{table}");
        assert!(table.contains("—: not measured"), "{table}");
        assert!(table.contains("n/a — ring has no P-521"), "{table}");
    }

    #[test]
    fn repeated_runs_are_marked_in_the_table() {
        let p256 = Alg::Ecdsa(Curve::P256);
        let mut sign = rec("scalar", p256, Op::Sign, 1000.0, Some(500.0));
        sign.runs = Runs::new(vec![800.0, 1000.0, 1200.0]);
        sign.openssl_runs = vec![500.0, 510.0, 490.0];
        let mut verify = rec("scalar", p256, Op::Verify, 400.0, Some(200.0));
        verify.runs = Runs::new(vec![390.0, 400.0, 410.0]);
        verify.openssl_runs = vec![100.0, 200.0, 300.0];
        let mut r = report(vec![sign, verify]);
        r.config.repeat = 3;
        let b = BackendInfo::backend("scalar", true, "d".into());
        let t = backend_table(&r, &b, &[p256]);
        let row = t.lines().find(|l| l.starts_with("256 bits")).unwrap();
        let cols: Vec<&str> = row.split_whitespace().collect();
        // sign/s spread 40 %: marked; verify/s 5 %: not; OpenSSL's verify runs 100 %: marked.
        assert_eq!(cols[6..11], ["~1000", "400", "|", "500", "~200"], "{t}");
        assert!(t.contains("the median of 3 runs"), "{t}");
        assert!(t.contains("more than 15 %"), "{t}");
        r.config.repeat = 1;
        assert!(!backend_table(&r, &b, &[p256]).contains("median of"));
    }

    #[test]
    fn json_keeps_every_run() {
        let mut x = rec("rustcrypto", Alg::Rsa(2048), Op::Verify, 20.0, Some(10.0));
        x.kind = "peer";
        x.runs = Runs::new(vec![10.0, 30.0, 20.0]);
        x.openssl_runs = vec![10.0, 10.0, 10.0];
        let v = serde_json::to_value(report(vec![x])).unwrap();
        let rec = &v["results"][0];
        assert_eq!(rec["kind"], "peer");
        assert_eq!(rec["runs"], serde_json::json!([10.0, 30.0, 20.0]));
        assert_eq!(
            (
                rec["median"].as_f64(),
                rec["min"].as_f64(),
                rec["max"].as_f64()
            ),
            (Some(20.0), Some(10.0), Some(30.0))
        );
        assert_eq!(rec["spread"], 1.0);
        assert_eq!(rec["openssl_runs"], serde_json::json!([10.0, 10.0, 10.0]));
        assert_eq!(v["config"]["repeat"], 1);
        assert!(v["peers"].is_array());
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
        assert_eq!(rec["keys"]["distinct"], 1);
        assert_eq!(rec["keys"]["per_job"], false);
        assert!(rec["keys"]["source"].is_string());
        assert!(v["machine"]["cpu"].is_string());
        let ops: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(ops, ["sign", "verify", "verify-one-key"]);
    }
}
