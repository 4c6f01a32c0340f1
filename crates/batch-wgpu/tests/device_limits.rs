//! The device's limits and failures: a device opened with a 128 KiB storage-binding limit
//! splits batches into chunks by that limit (a chunk too big for it would be a validation
//! error, so wrong sizing fails here), and a lost device fails every later batch with an
//! error instead of a panic or a wrong result. Each test opens its own device.
mod common;

use batch_core::dev::check_backend_vs_reference;
use batch_core::{Backend, Curve, EcUint, Error, ModexpJob};
use batch_scalar::ScalarBackend;
use batch_wgpu::{WgpuBackend, WgpuOptions};

/// P-256 `k·Q` needs 2 KiB of scratch per job and 1024-bit modexp 2.5 KiB, so batches of 130
/// run as three chunks on this device.
#[test]
fn small_device_splits_batches_vs_scalar() {
    if common::wgpu_or_skip("small_device_splits_batches_vs_scalar").is_none() {
        return;
    }
    let b = WgpuBackend::with_options(WgpuOptions {
        max_storage_binding: Some(128 << 10),
        ..WgpuOptions::from_env()
    });
    let s = ScalarBackend::with_threads(1).unwrap();
    check_backend_vs_reference(&s, &b, &[Curve::P256], &[2048], &[130], 31);
}

#[test]
fn lost_device_fails_batches_with_an_error() {
    if common::wgpu_or_skip("lost_device_fails_batches_with_an_error").is_none() {
        return;
    }
    let b = WgpuBackend::with_options(WgpuOptions::from_env());
    let k = [EcUint::ONE, EcUint::ZERO];
    let before = b.mul_base(Curve::P256, &k).expect("a working device");
    assert_eq!(before[0], Ok(Curve::P256.generator()));
    b.destroy_device();
    let m = [0xffff_fffb_u64];
    let jobs = [ModexpJob {
        base: &[3],
        exponent: &[5],
        modulus: 0,
    }];
    let failed = |r: Result<usize, Error>| match r {
        Err(Error::Backend(why)) => assert!(why.contains("device lost"), "{why}"),
        other => panic!("a lost device must fail the batch, got {other:?}"),
    };
    failed(b.mul_base(Curve::P256, &k).map(|v| v.len()));
    failed(
        b.mul_point(Curve::P384, &[Curve::P384.generator()], &[EcUint::ONE])
            .map(|v| v.len()),
    );
    failed(b.modexp(&[&m], &jobs).map(|v| v.len()));
}
