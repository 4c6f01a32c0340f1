//! `batch-fuzz`: seeded mutation fuzzing of batchsig's parsers (see the library docs).
//!
//! ```text
//! cargo run --release -p batch-fuzz -- --seconds 60            # every target, a minute each
//! cargo run --release -p batch-fuzz -- --target tls_wire --seed 7 --execs 1000000
//! cargo run --release -p batch-fuzz -- --write-corpus          # regenerate fuzz/corpus/
//! ```
//!
//! A panic is a finding: the input is written to `fuzz/crashes/<target>-<seed>.bin` and the exit
//! status is 1.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use batch_fuzz::{load_corpus, run, seeds, TARGETS};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let arg = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus_dir = arg("--corpus").map_or(dir.join("corpus"), PathBuf::from);
    let only = arg("--target");
    let seed: u64 = arg("--seed").map_or(1, |s| s.parse().expect("--seed N"));
    let seconds: f64 = arg("--seconds").map_or(10.0, |s| s.parse().expect("--seconds S"));
    let execs: u64 = arg("--execs").map_or(u64::MAX, |s| s.parse().expect("--execs N"));
    // panics are findings, reported once below; the default hook would print each as well
    std::panic::set_hook(Box::new(|_| {}));
    let mut failed = false;
    for t in TARGETS
        .iter()
        .filter(|t| only.as_deref().is_none_or(|o| o == t.name))
    {
        if args.iter().any(|a| a == "--write-corpus") {
            let d = corpus_dir.join(t.name);
            std::fs::create_dir_all(&d).expect("corpus directory");
            for (i, s) in seeds(t.name).iter().enumerate() {
                std::fs::write(d.join(format!("seed-{i:02}")), s).expect("corpus file");
            }
            println!(
                "{}: wrote {} seeds to {}",
                t.name,
                seeds(t.name).len(),
                d.display()
            );
            continue;
        }
        let corpus = load_corpus(&corpus_dir, t.name).expect("corpus (run --write-corpus)");
        let start = Instant::now();
        let r = run(t, &corpus, seed, execs, Duration::from_secs_f64(seconds));
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{}: {} execs in {secs:.1} s ({:.0}/s), {} accepted, seed {seed}: {}",
            r.target,
            r.execs,
            r.execs as f64 / secs,
            r.accepted,
            if r.crash.is_some() {
                "CRASH"
            } else {
                "no crash"
            }
        );
        if let Some((input, msg)) = r.crash {
            let out = dir.join("crashes");
            std::fs::create_dir_all(&out).expect("crashes directory");
            let path = out.join(format!("{}-{seed}.bin", r.target));
            std::fs::write(&path, &input).expect("crash file");
            println!("  panic: {msg}\n  input: {}", path.display());
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
