//! Placeholder until the elliptic-curve kernels land (being written in parallel).
use batch_core::{AffinePoint, Curve, EcUint, Error, JobResult};

pub fn mul_base(_c: Curve, s: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
    s.iter().map(|_| Err(Error::Unavailable("ecc pending".into()))).collect()
}
pub fn mul_point(_c: Curve, _p: &[AffinePoint], s: &[EcUint]) -> Vec<JobResult<AffinePoint>> {
    s.iter().map(|_| Err(Error::Unavailable("ecc pending".into()))).collect()
}
pub fn mul_double_vartime(_c: Curve, s: &[EcUint], _u: &[EcUint], _p: &[AffinePoint]) -> Vec<JobResult<AffinePoint>> {
    s.iter().map(|_| Err(Error::Unavailable("ecc pending".into()))).collect()
}
