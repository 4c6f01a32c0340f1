//! Backend registry and selection.

use std::sync::Arc;

use batch_core::Backend;

/// Every backend this build knows, available or not (check [`Backend::availability`]).
pub fn all_backends() -> Vec<Arc<dyn Backend>> {
    vec![Arc::new(batch_scalar::ScalarBackend::new())]
}

/// Looks a backend up by its [`Backend::name`].
pub fn by_name(name: &str) -> Option<Arc<dyn Backend>> {
    all_backends().into_iter().find(|b| b.name() == name)
}

/// The backend to use when the caller has no preference: the first available one, in the
/// order of [`all_backends`] (scalar is always available).
pub fn default_backend() -> Arc<dyn Backend> {
    all_backends()
        .into_iter()
        .find(|b| b.availability().is_available())
        .expect("the scalar backend is always available")
}
