//! Small-batch rates on one thread, for profilers and quick before/after checks of per-batch
//! setup: `cargo run --release -p batchsig --no-default-features --features test-keys
//! --example small_batch -- [backend] [sizes] [seconds] [ops]`
//! (backend: a registry name, default `auto`; sizes: comma-separated, default `1,2,4,16,64,1024`;
//! ops: comma-separated from `rsa2048-sign,rsa2048-verify,p256-sign,p256-verify`; a negative
//! `seconds` runs that many batches exactly, after one warm-up batch, for callgrind).
//! The figure that counts is `batch-speed --threads 1 --sweep`; this one needs no wgpu build.
use std::time::Instant;

use batchsig::ecdsa::EcdsaSignature;
use batchsig::rsa::RsaScheme;
use batchsig::{backend, test_keys, Backend, Curve, HashAlg};

fn rate(secs: f64, batch: usize, mut f: impl FnMut()) -> f64 {
    f(); // warm-up (tables, lazily built state)
    let t = Instant::now();
    let mut n = 0usize;
    // A negative `secs` asks for that many batches exactly (for callgrind).
    while n == 0
        || (secs >= 0.0 && t.elapsed().as_secs_f64() < secs)
        || (n as f64) < -secs * batch as f64
    {
        f();
        n += batch;
    }
    n as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map(String::as_str).unwrap_or("auto");
    let sizes: Vec<usize> = args
        .get(2)
        .map(|s| s.split(',').map(|x| x.parse().expect("size")).collect())
        .unwrap_or_else(|| vec![1, 2, 4, 16, 64, 1024]);
    let secs: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.5);
    let ops: Vec<String> = args
        .get(4)
        .map(|s| s.split(',').map(str::to_owned).collect())
        .unwrap_or_else(|| {
            ["rsa2048-sign", "rsa2048-verify", "p256-sign", "p256-verify"]
                .map(str::to_owned)
                .to_vec()
        });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    pool.install(|| {
        let be = backend::by_name(name).expect("no such backend");
        let be: &dyn Backend = &*be;
        let rsa = test_keys::rsa(2048);
        let ec = test_keys::ecdsa(Curve::P256);
        let scheme = RsaScheme::pkcs1v15(HashAlg::Sha256);
        print!("{:<16}", format!("{name}, 1 thread"));
        for s in &sizes {
            print!("{s:>10}");
        }
        println!();
        for op in &ops {
            print!("{op:<16}");
            for &size in &sizes {
                let msgs: Vec<Vec<u8>> = (0..size).map(|i| format!("m{i}").into_bytes()).collect();
                let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
                let r = match op.as_str() {
                    "rsa2048-sign" => rate(secs, size, || {
                        let s = rsa.sign_batch(be, scheme, &refs).expect("batch");
                        assert!(s.iter().all(Result::is_ok));
                    }),
                    "rsa2048-verify" => {
                        let sigs: Vec<Vec<u8>> = rsa
                            .sign_batch(be, scheme, &refs)
                            .expect("batch")
                            .into_iter()
                            .map(Result::unwrap)
                            .collect();
                        let srefs: Vec<&[u8]> = sigs.iter().map(Vec::as_slice).collect();
                        rate(secs, size, || {
                            let v = rsa
                                .public_key()
                                .verify_batch(be, scheme, &refs, &srefs)
                                .expect("batch");
                            assert!(v.iter().all(Result::is_ok));
                        })
                    }
                    "p256-sign" => rate(secs, size, || {
                        let s = ec.sign_batch(be, &refs).expect("batch");
                        assert!(s.iter().all(Result::is_ok));
                    }),
                    "p256-verify" => {
                        let sigs: Vec<EcdsaSignature> = ec
                            .sign_batch(be, &refs)
                            .expect("batch")
                            .into_iter()
                            .map(Result::unwrap)
                            .collect();
                        rate(secs, size, || {
                            let v = ec
                                .public_key()
                                .verify_batch(be, &refs, &sigs)
                                .expect("batch");
                            assert!(v.iter().all(Result::is_ok));
                        })
                    }
                    other => panic!("unknown op {other}"),
                };
                print!("{r:>10.0}");
            }
            println!();
        }
    });
}
