//! Without an adapter the backend reports itself unavailable, with the reason, and every
//! call fails for the batch with `Error::Unavailable` — never a panic. Runs everywhere (no GPU
//! needed). Also: the EC operations, not implemented yet, fail clearly on an available device.
mod common;

use batch_core::{Availability, Backend, Curve, Error, ModexpJob};
use batch_wgpu::{wgpu, WgpuBackend, WgpuOptions};

fn assert_every_call_unavailable(b: &WgpuBackend) {
    let m = [0xffff_fffb_u64];
    let jobs = [ModexpJob { base: &[3], exponent: &[5], modulus: 0 }];
    let g = Curve::P256.generator();
    let k = [batch_core::EcUint::ZERO];
    let unavailable = |r: Result<usize, Error>| matches!(r, Err(Error::Unavailable(_)));
    assert!(unavailable(b.modexp(&[&m], &jobs).map(|v| v.len())));
    assert!(unavailable(b.modexp_vartime(&[&m], &jobs).map(|v| v.len())));
    assert!(unavailable(b.modexp(&[], &[]).map(|v| v.len())));
    assert!(unavailable(b.mul_base(Curve::P256, &k).map(|v| v.len())));
    assert!(unavailable(b.mul_point(Curve::P256, &[g], &k).map(|v| v.len())));
    assert!(unavailable(b.mul_double_vartime(Curve::P256, &k, &k, &[g]).map(|v| v.len())));
}

#[test]
fn no_backends_means_unavailable_and_errors() {
    let b = WgpuBackend::with_options(WgpuOptions { backends: wgpu::Backends::empty(), ..WgpuOptions::default() });
    let Availability::Unavailable(why) = b.availability() else { panic!("available with no backends") };
    assert!(!why.is_empty());
    assert!(b.description().contains("unavailable"), "{}", b.description());
    assert_eq!(b.name(), "wgpu");
    assert_every_call_unavailable(&b);
}

#[test]
fn unknown_adapter_name_means_unavailable_and_errors() {
    let b = WgpuBackend::with_options(WgpuOptions {
        adapter_name: Some("no such adapter, batchsig test".into()),
        ..WgpuOptions::from_env()
    });
    let Availability::Unavailable(why) = b.availability() else { panic!("an adapter matched a made-up name") };
    assert!(why.contains("no such adapter, batchsig test"), "{why}");
    assert_every_call_unavailable(&b);
}

#[test]
fn ec_operations_fail_clearly_until_implemented() {
    let Some(b) = common::wgpu_or_skip("ec_operations_fail_clearly_until_implemented") else { return };
    let g = Curve::P256.generator();
    let k = [batch_core::EcUint::ZERO];
    for r in [
        b.mul_base(Curve::P256, &k).map(|v| v.len()),
        b.mul_point(Curve::P256, &[g], &k).map(|v| v.len()),
        b.mul_double_vartime(Curve::P256, &k, &k, &[g]).map(|v| v.len()),
    ] {
        assert!(matches!(&r, Err(Error::Unavailable(why)) if why.contains("not implemented")), "{r:?}");
    }
    // shape errors still come first
    assert!(matches!(b.mul_point(Curve::P256, &[], &k), Err(Error::LengthMismatch { .. })));
}

#[test]
fn description_names_the_adapter() {
    let Some(b) = common::wgpu_or_skip("description_names_the_adapter") else { return };
    let d = b.description();
    assert!(d.contains("software") || d.contains("hardware") || d.contains("unknown device type"), "{d}");
    assert!(["Vulkan", "Gl", "Metal", "Dx12"].iter().any(|api| d.contains(api)), "{d}");
}
