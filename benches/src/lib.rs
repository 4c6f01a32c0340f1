//! batch-bench: the pieces of the `batch-speed` command (algorithms, timed and checked cells,
//! the distinct verification keys, the `openssl speed` reference, other libraries as peers,
//! the statistics of repeated runs, machine description, report, where a GPU overtakes the
//! CPU, plots, the soak test). The criterion benches
//! in `benches/` time the same operations at fixed batch sizes.

pub mod alg;
pub mod budget;
pub mod crossover;
pub mod keys;
pub mod machine;
pub mod measure;
pub mod openssl;
pub mod peers;
pub mod plot;
pub mod report;
pub mod soak;
pub mod stats;

/// Batch sizes of the criterion benches (one table for every backend).
pub const BENCH_BATCH_SIZES: [usize; 4] = [1, 64, 1024, 4096];

/// Batch sizes of `batch-speed --sweep` (the GPU/CPU crossover lies somewhere in here).
pub const SWEEP_SIZES: [usize; 8] = [1, 4, 16, 64, 256, 1024, 4096, 16384];
