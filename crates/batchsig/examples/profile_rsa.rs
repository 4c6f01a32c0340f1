//! A fixed RSA signing workload for profilers (`perf record`, `valgrind --tool=callgrind`):
//! `cargo run --release -p batchsig --example profile_rsa -- [bits] [batch] [rounds] [backend] [verify]`
//! (backend: `avx512`, `avx2` or `scalar`; one thread; PKCS#1 v1.5, SHA-256). With `verify`,
//! the batch's signatures are verified instead, each job under its own copy of the public key
//! (a key object per job, as `batch-speed`'s distinct-key cells have it).
use batchsig::rsa::{RsaScheme, RsaVerifyJob};
use batchsig::{test_keys, Backend, HashAlg};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bits: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2048);
    let batch: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let rounds: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    let backend: Box<dyn Backend> = match args.get(4).map(String::as_str) {
        Some("scalar") => Box::new(batch_scalar::ScalarBackend::with_threads(1).expect("pool")),
        Some("avx2") => Box::new(batch_avx2::Avx2Backend::with_threads(1).expect("pool")),
        _ => Box::new(batch_avx512::Avx512Backend::with_threads(1).expect("pool")),
    };
    let key = test_keys::rsa(bits);
    let msgs: Vec<Vec<u8>> = (0..batch)
        .map(|i| format!("message {i}").into_bytes())
        .collect();
    let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    // Everything (the scheme's own parallel steps too) on one thread, entered once: entering
    // the pool per round adds a hand-off between threads to every round, which at batch 1
    // halved RSA-2048 verify/s (docs/PERF.md).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
    if args.get(5).map(String::as_str) == Some("verify") {
        let sigs: Vec<Vec<u8>> = pool
            .install(|| key.sign_batch(&*backend, scheme, &refs))
            .expect("batch")
            .into_iter()
            .map(|s| s.expect("signature"))
            .collect();
        let digests: Vec<Vec<u8>> = refs.iter().map(|m| HashAlg::Sha256.digest(m)).collect();
        let keys: Vec<_> = (0..batch).map(|_| key.public_key().clone()).collect();
        let jobs: Vec<RsaVerifyJob<'_>> = (0..batch)
            .map(|i| RsaVerifyJob {
                key: &keys[i],
                digest: &digests[i],
                signature: &sigs[i],
            })
            .collect();
        let t = std::time::Instant::now();
        let ok: usize = pool.install(|| {
            (0..rounds)
                .map(|_| {
                    let r = batchsig::rsa::verify_batch(&*backend, scheme, &jobs).expect("batch");
                    r.iter().filter(|r| r.is_ok()).count()
                })
                .sum()
        });
        println!(
            "RSA-{bits} on {}: {ok} verifications (a key object each), {:.0}/s",
            backend.name(),
            ok as f64 / t.elapsed().as_secs_f64()
        );
        return;
    }
    let t = std::time::Instant::now();
    let ok: usize = pool.install(|| {
        (0..rounds)
            .map(|_| {
                let sigs = key.sign_batch(&*backend, scheme, &refs).expect("batch");
                sigs.iter().filter(|r| r.is_ok()).count()
            })
            .sum()
    });
    println!(
        "RSA-{bits} on {}: {ok} signatures, {:.0}/s",
        backend.name(),
        ok as f64 / t.elapsed().as_secs_f64()
    );
}
