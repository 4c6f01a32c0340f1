//! One-thread sign/verify throughput of the default backend beside `openssl speed` measured
//! in the same run, as ratios — the figures in docs/PERF.md until `batch-speed` lands.
//! `cargo run --release -p batchsig --example speed -- [batch] [seconds]`
use std::process::Command;
use std::time::{Duration, Instant};

use batch_core::Backend;
use batchsig::rsa::RsaScheme;
use batchsig::{test_keys, Curve, HashAlg};

/// Runs `f` (which processes `batch` operations) until `secs` have passed; ops/s.
fn rate(batch: usize, secs: f64, mut f: impl FnMut()) -> f64 {
    f(); // warm-up: tables, page faults
    let (start, mut n) = (Instant::now(), 0usize);
    while start.elapsed() < Duration::from_secs_f64(secs) {
        f();
        n += batch;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn openssl_speed(secs: f64, algs: &[&str]) -> Vec<(String, f64, f64)> {
    let mut args = vec!["speed".to_string(), "-mr".into(), "-seconds".into(), format!("{}", secs.ceil() as u64)];
    args.extend(algs.iter().map(|s| s.to_string()));
    let Ok(out) = Command::new("openssl").args(&args).output() else { return Vec::new() };
    let text = String::from_utf8_lossy(&out.stdout);
    // -mr lines (OpenSSL 3): +F2:<i>:<bits>:<sign/s>:<verify/s> (RSA), +F4:… (ECDSA)
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            match f.first() {
                Some(&"+F2") if f.len() >= 5 => Some((format!("rsa{}", f[2]), f[3].parse::<f64>().ok()?, f[4].parse::<f64>().ok()?)),
                Some(&"+F4") if f.len() >= 5 => Some((format!("ecdsap{}", f[2]), f[3].parse::<f64>().ok()?, f[4].parse::<f64>().ok()?)),
                _ => None,
            }
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let batch: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let backend = batch_scalar::ScalarBackend::with_threads(1).expect("pool");
    println!("backend: {} ({}), batch {batch}, {secs} s per cell", backend.name(), backend.description());
    let msgs: Vec<Vec<u8>> = (0..batch).map(|i| format!("message {i}").into_bytes()).collect();
    let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    let mut ours = Vec::new();
    // OpenSSL runs right after each of ours, so both see the same machine load.
    let mut theirs = Vec::new();
    for bits in [2048, 3072, 4096] {
        let key = test_keys::rsa(bits);
        let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
        let sigs: Vec<Vec<u8>> = key.sign_batch(&backend, scheme, &refs).unwrap().into_iter().map(Result::unwrap).collect();
        let srefs: Vec<&[u8]> = sigs.iter().map(Vec::as_slice).collect();
        let s = rate(batch, secs, || assert!(key.sign_batch(&backend, scheme, &refs).unwrap().iter().all(Result::is_ok)));
        let v = rate(batch, secs, || {
            assert!(key.public_key().verify_batch(&backend, scheme, &refs, &srefs).unwrap().iter().all(Result::is_ok))
        });
        ours.push((format!("rsa{bits}"), s, v));
        theirs.extend(openssl_speed(secs, &[&format!("rsa{bits}")]));
        eprintln!("rsa{bits}: {s:.0} sign/s {v:.0} verify/s");
    }
    for curve in Curve::ALL {
        let key = test_keys::ecdsa(curve);
        let sigs: Vec<_> = key.sign_batch(&backend, &refs).unwrap().into_iter().map(Result::unwrap).collect();
        let s = rate(batch, secs, || assert!(key.sign_batch(&backend, &refs).unwrap().iter().all(Result::is_ok)));
        let v = rate(batch, secs, || assert!(key.public_key().verify_batch(&backend, &refs, &sigs).unwrap().iter().all(Result::is_ok)));
        let name = format!("ecdsap{}", curve.bits());
        eprintln!("{name}: {s:.0} sign/s {v:.0} verify/s");
        theirs.extend(openssl_speed(secs, &[&name]));
        ours.push((name, s, v));
    }
    println!("{:<10} {:>12} {:>12} {:>12} {:>12} {:>8} {:>8}", "", "sign/s", "verify/s", "openssl s/s", "openssl v/s", "sign×", "verify×");
    for (name, s, v) in &ours {
        let o = theirs.iter().find(|t| &t.0 == name);
        let (os, ov) = o.map_or((f64::NAN, f64::NAN), |o| (o.1, o.2));
        println!("{name:<10} {s:>12.0} {v:>12.0} {os:>12.0} {ov:>12.0} {:>8.2} {:>8.2}", s / os, v / ov);
    }
}
