//! Simulates N TLS 1.3 full handshakes per certificate type and prints server and client
//! handshakes per second, the per-step cost, and the comparison across security levels.
//!
//! `cargo run --release -p batch-tls --example tls_sim [N] [backend] [kex group]`
//! (defaults: 256, the default backend, secp256r1) runs the common certificate types with
//! the fixed test keys as server keys, each under freshly generated issuers;
//! `... --example tls_sim N backend kex chain.pem key.pem root.pem` runs your own chain (leaf
//! first), key and trust anchor instead.
use batch_tls::{
    compare, format_comparison, format_table, measure, KexGroup, ServerIdentity, ServerKey, Suite,
    TlsSimConfig,
};

/// Timed runs per certificate (after one warm-up run).
const RUNS: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(256);
    let backend = match args.get(1) {
        Some(name) => {
            batchsig::backend::by_name(name).unwrap_or_else(|| panic!("no backend called {name:?}"))
        }
        None => batchsig::backend::default_backend(),
    };
    let kex = match args.get(2) {
        Some(g) => KexGroup::from_name(g).unwrap_or_else(|| panic!("unknown group {g:?}")),
        None => KexGroup::P256,
    };
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let identities: Vec<ServerIdentity> = match &args[3.min(args.len())..] {
        [chain, key, root] => {
            let read = |p: &String| std::fs::read(p).unwrap_or_else(|e| panic!("{p}: {e}"));
            vec![
                ServerIdentity::from_pem(&read(chain), &read(key), &read(root))
                    .unwrap_or_else(|e| panic!("loading {chain}, {key}, {root}: {e}")),
            ]
        }
        [] => Suite::all()
            .iter()
            .map(|&suite| {
                let key = match suite {
                    Suite::RsaPss(bits) => ServerKey::Rsa(batchsig::test_keys::rsa(bits)),
                    Suite::Ecdsa(curve) => ServerKey::Ecdsa(batchsig::test_keys::ecdsa(curve)),
                };
                ServerIdentity::generate(&*backend, key, &mut rng).expect("issuing the chain")
            })
            .collect(),
        _ => panic!("give all three of chain.pem key.pem root.pem, or none"),
    };
    println!("backend: {} ({})", backend.name(), backend.description());
    println!(
        "{n} handshakes per certificate, ECDHE {kex}, {RUNS} runs after a warm-up, 1 handshake corrupted on purpose per run\n"
    );
    let mut reports = Vec::new();
    for identity in &identities {
        let mut config = TlsSimConfig::new(n);
        config.kex = kex;
        config.corrupt = 1;
        let summary = measure(&*backend, identity, &config, RUNS).expect("simulation");
        assert_eq!(
            summary.failed, RUNS,
            "only the corrupted handshakes may fail"
        );
        reports.push(summary);
    }
    print!("{}", format_table(&reports));
    println!();
    print!("{}", format_comparison(&compare(&reports)));
}
