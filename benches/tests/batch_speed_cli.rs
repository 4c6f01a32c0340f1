//! The `batch-speed` command end to end, at tiny sizes: exit status, the table, the JSON
//! fields the README documents, the SVG, peers and repeated runs, and the errors for bad
//! flags.

use std::process::Command;

fn batch_speed() -> Command {
    Command::new(env!("CARGO_BIN_EXE_batch-speed"))
}

#[test]
fn small_run_writes_table_json_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let (json, svg) = (dir.path().join("out.json"), dir.path().join("out.svg"));
    // OpenSSL's column is part of the job: with CI=true a missing `openssl` is a failure.
    let openssl = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(openssl || !ci, "CI=true but the openssl command is missing");
    let out = batch_speed()
        .args([
            "--backends",
            "scalar",
            "--algs",
            "ecdsap224,rsa2048",
            "--batch",
            "6",
            "--seconds",
            "0.05",
        ])
        .args([
            "--threads",
            "2",
            "--openssl",
            if openssl { "auto" } else { "off" },
        ])
        .arg("--json")
        .arg(&json)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("rsa 2048 bits") && stdout.contains("224 bits ecdsa (nistp224)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("at 112-bit: ECDSA P-224 signs "),
        "{stdout}"
    );
    // 2 algorithms × 3 operations, at the --seconds given.
    assert!(
        stdout.contains("expected: about ") && stdout.contains("(6 cells × 0.05 s"),
        "{stdout}"
    );
    // The table says which verify figure is which.
    assert!(
        stdout.contains("verify/s (one key)") && stdout.contains("×1key"),
        "{stdout}"
    );
    assert!(
        stdout.contains("verify, verify/s, ×verif: distinct keys"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ecdsap224: a key per job (6 keys)"),
        "{stdout}"
    );

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        6,
        "2 algorithms × sign/verify/verify-one-key"
    );
    for r in results {
        assert_eq!(r["backend"], "scalar");
        assert!(["rsa2048", "ecdsap224"].contains(&r["algorithm"].as_str().unwrap()));
        let op = r["operation"].as_str().unwrap();
        assert!(["sign", "verify", "verify-one-key"].contains(&op), "{r}");
        let batch = r["batch"].as_u64().unwrap();
        assert!(batch >= 1);
        assert_eq!(r["threads"], 2);
        assert!(r["ops_per_sec"].as_f64().unwrap() > 0.0, "{r}");
        if openssl {
            assert!(r["openssl_ops_per_sec"].as_f64().unwrap() > 0.0, "{r}");
        }
        // Distinct keys: more than one per batch, each job its own key object; otherwise one.
        let keys = &r["keys"];
        assert!(keys["source"].is_string(), "{r}");
        if op == "verify" {
            assert_eq!(keys["per_job"], true, "{r}");
            assert!(keys["distinct"].as_u64().unwrap() > 1, "{r}");
            assert!(batch <= 8 * keys["distinct"].as_u64().unwrap(), "{r}");
        } else {
            assert_eq!(keys["per_job"], false, "{r}");
            assert_eq!(keys["distinct"], 1, "{r}");
        }
    }
    for alg in ["rsa2048", "ecdsap224"] {
        let one = results
            .iter()
            .find(|r| r["algorithm"] == alg && r["operation"] == "verify-one-key")
            .unwrap_or_else(|| panic!("no verify-one-key record for {alg}"));
        assert_eq!(one["batch"], 6, "{one}");
    }
    assert!(v["machine"]["cpu"].is_string() && v["machine"]["cores"].as_u64().unwrap() >= 1);
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.contains("rsa2048") && plot.contains("scalar"));
}

#[test]
fn sweep_reports_every_size() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sweep.json");
    let out = batch_speed()
        .args([
            "--backends",
            "scalar",
            "--algs",
            "ecdsap256",
            "--batch",
            "4",
            "--seconds",
            "0.02",
            "--openssl",
            "off",
        ])
        .args(["--sweep", "--sweep-sizes", "1,3,8", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let sweep = v["sweep"].as_array().unwrap();
    assert_eq!(sweep.len(), 9, "3 sizes × sign/verify/verify-one-key");
    let sizes: Vec<u64> = sweep.iter().map(|p| p["batch"].as_u64().unwrap()).collect();
    assert_eq!(sizes, [1, 3, 8, 1, 3, 8, 1, 3, 8]);
    let ops: Vec<&str> = sweep
        .iter()
        .map(|p| p["operation"].as_str().unwrap())
        .collect();
    assert_eq!(ops[3..6], ["verify"; 3]);
    assert_eq!(ops[6..], ["verify-one-key"; 3]);
    // The pool covers the largest sweep size: 8 keys for the 8-job point.
    assert_eq!(sweep[5]["keys"]["distinct"], 8, "{}", sweep[5]);
    assert_eq!(sweep[8]["keys"]["distinct"], 1, "{}", sweep[8]);
    assert!(sweep
        .iter()
        .all(|p| p["ops_per_sec"].as_f64().is_some_and(|x| x > 0.0)));
}

#[test]
fn bad_flags_are_clear_errors() {
    for (args, expect) in [
        (&["--algs", "rsa1024"][..], "unknown algorithm"),
        (&["--backends", "quantum"][..], "unknown backend"),
        (&["--batch", "0"][..], "--batch must be at least 1"),
        (&["--seconds=-1"][..], "--seconds must be a positive number"),
        (&["--repeat", "0"][..], "--repeat must be at least 1"),
        (&["--peers", "openssl"][..], "unknown peer"),
    ] {
        let out = batch_speed()
            .args(args)
            .args(["--openssl", "off"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}

#[test]
fn tls_adds_handshake_records() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tls.json");
    let out = batch_speed()
        .args([
            "--backends",
            "scalar",
            "--algs",
            "ecdsap256",
            "--batch",
            "2",
            "--seconds",
            "0.02",
            "--openssl",
            "off",
        ])
        .args([
            "--tls",
            "--tls-suites",
            "p256,rsa2048",
            "--tls-handshakes",
            "4",
            "--tls-runs",
            "2",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("TLS 1.3 full handshakes")
            && stdout.contains("P-256")
            && stdout.contains("RSA-2048")
            && stdout.contains("N independent clients"),
        "{stdout}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let tls = v["tls"].as_array().unwrap();
    assert_eq!(tls.len(), 4, "2 suites × server/client");
    for r in tls {
        assert_eq!(r["backend"], "scalar");
        assert!(
            ["ecdsa_secp256r1_sha256", "rsa_pss_rsae_sha256/rsa2048"]
                .contains(&r["suite"].as_str().unwrap()),
            "{r}"
        );
        assert!(["server", "client"].contains(&r["side"].as_str().unwrap()));
        assert!(r["handshakes_per_sec"].as_f64().unwrap() > 0.0);
        assert_eq!(r["runs"], 2);
        let (lo, mid, hi) = (
            r["handshakes_per_sec_min"].as_f64().unwrap(),
            r["handshakes_per_sec"].as_f64().unwrap(),
            r["handshakes_per_sec_max"].as_f64().unwrap(),
        );
        assert!(lo <= mid && mid <= hi, "{r}");
        assert_eq!(r["failed"], 0);
    }
}

fn openssl_here() -> bool {
    let openssl = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(openssl || !ci, "CI=true but the openssl command is missing");
    openssl
}

/// `--peers rustcrypto --repeat 2`: the peer's rows beside the backend's, every run kept,
/// medians and ratios from the runs.
#[test]
fn peers_and_repeated_runs() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("peers.json");
    let openssl = openssl_here();
    let out = batch_speed()
        .args([
            "--seconds",
            "0.2",
            "--repeat",
            "2",
            "--algs",
            "rsa2048,ecdsap256",
        ])
        .args([
            "--peers",
            "rustcrypto",
            "--backends",
            "scalar",
            "--batch",
            "16",
        ])
        .args([
            "--threads",
            "2",
            "--openssl",
            if openssl { "auto" } else { "off" },
        ])
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("\nrustcrypto — RustCrypto rsa 0.10"),
        "{stdout}"
    );
    assert!(
        stdout.contains("rustcrypto's key objects: a VerifyingKey object per job"),
        "{stdout}"
    );
    assert!(stdout.contains("the median of 2 runs"), "{stdout}");

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["config"]["repeat"], 2);
    assert_eq!(v["peers"][0]["name"], "rustcrypto");
    assert_eq!(v["peers"][0]["kind"], "peer");
    assert_eq!(v["backends"][0]["kind"], "backend");
    let results = v["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        12,
        "(scalar, rustcrypto) × 2 algorithms × 3 operations"
    );
    for (backend, kind) in [("scalar", "backend"), ("rustcrypto", "peer")] {
        let rows: Vec<&serde_json::Value> =
            results.iter().filter(|r| r["backend"] == backend).collect();
        assert_eq!(rows.len(), 6, "{backend}");
        for r in rows {
            assert_eq!(r["kind"], kind, "{r}");
            assert!(r["error"].is_null() && r["not_measured"].is_null(), "{r}");
            let runs: Vec<f64> = r["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            assert_eq!(runs.len(), 2, "{r}");
            assert!(runs.iter().all(|&x| x > 0.0), "{r}");
            let (median, min, max) = (
                r["median"].as_f64().unwrap(),
                r["min"].as_f64().unwrap(),
                r["max"].as_f64().unwrap(),
            );
            assert!(min <= median && median <= max, "{r}");
            assert_eq!(min, runs[0].min(runs[1]), "{r}");
            assert_eq!(max, runs[0].max(runs[1]), "{r}");
            assert!(
                (median - (runs[0] + runs[1]) / 2.0).abs() <= 1e-9 * median,
                "{r}"
            );
            assert_eq!(r["ops_per_sec"].as_f64().unwrap(), median, "{r}");
            let spread = r["spread"].as_f64().unwrap();
            assert!((spread - (max - min) / median).abs() < 1e-9, "{r}");
            if r["operation"] == "verify" {
                assert_eq!(r["keys"]["per_job"], true, "{r}");
                assert!(r["keys"]["distinct"].as_u64().unwrap() > 1, "{r}");
            }
            if openssl {
                let o: Vec<f64> = r["openssl_runs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect();
                assert_eq!(o.len(), 2, "{r}");
                let want = (runs[0] / o[0] + runs[1] / o[1]) / 2.0;
                let ratio = r["ratio_to_openssl"].as_f64().unwrap();
                assert!((ratio - want).abs() <= 1e-9 * want, "{r}");
            }
        }
    }
}

/// `ring` and `aws-lc-rs` are behind the `peers` feature. Without it, naming one is a clear
/// error and `all` lists them as not built and measures the rest; with it, `all` measures
/// all three, and a curve a peer lacks is `—`, not a figure.
#[test]
fn peers_all() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("all.json");
    let named = batch_speed()
        .args(["--peers", "ring", "--openssl", "off", "--algs", "ecdsap256"])
        .args(["--backends", "scalar", "--batch", "4", "--seconds", "0.02"])
        .output()
        .unwrap();
    let out = batch_speed()
        .args(["--peers", "all", "--backends", "scalar", "--openssl", "off"])
        .args([
            "--algs",
            "ecdsap256,ecdsap521",
            "--batch",
            "4",
            "--seconds",
            "0.02",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\nrustcrypto — "), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = |b: &str, alg: &str| -> Vec<serde_json::Value> {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["backend"] == b && r["algorithm"] == alg)
            .cloned()
            .collect()
    };
    for alg in ["ecdsap256", "ecdsap521"] {
        let r = rows("rustcrypto", alg);
        assert_eq!(r.len(), 3, "{alg}");
        assert!(
            r.iter().all(|r| r["ops_per_sec"].as_f64().unwrap() > 0.0),
            "{r:?}"
        );
    }
    if cfg!(feature = "peers") {
        assert!(
            named.status.success(),
            "{}",
            String::from_utf8_lossy(&named.stderr)
        );
        for (peer, alg) in [
            ("ring", "ecdsap256"),
            ("aws-lc-rs", "ecdsap256"),
            ("aws-lc-rs", "ecdsap521"),
        ] {
            let r = rows(peer, alg);
            assert_eq!(r.len(), 3, "{peer} {alg}");
            for r in r {
                assert_eq!(r["kind"], "peer");
                assert!(r["ops_per_sec"].as_f64().unwrap() > 0.0, "{r}");
            }
        }
        let r = rows("ring", "ecdsap521");
        assert_eq!(r.len(), 3);
        for r in r {
            assert!(r["ops_per_sec"].is_null() && r["error"].is_null(), "{r}");
            assert!(r["not_measured"].as_str().unwrap().contains("P-521"), "{r}");
        }
        assert!(stdout.contains("—"), "{stdout}");
    } else {
        assert_eq!(named.status.code(), Some(2));
        let err = String::from_utf8_lossy(&named.stderr);
        assert!(err.contains("--features peers"), "{err}");
        assert!(stdout.contains("ring: n/a (not in this build"), "{stdout}");
        assert!(
            stdout.contains("aws-lc-rs: n/a (not in this build"),
            "{stdout}"
        );
        assert!(rows("ring", "ecdsap256").is_empty());
    }
}
