//! `openssl speed` run in the same process lifetime as our cells, parsed from its
//! machine-readable (`-mr`) output, so every ratio compares figures taken under the same
//! machine load.

use std::process::Command;

use crate::alg::Alg;

/// OpenSSL's sign/s and verify/s for one algorithm (summed over `-multi` processes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpensslFigure {
    pub alg: Alg,
    pub sign_per_sec: f64,
    pub verify_per_sec: f64,
}

/// `openssl version`, or why OpenSSL cannot be run.
pub fn version() -> Result<String, String> {
    let out = Command::new("openssl")
        .arg("version")
        .output()
        .map_err(|e| format!("openssl not runnable: {e}"))?;
    if !out.status.success() {
        return Err(format!("`openssl version` exited with {}", out.status));
    }
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(with_cpu_mask(
        version,
        std::env::var("OPENSSL_ia32cap").ok().as_deref(),
    ))
}

/// `version`, saying so where `OPENSSL_ia32cap` is set: it masks the CPU features OpenSSL's
/// (and AWS-LC's) assembly may use, e.g. `~0x0:~0x10000` clears AVX-512F and with it their
/// IFMA code, which is how a CPU without AVX-512 is compared on one that has it
/// (docs/PERF.md), so a table measured that way must say it.
pub fn with_cpu_mask(version: String, ia32cap: Option<&str>) -> String {
    match ia32cap {
        Some(cap) => format!("{version} (OPENSSL_ia32cap={cap}: CPU features masked)"),
        None => version,
    }
}

/// Runs `openssl speed -mr -seconds S [-multi T] <alg>` and parses its summary lines.
pub fn speed(alg: Alg, seconds: f64, threads: usize) -> Result<OpensslFigure, String> {
    let mut cmd = Command::new("openssl");
    cmd.args(["speed", "-mr", "-seconds"])
        .arg(format!("{}", seconds.ceil().max(1.0) as u64));
    if threads > 1 {
        cmd.arg("-multi").arg(threads.to_string());
    }
    cmd.arg(alg.name());
    let out = cmd
        .output()
        .map_err(|e| format!("openssl not runnable: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`openssl speed {}` exited with {}: {}",
            alg.name(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    parse_mr(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .find(|f| f.alg == alg)
        .ok_or_else(|| format!("no `{}` figure in openssl's -mr output", alg.name()))
}

/// Parses the `-mr` summary lines: `+F2:<i>:<bits>:<sign/s>:<verify/s>` for RSA and
/// `+F4:<i>:<bits>:<sign/s>:<verify/s>` for ECDSA (OpenSSL 1.1 and 3.x). With `-multi` the
/// children's lines are echoed as `Got: +F2:…`, which are skipped: only the parent's sum counts.
pub fn parse_mr(text: &str) -> Vec<OpensslFigure> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.trim_end().split(':').collect();
            if f.len() < 5 {
                return None;
            }
            let bits: usize = f[2].parse().ok()?;
            let alg = match f[0] {
                "+F2" => Alg::Rsa(bits),
                "+F4" => Alg::all()
                    .into_iter()
                    .find(|a| matches!(a, Alg::Ecdsa(c) if c.bits() == bits))?,
                _ => return None,
            };
            Some(OpensslFigure {
                alg,
                sign_per_sec: f[3].parse().ok()?,
                verify_per_sec: f[4].parse().ok()?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use batch_core::Curve;

    #[test]
    fn a_cpu_mask_is_reported() {
        assert_eq!(
            with_cpu_mask("OpenSSL 3.0.19".into(), None),
            "OpenSSL 3.0.19"
        );
        assert_eq!(
            with_cpu_mask("OpenSSL 3.0.19".into(), Some("~0x0:~0x10000")),
            "OpenSSL 3.0.19 (OPENSSL_ia32cap=~0x0:~0x10000: CPU features masked)"
        );
    }

    #[test]
    fn parses_multi_output() {
        // Captured from `openssl speed -mr -seconds 1 -multi 2 rsa2048 ecdsap256` (3.0.19).
        let text = "+DTP:2048:public:rsa:1\n+R1:984:2048:1.00\nForked child 1\n\
            Got: +F2:2:2048:984.000000:19552.000000 from 0\n\
            Got: +F4:3:256:13535.000000:4360.000000 from 0\n\
            +F2:2:2048:1964.198020:35181.000000\n+F4:3:256:27406.287129:8707.000000\n";
        let figs = parse_mr(text);
        assert_eq!(figs.len(), 2);
        assert_eq!(figs[0].alg, Alg::Rsa(2048));
        assert_eq!(figs[0].sign_per_sec, 1964.19802);
        assert_eq!(figs[1].alg, Alg::Ecdsa(Curve::P256));
        assert_eq!(figs[1].verify_per_sec, 8707.0);
    }

    #[test]
    fn ignores_other_curves_and_junk() {
        assert!(parse_mr("+F4:0:160:1:2\n+F2:garbage\nhello\n").is_empty());
        assert_eq!(parse_mr("+F4:5:521:100.5:50.25").len(), 1);
    }
}
