//! `batch-speed`: sign/s and verify/s of every backend, `openssl speed` measured beside it in
//! the same run, and the comparison at equal security levels. `verify` is measured under
//! distinct keys (made before timing; `keys.rs` says how many), `verify-one-key` under one.
//! See the README for the output and the `--json` fields.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use batch_bench::alg::Alg;
use batch_bench::keys::{self, KeyInfo, KeyPool};
use batch_bench::measure::{self, AlgCells, CellResult, Op, Workload};
use batch_bench::peers::{self, Peer};
use batch_bench::report::{self, BackendInfo, Config, Record, Report, SweepRecord};
use batch_bench::stats::{self, Runs};
use batch_bench::{budget, crossover, machine, openssl, plot, SWEEP_SIZES};
use batch_core::{Availability, Backend};
use batch_tls::{
    self as tls, KexGroup, RunSummary, ServerIdentity, ServerKey, Suite, TlsSimConfig,
};
use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OpensslMode {
    /// Run `openssl speed` when the `openssl` command is there.
    Auto,
    Off,
}

/// Batch RSA/ECDSA throughput per backend, beside `openssl speed`, at equal security levels.
#[derive(Debug, Parser)]
#[command(name = "batch-speed", version)]
struct Args {
    /// Backends to measure: comma-separated names (scalar, avx2, wgpu, …) or `all`.
    #[arg(long, default_value = "all")]
    backends: String,
    /// Algorithms: rsa2048, rsa3072, rsa4096, rsa7680, rsa15360, ecdsap224, ecdsap256,
    /// ecdsap384, ecdsap521, `common` (rsa2048–4096 and P-256/384/521) or `all` (every one:
    /// what the equal-security comparison needs).
    #[arg(long, default_value = "all")]
    algs: String,
    /// Jobs per batch.
    #[arg(long, default_value_t = 4096)]
    batch: usize,
    /// Seconds per cell (and per `openssl speed` run). Default: the longest, from 0.5 to 3,
    /// that fits the whole run into about 3 minutes (the expected duration is printed first).
    #[arg(long)]
    seconds: Option<f64>,
    /// Worker threads (default: every logical core); OpenSSL runs with `-multi` of this.
    #[arg(long)]
    threads: Option<usize>,
    /// Measure OpenSSL in the same run.
    #[arg(long, value_enum, default_value = "auto")]
    openssl: OpensslMode,
    /// Other libraries measured beside our backends, one signature per call over the same
    /// messages and keys: ring, aws-lc-rs (those two need `--features peers`), rustcrypto,
    /// `all` or `none`.
    #[arg(long, default_value = "none")]
    peers: String,
    /// Runs of every cell, interleaved with OpenSSL's runs: the table shows medians (`~` where
    /// the runs spread by more than 15 %), the JSON every run.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Write the results as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw an SVG chart here (ops/s per library per algorithm and the equal-security view;
    /// with --sweep, ops/s by batch size).
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Also measure throughput over batch sizes (see --sweep-sizes).
    #[arg(long)]
    sweep: bool,
    /// Batch sizes of --sweep.
    #[arg(long, value_delimiter = ',', default_values_t = SWEEP_SIZES)]
    sweep_sizes: Vec<usize>,
    /// Also simulate TLS 1.3 full handshakes: handshakes/s per suite, side and backend.
    #[arg(long)]
    tls: bool,
    /// Certificate types for --tls: rsa2048, rsa3072, rsa4096, rsa7680, rsa15360 (any RSA
    /// size from 2048), p256, p384, p521 (or the TLS scheme names), `common` (the default) or
    /// `all`. Server keys are the fixed test keys, each under generated default issuers.
    #[arg(long, default_value = "common")]
    tls_suites: String,
    /// Handshakes per --tls run (each server step is one batch of this many jobs); several
    /// (`64,1024`) give the latency-vs-throughput sweep.
    #[arg(long, value_delimiter = ',', default_values_t = [1024])]
    tls_handshakes: Vec<usize>,
    /// Timed --tls runs per cell, after one warm-up run: the table shows medians and ranges.
    #[arg(long, default_value_t = 3)]
    tls_runs: usize,
    /// Your own identity for --tls instead of --tls-suites: the chain the server sends (PEM,
    /// leaf first), with --tls-key and --tls-root.
    #[arg(long, requires_all = ["tls_key", "tls_root"])]
    tls_chain: Option<PathBuf>,
    /// The server's private key (PEM or DER) for --tls-chain.
    #[arg(long, requires = "tls_chain")]
    tls_key: Option<PathBuf>,
    /// The root certificate the clients trust (PEM) for --tls-chain.
    #[arg(long, requires = "tls_chain")]
    tls_root: Option<PathBuf>,
    /// ECDHE group for --tls: p256, p384 or p521.
    #[arg(long, default_value = "p256")]
    tls_kex: String,
    /// Instead of measuring: the soak and concurrency test, this many seconds per backend,
    /// `--threads` threads (default: four per core) sharing each backend; every result checked.
    #[arg(long, value_name = "SECONDS")]
    soak: Option<f64>,
    /// Where the generated RSA keys of the distinct-key verify cells are cached (default:
    /// `batch-speed-keys/` beside this executable).
    #[arg(long)]
    key_cache: Option<PathBuf>,
}

fn parse_suites(spec: &str) -> Result<Vec<Suite>, String> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "common" => out.extend(Suite::COMMON),
            "all" => out.extend(Suite::ALL),
            p => out.push(Suite::from_name(p).ok_or_else(|| format!("unknown TLS suite {p:?}"))?),
        }
    }
    if out.is_empty() {
        return Err("no TLS suite given".into());
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn select_backends(spec: &str, all: &[Arc<dyn Backend>]) -> Result<Vec<Arc<dyn Backend>>, String> {
    if spec.trim() == "all" {
        return Ok(all.to_vec());
    }
    let known: Vec<&str> = all.iter().map(|b| b.name()).collect();
    let mut out: Vec<Arc<dyn Backend>> = Vec::new();
    for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match all.iter().find(|b| b.name() == name) {
            Some(b) if !out.iter().any(|o| o.name() == name) => out.push(b.clone()),
            Some(_) => {}
            None => {
                return Err(format!(
                    "unknown backend {name:?}; this build knows {}",
                    known.join(", ")
                ))
            }
        }
    }
    if out.is_empty() {
        return Err("no backend given".into());
    }
    Ok(out)
}

fn progress(total: u64) -> ProgressBar {
    // indicatif draws nothing when stderr is not a terminal.
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    pb
}

/// Why `b` cannot run `alg` although it is available (a curve it does not implement yet).
fn not_implemented(b: &dyn Backend, alg: Alg) -> Option<String> {
    match alg {
        Alg::Ecdsa(c) if !b.curves().contains(&c) => {
            Some(format!("{} does not implement {c} yet", b.name()))
        }
        _ => None,
    }
}

/// One library's cell (backend or peer, algorithm, operation) over the `--repeat` runs.
struct CellRuns {
    name: String,
    kind: &'static str,
    op: Op,
    keys: Option<KeyInfo>,
    runs: Vec<CellResult>,
    /// The first failed run's error: then the cell has no figure.
    error: Option<String>,
    not_measured: Option<String>,
}

impl CellRuns {
    fn new(name: &str, kind: &'static str, op: Op) -> Self {
        Self {
            name: name.into(),
            kind,
            op,
            keys: None,
            runs: Vec::new(),
            error: None,
            not_measured: None,
        }
    }

    fn add(&mut self, cell: &Result<CellResult, String>, keys: Option<KeyInfo>) {
        match cell {
            Ok(c) => self.runs.push(c.clone()),
            Err(e) => {
                self.error.get_or_insert_with(|| e.clone());
            }
        }
        if keys.is_some() {
            self.keys = keys;
        }
    }

    /// The record: the median of the runs, and (given OpenSSL's runs, one per run) the
    /// median of the per-run ratios.
    fn finish(
        self,
        alg: Alg,
        threads: usize,
        requested: usize,
        openssl_runs: Option<&[f64]>,
    ) -> Record {
        let measured = self.error.is_none() && self.not_measured.is_none() && !self.runs.is_empty();
        let runs = if measured {
            Runs::new(self.runs.iter().map(CellResult::ops_per_sec).collect())
        } else {
            Runs::default()
        };
        // The smallest over the runs (a probe may cap one run and not the next).
        let batch = self.runs.iter().map(|c| c.batch).min().unwrap_or(requested);
        let openssl_runs: Vec<f64> = openssl_runs.map(<[f64]>::to_vec).unwrap_or_default();
        Record {
            backend: self.name,
            kind: self.kind,
            algorithm: alg.name(),
            operation: self.op.name(),
            batch,
            batch_capped: batch < requested,
            keys: self.keys,
            threads,
            ops_per_sec: runs.median,
            ops: self.runs.iter().map(|c| c.ops).sum(),
            seconds: self.runs.iter().map(|c| c.seconds).sum(),
            openssl_ops_per_sec: stats::median(&openssl_runs),
            ratio_to_openssl: stats::ratio_median(&runs.runs, &openssl_runs),
            openssl_runs,
            runs,
            security_bits: alg.security_bits(),
            error: self.error,
            not_measured: self.not_measured,
            alg,
            op: self.op,
        }
    }
}

/// The cell of `name`/`op` in `acc`, made on first use.
fn cell_runs<'a>(
    acc: &'a mut Vec<CellRuns>,
    name: &str,
    kind: &'static str,
    op: Op,
) -> &'a mut CellRuns {
    match acc.iter().position(|c| c.name == name && c.op == op) {
        Some(i) => &mut acc[i],
        None => {
            acc.push(CellRuns::new(name, kind, op));
            acc.last_mut().expect("just pushed")
        }
    }
}

/// Adds one run of the `op` cell of `cells` to `acc`: the verify cell's keys are the pool's
/// distinct keys.
fn add_cell(
    acc: &mut Vec<CellRuns>,
    (name, kind): (&str, &'static str),
    op: Op,
    cells: &AlgCells,
    key_pool: &Result<KeyPool, String>,
    requested: usize,
) {
    let cell = cells.get(op);
    let keys = match op {
        Op::Verify => key_pool
            .as_ref()
            .ok()
            .map(|p| p.info(cell.as_ref().map_or(requested, |c| c.batch))),
        Op::Sign | Op::VerifyOneKey => Some(KeyInfo::one_fixed()),
    };
    cell_runs(acc, name, kind, op).add(cell, keys);
}

/// The distinct verify keys of `alg` for batches of up to `jobs`, made before any timing on
/// `reference` (inside `pool`), with their progress in `pb`'s message. A failure is printed
/// and fails only the distinct-key cells.
fn make_pool(
    alg: Alg,
    reference: &dyn Backend,
    jobs: usize,
    cache: Option<&std::path::Path>,
    pb: &ProgressBar,
    pool: &rayon::ThreadPool,
) -> Result<KeyPool, String> {
    let total = keys::pool_work(alg, jobs);
    let done = std::sync::atomic::AtomicU64::new(0);
    pb.set_message(format!("{alg}: distinct verify keys 0/{total}"));
    let made = pool.install(|| {
        KeyPool::new(alg, reference, jobs, cache, &|n| {
            let d = done.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n;
            pb.set_message(format!("{alg}: distinct verify keys {d}/{total}"));
        })
    });
    if let Err(e) = &made {
        pb.println(format!("{alg}: no distinct verify keys: {e}"));
    }
    made
}

fn run(args: Args) -> Result<bool, String> {
    let algs = Alg::parse_list(&args.algs)?;
    let all_backends = batchsig::backend::all_backends();
    let backends = select_backends(&args.backends, &all_backends)?;
    if let Some(secs) = args.soak {
        return run_soak(&backends, secs, args.threads);
    }
    // `all` leaves out backends that only emulate their hardware here (wgpu on llvmpipe):
    // their figures would say nothing about a GPU. Naming one measures it.
    let skip_emulated = args.backends.trim() == "all";
    if args.batch == 0 {
        return Err("--batch must be at least 1".into());
    }
    if args.seconds.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
        return Err("--seconds must be a positive number".into());
    }
    if args.repeat == 0 {
        return Err("--repeat must be at least 1".into());
    }
    let peer_list = Peer::parse_list(&args.peers)?;
    let tls_plan = if args.tls {
        let kex = KexGroup::from_name(&args.tls_kex)
            .ok_or_else(|| format!("unknown key-exchange group {:?}", args.tls_kex))?;
        if args.tls_handshakes.contains(&0) || args.tls_handshakes.is_empty() {
            return Err("--tls-handshakes must be at least 1".into());
        }
        if args.tls_runs == 0 {
            return Err("--tls-runs must be at least 1".into());
        }
        Some((parse_suites(&args.tls_suites)?, kex))
    } else {
        None
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("thread pool: {e}"))?;
    let reference = batch_scalar::ScalarBackend::new();

    // Described inside the pool, so thread counts in descriptions are the ones measured.
    let infos: Vec<BackendInfo> = pool.install(|| backends
        .iter()
        .map(|b| match b.availability() {
            Availability::Available if skip_emulated && b.is_emulated() => BackendInfo::backend(
                b.name(),
                false,
                format!("not measured: {}; a software adapter (name it in --backends to measure it)", b.description()),
            ),
            Availability::Available => BackendInfo::backend(b.name(), true, b.description()),
            Availability::Unavailable(why) => BackendInfo::backend(b.name(), false, why),
        })
        .collect());
    let peer_infos: Vec<BackendInfo> = peer_list
        .iter()
        .map(|p| BackendInfo {
            name: p.name().into(),
            kind: "peer",
            available: p.built(),
            description: p.description(),
            verify_keys: p.built().then(|| p.verify_keys().to_string()),
        })
        .collect();
    let live_peers: Vec<Peer> = peer_list.iter().copied().filter(|p| p.built()).collect();
    let use_openssl = args.openssl == OpensslMode::Auto && openssl::version().is_ok();
    let live: Vec<&Arc<dyn Backend>> = backends
        .iter()
        .filter(|b| infos.iter().any(|i| i.available && i.name == b.name()))
        .collect();
    // Every cell of the main table, for the expected duration and the default --seconds.
    let libraries = live.len() + live_peers.len();
    let run_plan = budget::Plan {
        algorithms: algs.len(),
        cells: libraries * Op::ALL.len() * algs.len() * args.repeat,
        openssl_runs: if use_openssl {
            algs.len() * args.repeat
        } else {
            0
        },
        slow_cells: libraries
            * args.repeat
            * algs.iter().filter(|a| **a == Alg::Rsa(15360)).count(),
    };
    let secs = args
        .seconds
        .unwrap_or_else(|| run_plan.fit_seconds(budget::DEFAULT_BUDGET_S));
    let mut rep = Report {
        tool: "batch-speed",
        version: env!("CARGO_PKG_VERSION"),
        unix_time: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        machine: machine::describe(&all_backends),
        config: Config {
            batch: args.batch,
            seconds: secs,
            threads,
            algorithms: algs.iter().map(|a| a.name()).collect(),
            openssl: use_openssl,
            repeat: args.repeat,
            peers: peer_list.iter().map(|p| p.name().to_string()).collect(),
        },
        backends: infos.clone(),
        peers: peer_infos.clone(),
        results: Vec::new(),
        sweep: Vec::new(),
        crossovers: Vec::new(),
        tls: Vec::new(),
    };
    print!("{}", report::header(&rep));
    println!(
        "expected: about {} for the tables ({} cells × {secs} s{}{}){}",
        budget::pretty(run_plan.estimate(secs)),
        run_plan.cells,
        if run_plan.openssl_runs > 0 {
            format!(", {} openssl speed runs", run_plan.openssl_runs)
        } else {
            String::new()
        },
        if args.seconds.is_none() {
            format!(
                "; --seconds chosen to fit about {}",
                budget::pretty(budget::DEFAULT_BUDGET_S)
            )
        } else {
            String::new()
        },
        if args.sweep || args.tls {
            ", --sweep/--tls on top"
        } else {
            ""
        },
    );

    // Distinct verify keys cover the largest batch of the run.
    let pool_jobs = if args.sweep {
        args.sweep_sizes
            .iter()
            .copied()
            .fold(args.batch, usize::max)
    } else {
        args.batch
    };
    let key_cache = args.key_cache.clone().or_else(keys::default_cache_dir);
    let mut pools: Vec<(Alg, Result<KeyPool, String>)> = Vec::new();
    let cells = (((live.len() + live_peers.len()) * Op::ALL.len() + usize::from(use_openssl))
        * algs.len()
        * args.repeat) as u64;
    let pb = progress(cells);
    for &alg in &algs {
        let work = Workload::new(alg);
        let wants_pool = live
            .iter()
            .any(|b| not_implemented(b.as_ref(), alg).is_none())
            || live_peers
                .iter()
                .any(|p| p.lacks(alg, Op::Verify).is_none());
        let key_pool = if wants_pool {
            make_pool(alg, &reference, pool_jobs, key_cache.as_deref(), &pb, &pool)
        } else {
            Err("no backend here measures it".to_string())
        };
        let mut acc: Vec<CellRuns> = Vec::new();
        // OpenSSL's sign/s and verify/s, one per run; `None` once a run of it failed.
        let mut ossl: Option<(Vec<f64>, Vec<f64>)> = use_openssl.then(Default::default);
        for run in 0..args.repeat {
            let tag = if args.repeat > 1 {
                format!(" (run {}/{})", run + 1, args.repeat)
            } else {
                String::new()
            };
            for b in &live {
                if let Some(why) = not_implemented(b.as_ref(), alg) {
                    for op in Op::ALL {
                        cell_runs(&mut acc, b.name(), "backend", op).not_measured =
                            Some(why.clone());
                        pb.inc(1);
                    }
                    continue;
                }
                pb.set_message(format!("{} {}{tag}", b.name(), alg.name()));
                let cells = pool.install(|| {
                    measure::run_alg(
                        b.as_ref(),
                        &reference,
                        &work,
                        key_pool.as_ref().map_err(String::as_str),
                        args.batch,
                        secs,
                        threads,
                        |_| pb.inc(1),
                    )
                });
                for op in Op::ALL {
                    add_cell(
                        &mut acc,
                        (b.name(), "backend"),
                        op,
                        &cells,
                        &key_pool,
                        args.batch,
                    );
                }
            }
            for &p in &live_peers {
                pb.set_message(format!("{} {}{tag}", p.name(), alg.name()));
                let cells = pool.install(|| {
                    peers::run_alg(
                        p,
                        &reference,
                        &work,
                        key_pool.as_ref().map_err(String::as_str),
                        args.batch,
                        secs,
                        threads,
                        |_| pb.inc(1),
                    )
                });
                for op in Op::ALL {
                    match p.lacks(alg, op) {
                        Some(why) => {
                            cell_runs(&mut acc, p.name(), "peer", op).not_measured = Some(why)
                        }
                        None => add_cell(
                            &mut acc,
                            (p.name(), "peer"),
                            op,
                            &cells,
                            &key_pool,
                            args.batch,
                        ),
                    }
                }
            }
            if let Some((sign, verify)) = &mut ossl {
                // Right after this run's cells for this algorithm, so both see the same load.
                pb.set_message(format!("openssl {}{tag}", alg.name()));
                match openssl::speed(alg, secs, threads) {
                    Ok(f) => {
                        sign.push(f.sign_per_sec);
                        verify.push(f.verify_per_sec);
                    }
                    Err(e) => {
                        pb.println(format!("openssl {}: {e}", alg.name()));
                        ossl = None;
                    }
                }
                pb.inc(1);
            }
        }
        for c in acc {
            // `openssl speed` has one verify figure, for one key.
            let o = ossl.as_ref().map(|(sign, verify)| match c.op {
                Op::Sign => sign.as_slice(),
                Op::Verify | Op::VerifyOneKey => verify.as_slice(),
            });
            rep.results.push(c.finish(alg, threads, args.batch, o));
        }
        pools.push((alg, key_pool));
    }
    pb.finish_and_clear();

    for b in infos.iter().chain(&peer_infos) {
        print!("{}", report::backend_table(&rep, b, &algs));
    }
    if !live_peers.is_empty() {
        let libs: Vec<&BackendInfo> = infos
            .iter()
            .chain(&peer_infos)
            .filter(|b| b.available)
            .collect();
        print!("{}", report::libraries_table(&rep, &libs, &algs));
    }
    println!(
        "\nequal security (NIST SP 800-57 Part 1, Table 2), sign/s and verify/s (distinct keys) ratios:"
    );
    for b in infos.iter().chain(&peer_infos).filter(|b| b.available) {
        println!("{}:", b.name);
        print!("{}", report::equal_security(&rep, Some(&b.name)));
    }
    if use_openssl {
        println!("openssl (same run):");
        print!("{}", report::equal_security(&rep, None));
    }

    if args.sweep {
        let sizes: Vec<usize> = args
            .sweep_sizes
            .iter()
            .copied()
            .filter(|&n| n > 0)
            .collect();
        run_sweep(
            &mut rep, &live, &reference, &algs, &sizes, &pools, secs, &pool,
        );
        print!("{}", report::sweep_table(&rep, &sizes));
        // `auto` is a yardstick only while it keeps to the CPU
        let auto_on_gpu = matches!(batchsig::backend::GpuRoute::measured(), Ok(Some(_)));
        let exclude: &[&str] = if auto_on_gpu { &["auto"] } else { &[] };
        rep.crossovers = crossover::crossovers(&rep.sweep, exclude);
        print!("{}", crossover::table(&rep.crossovers));
        if auto_on_gpu && !rep.crossovers.is_empty() {
            println!("  (auto left out: it sends its large batches to the GPU)");
        }
    }

    let mut tls_failed = false;
    if let Some((suites, kex)) = &tls_plan {
        tls_failed = run_tls(&mut rep, &live, suites, *kex, &args, &pool);
    }

    // A description can change during the run (auto's GPU route says whether it found the GPU
    // usable once a batch reached it): the report keeps the last one, and says so.
    for b in &live {
        let now = pool.install(|| b.description());
        if let Some(info) = rep
            .backends
            .iter_mut()
            .find(|i| i.available && i.name == b.name())
        {
            if info.description != now {
                println!("{} after the run: {now}", b.name());
                info.description = now;
            }
        }
    }

    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&rep).map_err(|e| format!("json: {e}"))?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = &args.plot {
        if args.sweep {
            plot::sweep(&rep, path)?;
        } else {
            plot::bars(&rep, &algs, path)?;
        }
        eprintln!("wrote {}", path.display());
    }
    let failed = tls_failed
        || rep.results.iter().any(|r| r.error.is_some())
        || rep
            .sweep
            .iter()
            .any(|p| p.note.as_deref().is_some_and(|n| n.starts_with("FAILED")));
    Ok(!failed)
}

/// Throughput over batch sizes. A size whose one batch would take more than twice
/// `--seconds` (estimated from the previous size) is skipped and marked. Distinct-key points
/// use the main cells' key pools (`pools`, made for the largest size).
#[allow(clippy::too_many_arguments)]
fn run_sweep(
    rep: &mut Report,
    live: &[&Arc<dyn Backend>],
    reference: &dyn Backend,
    algs: &[Alg],
    sizes: &[usize],
    pools: &[(Alg, Result<KeyPool, String>)],
    secs: f64,
    pool: &rayon::ThreadPool,
) {
    let threads = rep.config.threads;
    let pb = progress((live.len() * algs.len() * sizes.len() * Op::ALL.len()) as u64);
    for &alg in algs {
        let work = Workload::new(alg);
        let sigs = pool.install(|| work.sign(reference, &measure::messages(256)));
        let key_pool: Result<&KeyPool, &str> = pools
            .iter()
            .find(|(a, _)| *a == alg)
            .map_or(Err("not made"), |(_, p)| p.as_ref().map_err(String::as_str));
        for b in live {
            for op in Op::ALL {
                let mut rate: Option<f64> = None;
                for &n in sizes {
                    pb.set_message(format!(
                        "sweep {} {} {} ×{n}",
                        b.name(),
                        alg.name(),
                        op.name()
                    ));
                    let (ops, note) = match (&sigs, rate) {
                        _ if not_implemented(b.as_ref(), alg).is_some() => (
                            None,
                            not_implemented(b.as_ref(), alg).map(|w| format!("n/a: {w}")),
                        ),
                        (Err(e), _) => (None, Some(format!("FAILED: reference sign: {e}"))),
                        (_, Some(r)) if n as f64 / r > 2.0 * secs => (
                            None,
                            Some(format!("skipped: one batch ≈ {:.0} s", n as f64 / r)),
                        ),
                        (Ok(pool_sigs), _) => {
                            match pool.install(|| {
                                measure::sweep_point(
                                    b.as_ref(),
                                    reference,
                                    &work,
                                    op,
                                    n,
                                    secs,
                                    pool_sigs,
                                    key_pool,
                                )
                            }) {
                                Ok(c) => (Some(c.ops_per_sec()), None),
                                Err(e) => (None, Some(format!("FAILED: {e}"))),
                            }
                        }
                    };
                    if ops.is_some() {
                        rate = ops;
                    }
                    rep.sweep.push(SweepRecord {
                        backend: b.name().into(),
                        algorithm: alg.name(),
                        operation: op.name(),
                        batch: n,
                        threads,
                        ops_per_sec: ops,
                        keys: match op {
                            Op::Verify => key_pool.ok().map(|p| p.info(n)),
                            Op::Sign | Op::VerifyOneKey => Some(KeyInfo::one_fixed()),
                        },
                        note,
                        alg,
                        op,
                    });
                    pb.inc(1);
                }
            }
        }
    }
    pb.finish_and_clear();
}

/// The identities of `--tls`: the user's (`--tls-chain`), or each suite's fixed test key under
/// default issuers generated once per issuer type.
fn tls_identities(suites: &[Suite], args: &Args) -> Result<Vec<ServerIdentity>, String> {
    if let (Some(chain), Some(key), Some(root)) = (&args.tls_chain, &args.tls_key, &args.tls_root) {
        let read = |p: &PathBuf| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
        return ServerIdentity::from_pem(&read(chain)?, &read(key)?, &read(root)?)
            .map(|id| vec![id])
            .map_err(|e| format!("--tls-chain: {e}"));
    }
    let ca = batch_scalar::ScalarBackend::new();
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let mut issuers: Vec<(Suite, Vec<ServerKey>)> = Vec::new();
    let mut out = Vec::new();
    for &suite in suites {
        let key = match suite {
            Suite::RsaPss(bits) if batchsig::test_keys::rsa_pem(bits).is_some() => {
                ServerKey::Rsa(batchsig::test_keys::rsa(bits))
            }
            Suite::RsaPss(_) => ServerKey::generate(suite, &mut rng).map_err(|e| e.to_string())?,
            Suite::Ecdsa(curve) => ServerKey::Ecdsa(batchsig::test_keys::ecdsa(curve)),
        };
        let issuer = key.default_issuer_suite();
        if !issuers.iter().any(|i| i.0 == issuer) {
            let keys = (0..2)
                .map(|_| ServerKey::generate(issuer, &mut rng))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            issuers.push((issuer, keys));
        }
        let keys = &issuers
            .iter()
            .find(|i| i.0 == issuer)
            .expect("made above")
            .1;
        let id = ServerIdentity::issue(&ca, key, keys, &Default::default(), &mut rng)
            .map_err(|e| format!("issuing the {} chain: {e}", suite.certificate_type()))?;
        out.push(id);
    }
    Ok(out)
}

/// `--tls`: per backend, identity and batch size, a warm-up run and `--tls-runs` timed
/// runs; prints the handshake table and the comparisons across certificate types, and adds
/// one JSON record per side. Returns whether any run failed.
fn run_tls(
    rep: &mut Report,
    live: &[&Arc<dyn Backend>],
    suites: &[Suite],
    kex: KexGroup,
    args: &Args,
    pool: &rayon::ThreadPool,
) -> bool {
    let identities = match tls_identities(suites, args) {
        Ok(ids) => ids,
        Err(e) => {
            println!("tls: FAILED — {e}");
            return true;
        }
    };
    let cells = live.len() * identities.len() * args.tls_handshakes.len();
    let pb = progress(cells as u64);
    let mut summaries: Vec<RunSummary> = Vec::new();
    let mut failed = false;
    for b in live {
        for id in &identities {
            let suite = id.suite();
            let needs = [Some(kex.curve()), suite.ecdsa_curve()];
            if let Some(c) = needs
                .into_iter()
                .flatten()
                .find(|c| !b.curves().contains(c))
            {
                pb.println(format!(
                    "tls {} {suite}: n/a — {} does not implement {c} yet",
                    b.name(),
                    b.name()
                ));
                pb.inc(args.tls_handshakes.len() as u64);
                continue;
            }
            for &n in &args.tls_handshakes {
                pb.set_message(format!("tls {} {suite} N={n}", b.name()));
                let mut config = TlsSimConfig::new(n);
                config.kex = kex;
                match pool.install(|| tls::measure(b.as_ref(), id, &config, args.tls_runs)) {
                    // Nothing was corrupted on purpose: any failed handshake is a backend fault.
                    Ok(r) if r.failed > 0 => {
                        pb.println(format!(
                            "tls {} {suite}: FAILED — {} handshakes failed their checks",
                            b.name(),
                            r.failed
                        ));
                        failed = true;
                    }
                    Ok(r) => summaries.push(r),
                    Err(e) => {
                        pb.println(format!("tls {} {suite}: FAILED — {e}", b.name()));
                        failed = true;
                    }
                }
                pb.inc(1);
            }
        }
    }
    pb.finish_and_clear();
    println!(
        "\nTLS 1.3 full handshakes ({} ECDHE, {} runs after a warm-up), public-key work only; server: one machine batching N handshakes per step; client: N independent clients:",
        kex.name(),
        args.tls_runs
    );
    print!("{}", tls::format_table(&summaries));
    println!("certificate types compared (same backend and N):");
    print!("{}", tls::format_comparison(&tls::compare(&summaries)));
    let us = |d: std::time::Duration| d.as_secs_f64() * 1e6;
    for r in &summaries {
        for side in [&r.server, &r.client] {
            let c = &side.per_handshake;
            let p = &side.per_batch;
            rep.tls.push(serde_json::json!({
                "backend": r.backend,
                "suite": r.suite.name(),
                "certificate": r.suite.certificate_type(),
                "security_bits": r.suite.security_bits(),
                "kex": r.kex.name(),
                "side": side.side.name(),
                "handshakes_per_sec": side.median_hps,
                "handshakes_per_sec_min": side.min_hps,
                "handshakes_per_sec_max": side.max_hps,
                "runs": r.runs,
                "handshakes": r.handshakes,
                "chain_depth": r.chain_depth,
                "threads": rep.config.threads,
                "us_per_handshake": {
                    "key_share": us(c.key_share),
                    "ecdh": us(c.ecdh),
                    "sign": us(c.sign),
                    "verify": us(c.verify),
                    "chain": us(c.chain),
                },
                "us_per_batch": {
                    "key_share": us(p.key_share),
                    "ecdh": us(p.ecdh),
                    "sign": us(p.sign),
                    "verify": us(p.verify),
                    "chain": us(p.chain),
                },
                "failed": r.failed,
            }));
        }
    }
    failed
}

/// `--soak`: [`batch_bench::soak::soak`] on each available backend; false if any failed.
fn run_soak(
    backends: &[Arc<dyn Backend>],
    secs: f64,
    threads: Option<usize>,
) -> Result<bool, String> {
    if !(secs > 0.0 && secs.is_finite()) {
        return Err("--soak must be a positive number of seconds".into());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = threads.unwrap_or(4 * cores).max(1);
    let mut ok = true;
    for b in backends {
        if let batch_core::Availability::Unavailable(why) = b.availability() {
            println!("{}: skipped: {why}", b.name());
            continue;
        }
        println!("{}: soak, {threads} threads, {secs} s ...", b.name());
        let r =
            batch_bench::soak::soak(b.clone(), threads, std::time::Duration::from_secs_f64(secs));
        println!(
            "{}: {} rounds, {} jobs, {} wrong results, resident memory {} → {} KiB: {}",
            r.backend,
            r.rounds,
            r.jobs,
            r.failures.len(),
            r.rss_first_kib,
            r.rss_last_kib,
            if r.passed() { "pass" } else { "FAIL" }
        );
        for f in &r.failures {
            println!("  {f}");
        }
        ok &= r.passed();
    }
    Ok(ok)
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("batch-speed: some cells failed their output checks (see the notes above)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("batch-speed: {e}");
            ExitCode::from(2)
        }
    }
}
