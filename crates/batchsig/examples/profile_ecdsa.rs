//! A fixed ECDSA signing workload for profilers (`perf record`, `valgrind --tool=callgrind`):
//! `cargo run --release -p batchsig --example profile_ecdsa -- [curve bits] [batch] [rounds]`
use batchsig::{test_keys, Curve};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let curve = match args.get(1).map(String::as_str) {
        Some("384") => Curve::P384,
        Some("521") => Curve::P521,
        _ => Curve::P256,
    };
    let batch: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let rounds: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let backend = batch_scalar::ScalarBackend::with_threads(1).expect("pool");
    let key = test_keys::ecdsa(curve);
    let msgs: Vec<Vec<u8>> = (0..batch)
        .map(|i| format!("message {i}").into_bytes())
        .collect();
    let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    let mut ok = 0;
    for _ in 0..rounds {
        ok += key
            .sign_batch(&backend, &refs)
            .expect("batch")
            .iter()
            .filter(|r| r.is_ok())
            .count();
    }
    println!("{curve}: {ok} signatures");
}
