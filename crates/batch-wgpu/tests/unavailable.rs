//! Without an adapter the backend reports itself unavailable, with the reason, and every
//! call fails for the batch with `Error::Unavailable` — never a panic. Runs everywhere (no GPU
//! needed). On an available device: shape errors come first, a timeout fails the batch.
mod common;

use batch_core::{Availability, Backend, Curve, Error, ModexpJob};
use batch_wgpu::{wgpu, Normalize, WgpuBackend, WgpuOptions};

fn assert_every_call_unavailable(b: &WgpuBackend) {
    let m = [0xffff_fffb_u64];
    let jobs = [ModexpJob {
        base: &[3],
        exponent: &[5],
        modulus: 0,
    }];
    let g = Curve::P256.generator();
    let k = [batch_core::EcUint::ZERO];
    let unavailable = |r: Result<usize, Error>| matches!(r, Err(Error::Unavailable(_)));
    assert!(unavailable(b.modexp(&[&m], &jobs).map(|v| v.len())));
    assert!(unavailable(b.modexp_vartime(&[&m], &jobs).map(|v| v.len())));
    assert!(unavailable(b.modexp(&[], &[]).map(|v| v.len())));
    assert!(unavailable(b.mul_base(Curve::P256, &k).map(|v| v.len())));
    assert!(unavailable(
        b.mul_point(Curve::P256, &[g], &k).map(|v| v.len())
    ));
    assert!(unavailable(
        b.mul_double_vartime(Curve::P256, &k, &k, &[g])
            .map(|v| v.len())
    ));
}

#[test]
fn no_backends_means_unavailable_and_errors() {
    let b = WgpuBackend::with_options(WgpuOptions {
        backends: wgpu::Backends::empty(),
        ..WgpuOptions::default()
    });
    let Availability::Unavailable(why) = b.availability() else {
        panic!("available with no backends")
    };
    assert!(!why.is_empty());
    assert!(
        b.description().contains("unavailable"),
        "{}",
        b.description()
    );
    assert_eq!(b.name(), "wgpu");
    assert_every_call_unavailable(&b);
}

#[test]
fn unknown_adapter_name_means_unavailable_and_errors() {
    let b = WgpuBackend::with_options(WgpuOptions {
        adapter_name: Some("no such adapter, batchsig test".into()),
        ..WgpuOptions::from_env()
    });
    let Availability::Unavailable(why) = b.availability() else {
        panic!("an adapter matched a made-up name")
    };
    assert!(why.contains("no such adapter, batchsig test"), "{why}");
    assert_every_call_unavailable(&b);
}

/// Shape errors come before any GPU work, for every operation.
#[test]
fn shape_errors_come_first() {
    let Some(b) = common::wgpu_or_skip("shape_errors_come_first") else {
        return;
    };
    let g = Curve::P256.generator();
    let k = [batch_core::EcUint::ZERO];
    assert!(matches!(
        b.mul_point(Curve::P256, &[], &k),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        b.mul_double_vartime(Curve::P256, &k, &[], &[g]),
        Err(Error::LengthMismatch { .. })
    ));
    let too_many = vec![batch_core::EcUint::ZERO; batch_core::MAX_BATCH + 1];
    assert!(matches!(
        b.mul_base(Curve::P256, &too_many),
        Err(Error::BatchTooLarge { .. })
    ));
}

/// A submission that outlives the timeout fails its batch with an error naming the wait;
/// nothing panics and no result is returned. wgpu's GL backend cannot bound a wait (llvmpipe's
/// GL driver runs the work inside the submission), so there the batch may complete: then its
/// results must still be right.
#[test]
fn timeout_is_an_error_for_the_batch() {
    let Some(_) = common::wgpu_or_skip("timeout_is_an_error_for_the_batch") else {
        return;
    };
    let b = WgpuBackend::with_options(WgpuOptions {
        timeout: std::time::Duration::from_micros(1),
        ..WgpuOptions::from_env()
    });
    let g = Curve::P521.generator();
    let k = vec![batch_core::dev::ec_scalars(&mut batch_core::dev::rng(3), Curve::P521, 7)[6]; 64];
    let q = vec![g; 64];
    match b.mul_point(Curve::P521, &q, &k) {
        Err(Error::Backend(why)) => assert!(why.contains("waiting for the GPU"), "{why}"),
        Ok(got) if b.description().contains("(Gl,") => {
            let want = batch_scalar::ScalarBackend::with_threads(1)
                .unwrap()
                .mul_point(Curve::P521, &q, &k)
                .unwrap();
            assert_eq!(
                got, want,
                "GL completed the batch: its results must be right"
            );
        }
        other => panic!(
            "expected a timeout error, got {:?} on {}",
            other.map(|v| v.len()),
            b.description()
        ),
    }
}

#[test]
fn description_names_the_adapter() {
    let Some(b) = common::wgpu_or_skip("description_names_the_adapter") else {
        return;
    };
    let d = b.description();
    assert!(
        d.contains("software") || d.contains("hardware") || d.contains("unknown device type"),
        "{d}"
    );
    assert!(
        ["Vulkan", "Gl", "Metal", "Dx12"]
            .iter()
            .any(|api| d.contains(api)),
        "{d}"
    );
    // a software adapter is reported as an emulation (batch-speed leaves it out by default)
    assert_eq!(b.is_emulated(), d.contains("software (CPU)"), "{d}");
    // where EC results are made affine: the host on a CPU adapter, else the GPU, unless
    // BATCHSIG_WGPU_NORMALIZE says otherwise
    let chosen = std::env::var("BATCHSIG_WGPU_NORMALIZE")
        .ok()
        .and_then(|v| Normalize::parse(&v));
    let place = match chosen {
        Some(Normalize::Gpu) => "GPU",
        Some(Normalize::Host) => "host",
        None if b.is_emulated() => "host",
        None => "GPU",
    };
    assert!(
        d.ends_with(&format!("EC results made affine on the {place}")),
        "{d}"
    );
}
