//! A fixed ECDSA workload for profilers (`perf record`, `valgrind --tool=callgrind`):
//! `cargo run --release -p batchsig --example profile_ecdsa -- [curve bits] [batch] [rounds]
//! [backend] [op]` — backend a registry name (default `scalar`), op `sign` (default, one key)
//! or `verify` (a key per job, as `batch-speed`'s verify column).
use batchsig::ecdsa::{verify_batch, EcdsaPrivateKey, EcdsaVerifyJob, NonceMode};
use batchsig::{backend, test_keys, Curve};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let curve = match args.get(1).map(String::as_str) {
        Some("384") => Curve::P384,
        Some("521") => Curve::P521,
        _ => Curve::P256,
    };
    let batch: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let rounds: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let name = args.get(4).map(String::as_str).unwrap_or("scalar");
    let op = args.get(5).map(String::as_str).unwrap_or("sign");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    pool.install(|| {
        let be = backend::by_name(name).expect("no such backend");
        let be: &dyn batchsig::Backend = &*be;
        let msgs: Vec<Vec<u8>> = (0..batch)
            .map(|i| format!("message {i}").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
        let mut ok = 0;
        match op {
            "verify" => {
                let mut rng = rand::rng();
                let keys: Vec<EcdsaPrivateKey> = (0..batch)
                    .map(|_| EcdsaPrivateKey::generate(curve, &mut rng).expect("key"))
                    .collect();
                let hash = batchsig::ecdsa::curve_hash(curve);
                let digests: Vec<Vec<u8>> = refs.iter().map(|m| hash.digest(m)).collect();
                let sigs: Vec<_> = keys
                    .iter()
                    .zip(&digests)
                    .map(|(k, d)| {
                        k.sign_digests_batch(be, hash, &[d], NonceMode::Hedged)
                            .expect("batch")
                            .remove(0)
                            .expect("sign")
                    })
                    .collect();
                let jobs: Vec<EcdsaVerifyJob<'_>> = (0..batch)
                    .map(|i| EcdsaVerifyJob {
                        key: keys[i].public_key(),
                        digest: &digests[i],
                        signature: &sigs[i],
                    })
                    .collect();
                for _ in 0..rounds {
                    ok += verify_batch(be, hash, &jobs)
                        .expect("batch")
                        .iter()
                        .filter(|r| r.is_ok())
                        .count();
                }
                println!("{curve}: {ok} verifications on {name}");
            }
            "sign" => {
                let key = test_keys::ecdsa(curve);
                for _ in 0..rounds {
                    ok += key
                        .sign_batch(be, &refs)
                        .expect("batch")
                        .iter()
                        .filter(|r| r.is_ok())
                        .count();
                }
                println!("{curve}: {ok} signatures on {name}");
            }
            other => {
                eprintln!("profile_ecdsa: unknown op `{other}` (sign or verify)");
                std::process::exit(2);
            }
        }
    });
}
