//! Times RSA key generation: `cargo run --release -p batchsig --example keygen [BITS] [KEYS]`
//! (defaults 2048 and 16). Keys come from fixed seeds (key `i` from seed `i`), so two builds
//! generate the same primes and their times compare the same work.
use batchsig::rsa::RsaPrivateKey;
use rand::SeedableRng;

fn main() {
    let mut args = std::env::args().skip(1);
    let bits: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2048);
    let keys: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(16);
    let start = std::time::Instant::now();
    for seed in 0..keys {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let key = RsaPrivateKey::generate(&mut rng, bits).expect("generates");
        std::hint::black_box(&key);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "RSA-{bits}: {keys} keys in {secs:.2} s, {:.1} ms per key",
        1e3 * secs / keys as f64
    );
}
