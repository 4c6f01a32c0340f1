//! Signs and verifies a batch with RSA-2048 and ECDSA P-256 on the default backend and
//! prints operations per second. `cargo run --release -p batchsig --example quickstart [N]`
use std::time::Instant;

use batchsig::rsa::RsaScheme;
use batchsig::{backend, test_keys, Curve, HashAlg};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let backend = backend::default_backend();
    println!("backend: {} ({})", backend.name(), backend.description());
    let messages: Vec<Vec<u8>> = (0..n)
        .map(|i| format!("message {i}").into_bytes())
        .collect();
    let msgs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();

    let key = test_keys::rsa(2048);
    let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
    let t = Instant::now();
    let sigs: Vec<Vec<u8>> = key
        .sign_batch(&*backend, scheme, &msgs)
        .expect("batch")
        .into_iter()
        .map(|r| r.expect("sign"))
        .collect();
    let sign = n as f64 / t.elapsed().as_secs_f64();
    let sig_refs: Vec<&[u8]> = sigs.iter().map(Vec::as_slice).collect();
    let t = Instant::now();
    let ok = key
        .public_key()
        .verify_batch(&*backend, scheme, &msgs, &sig_refs)
        .expect("batch");
    let verify = n as f64 / t.elapsed().as_secs_f64();
    assert!(ok.iter().all(Result::is_ok));
    println!("RSA-2048  {n} signatures: {sign:>10.0} sign/s {verify:>10.0} verify/s");

    let key = test_keys::ecdsa(Curve::P256);
    let t = Instant::now();
    let sigs: Vec<_> = key
        .sign_batch(&*backend, &msgs)
        .expect("batch")
        .into_iter()
        .map(|r| r.expect("sign"))
        .collect();
    let sign = n as f64 / t.elapsed().as_secs_f64();
    let t = Instant::now();
    let ok = key
        .public_key()
        .verify_batch(&*backend, &msgs, &sigs)
        .expect("batch");
    let verify = n as f64 / t.elapsed().as_secs_f64();
    assert!(ok.iter().all(Result::is_ok));
    println!("ECDSA P-256 {n} signatures: {sign:>8.0} sign/s {verify:>10.0} verify/s");
}
