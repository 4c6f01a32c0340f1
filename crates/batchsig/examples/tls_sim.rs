//! Simulates N concurrent TLS 1.3 full handshakes per certificate type and prints server and
//! client handshakes per second, the per-step cost, and which certificate is cheaper for
//! each side at each security level.
//!
//! `cargo run --release -p batchsig --example tls_sim [N] [backend] [chain depth] [kex group]`
//! (defaults: 256, the default backend, 2, secp256r1).
use batchsig::tls::{
    compare_security_levels, format_comparison, format_table, simulate, KexGroup, Suite,
    TlsSimConfig,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(256);
    let backend = match args.next() {
        Some(name) => batchsig::backend::by_name(&name)
            .unwrap_or_else(|| panic!("no backend called {name:?}")),
        None => batchsig::backend::default_backend(),
    };
    let depth: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2);
    let kex = match args.next() {
        Some(g) => KexGroup::from_name(&g).unwrap_or_else(|| panic!("unknown group {g:?}")),
        None => KexGroup::P256,
    };
    println!("backend: {} ({})", backend.name(), backend.description());
    println!(
        "{n} handshakes per suite, ECDHE {kex}, chain depth {depth}, 1 handshake corrupted on purpose per suite\n"
    );
    let mut reports = Vec::new();
    for &suite in Suite::all() {
        let mut config = TlsSimConfig::new(suite, n);
        config.kex = kex;
        config.chain_depth = depth;
        config.corrupt = 1;
        let report = simulate(&*backend, &config).expect("simulation");
        assert_eq!(
            report.failed, report.corrupted,
            "only the corrupted handshake may fail: {:?}",
            report.failures
        );
        reports.push(report);
    }
    print!("{}", format_table(&reports));
    println!();
    print!("{}", format_comparison(&compare_security_levels(&reports)));
}
