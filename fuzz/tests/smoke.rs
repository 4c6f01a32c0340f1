//! The fuzz smoke run of the test suite: every target from its committed corpus, a fixed seed
//! and a bounded number of mutants (a few seconds in all). Longer runs: `batch-fuzz --seconds N`
//! (docs/SECURITY.md).

use std::path::Path;
use std::time::Duration;

use batch_fuzz::{load_corpus, run, seeds, TARGETS};

#[test]
fn every_target_survives_its_mutants() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for t in &TARGETS {
        let corpus = load_corpus(&dir, t.name).expect("committed corpus");
        assert!(!corpus.is_empty(), "{}: empty corpus", t.name);
        // the corpus parses: the mutants start from valid encodings
        assert!(
            corpus.iter().any(|c| (t.run)(c)),
            "{}: no corpus entry parses",
            t.name
        );
        let r = run(t, &corpus, 2026, 1500, Duration::from_secs(20));
        eprintln!("{}: {} execs, {} accepted", t.name, r.execs, r.accepted);
        assert!(r.crash.is_none(), "{}: panic {:?}", t.name, r.crash);
        assert!(r.execs >= 100, "{}: only {} inputs ran", t.name, r.execs);
    }
}

/// The committed corpus is what the seeds make (regenerate with `batch-fuzz --write-corpus`).
#[test]
fn committed_corpus_holds_the_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for t in &TARGETS {
        let corpus = load_corpus(&dir, t.name).expect("committed corpus");
        let s = seeds(t.name);
        // ECDSA signatures are hedged, so those seeds differ run to run: compare counts there
        if t.name == "ecdsa_signature" {
            assert_eq!(corpus.len(), s.len(), "{}", t.name);
        } else {
            assert_eq!(corpus, s, "{}: regenerate with --write-corpus", t.name);
        }
    }
}

/// The runner reports a panicking parser with the input that made it panic.
#[test]
fn a_panic_is_reported() {
    let t = batch_fuzz::Target {
        name: "panics_on_0x80",
        run: |b| {
            assert!(!b.contains(&0x80), "planted bug");
            false
        },
    };
    let r = run(&t, &[b"abc".to_vec()], 1, 100_000, Duration::from_secs(20));
    let (input, msg) = r.crash.expect("the planted panic is found");
    assert!(
        input.contains(&0x80) && msg.contains("planted bug"),
        "{msg}"
    );
}
