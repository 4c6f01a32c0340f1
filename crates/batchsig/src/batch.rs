//! What every scheme's batch entry point shares.

use rand_core::SeedableRng;

use crate::Error;

/// Scheme batches need at least one job and at most [`batch_core::MAX_BATCH`].
pub(crate) fn check_not_empty(len: usize) -> Result<(), Error> {
    if len == 0 {
        return Err(Error::EmptyBatch);
    }
    batch_core::backend::check_batch(len, &[])
}

/// A ChaCha20 generator seeded from the operating system, one per batch call.
pub(crate) fn os_seeded_rng() -> Result<rand_chacha::ChaCha20Rng, Error> {
    rand_chacha::ChaCha20Rng::try_from_rng(&mut getrandom::SysRng)
        .map_err(|e| Error::Rng(e.to_string()))
}
