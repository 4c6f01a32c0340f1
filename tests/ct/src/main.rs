//! `ct-check`: runs signing with every secret marked *undefined* for Valgrind memcheck, so
//! that each branch or memory address computed from a secret is reported ("Conditional jump or
//! move depends on uninitialised value(s)", "Use of uninitialised value"). Run it through
//! `scripts/ct-check.sh`, which fails on any report; run natively it only checks results.
//!
//! Covered, on the scalar and AVX2 backends (single thread each, small batches):
//! - `modexp` with secret moduli, bases and exponents (RSA-CRT halves), on the AVX2 backend
//!   both a 4-lane group and its scalar tail, which runs the `mulx`/`adx` kernel where the
//!   host has BMI2 and ADX (`scripts/ct-check.sh` tells it so: Valgrind hides ADX);
//! - `mul_base` and `mul_point` on P-256, P-384, P-521 with secret scalars and points;
//! - RSA-2048 and RSA-3072 signing end to end (PKCS#1 v1.5 and PSS): key loading from secret
//!   components, blinding values and salts from a secret RNG, CRT, the fault check;
//! - RSA-1024 and RSA-2048 key generation from a secret RNG (prime search, `d`, the CRT
//!   exponents and `q⁻¹`), and signing with the generated key;
//! - ECDSA signing end to end on every curve: private key loading and generation, hedged
//!   nonces (key, RNG output and nonce all secret).
//!
//! Public results (signatures, points) are marked defined again before they are compared; the
//! library marks its own public-by-design intermediate values (`batch_core::ct::declassify`).
//!
//! The `demo-leak` sections run only when named (`scripts/ct-check.sh --demo-leak`): RSA-2048
//! signing, its key loaded from secret components as above, on a backend that sends the
//! signature's exponentiations to the scalar backend's variable-time path ([`LeakyBackend`]).
//! The check must report it, or it is vacuous: it shows that the signing path's secrets
//! reach the arithmetic still marked, and that a branch on them there is caught.
#![allow(unsafe_code)] // the Valgrind client request in `valgrind`, one `asm!` block

use std::process::ExitCode;

use batch_core::{AffinePoint, Backend, Curve, EcUint, Forward, ModexpJob};
use batchsig::ecdsa::{EcdsaPrivateKey, EcdsaSignJob, NonceMode};
use batchsig::rsa::{RsaPrivateKey, RsaScheme, RsaSignJob};
use batchsig::HashAlg;
use der::Decode;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng, TryCryptoRng, TryRng};

/// Valgrind memcheck client requests (valgrind.h, memcheck.h): no-ops when not under Valgrind.
mod valgrind {
    /// `VG_USERREQ_TOOL_BASE('M', 'C')`.
    const MC: usize = (b'M' as usize) << 24 | (b'C' as usize) << 16;
    const MAKE_MEM_UNDEFINED: usize = MC + 1;
    const MAKE_MEM_DEFINED: usize = MC + 2;
    const RUNNING_ON_VALGRIND: usize = 0x1001;

    #[cfg(target_arch = "x86_64")]
    fn request(default: usize, req: usize, a1: usize, a2: usize) -> usize {
        let args: [usize; 6] = [req, a1, a2, 0, 0, 0];
        let result;
        // SAFETY: valgrind.h's amd64 "special instruction" sequence. Natively the rotations
        // of rdi add up to 128 bits (rdi is unchanged) and `xchg rbx, rbx` does nothing, so
        // the block only moves `default` to the result; under Valgrind the core reads the
        // request from `args` (address in rax) and leaves its answer in rdx. It reads `args`
        // only, and changes no program memory (only Valgrind's shadow state).
        unsafe {
            core::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") default => result,
                inout("rdi") 0usize => _,
                options(nostack),
            );
        }
        result
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn request(default: usize, _: usize, _: usize, _: usize) -> usize {
        default
    }

    /// Whether the program runs under Valgrind.
    pub fn running() -> bool {
        request(0, RUNNING_ON_VALGRIND, 0, 0) != 0
    }

    /// Marks `len` bytes at `ptr` defined (public): the hook for `batch_core::ct::declassify`.
    pub fn declassify_hook(ptr: *mut u8, len: usize) {
        request(0, MAKE_MEM_DEFINED, ptr as usize, len);
    }

    /// Marks `v` as secret: memcheck reports every branch and address computed from it.
    pub fn secret<T: ?Sized>(v: &mut T) {
        request(
            0,
            MAKE_MEM_UNDEFINED,
            v as *mut T as *mut u8 as usize,
            core::mem::size_of_val(v),
        );
    }

    /// Marks `v` as public again, before a result is compared.
    pub fn public<T: ?Sized>(v: &mut T) {
        declassify_hook(v as *mut T as *mut u8, core::mem::size_of_val(v));
    }
}

use valgrind::{public, secret};

/// An RNG whose every output is secret (blinding values, salts, hedging, key generation).
struct SecretRng(ChaCha20Rng);

impl TryRng for SecretRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut v = self.0.next_u32();
        secret(&mut v);
        Ok(v)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut v = self.0.next_u64();
        secret(&mut v);
        Ok(v)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        self.0.fill_bytes(dest);
        secret(dest);
        Ok(())
    }
}
// Infallible, so `Rng` and `CryptoRng` come from rand_core's blanket impls.
impl TryCryptoRng for SecretRng {}

/// The bug the `demo-leak` sections plant: a backend whose constant-time `modexp` is the
/// wrapped (scalar) backend's variable-time one (square-and-multiply that skips zero exponent
/// bits), as if a backend had routed signing to its verification path. Everything else
/// forwards.
#[derive(Debug)]
struct LeakyBackend<'a>(&'a dyn Backend);

impl Forward for LeakyBackend<'_> {
    fn inner(&self) -> &dyn Backend {
        self.0
    }
    fn name(&self) -> &'static str {
        "leaky"
    }
    fn description(&self) -> String {
        format!(
            "{} (modexp on its variable-time path)",
            self.0.description()
        )
    }
    fn modexp(
        &self,
        moduli: &[&[u64]],
        jobs: &[ModexpJob<'_>],
    ) -> Result<Vec<batch_core::JobResult<Vec<u64>>>, batch_core::Error> {
        self.0.modexp_vartime(moduli, jobs) // the deliberate leak
    }
}

/// Jobs per batch: with the AVX2 backend, one 4-lane group plus one job on its scalar tail.
const BATCH: usize = 5;

type Check = Result<(), String>;

fn ensure(ok: bool, what: impl FnOnce() -> String) -> Check {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

/// The PKCS#1 components of a fixed test key, as owned big-endian bytes.
struct RsaParts {
    n: Vec<u8>,
    e: Vec<u8>,
    secrets: [Vec<u8>; 6], // d, p, q, dp, dq, qinv
}

fn rsa_parts(bits: usize) -> RsaParts {
    let key = batchsig::test_keys::rsa(bits);
    let der = key.to_pkcs1_der().expect("encodes");
    let k = pkcs1::RsaPrivateKey::from_der(&der).expect("parses");
    let b = |u: pkcs1::UintRef<'_>| u.as_bytes().to_vec();
    RsaParts {
        n: b(k.modulus),
        e: b(k.public_exponent),
        secrets: [
            b(k.private_exponent),
            b(k.prime1),
            b(k.prime2),
            b(k.exponent1),
            b(k.exponent2),
            b(k.coefficient),
        ],
    }
}

/// Loads a key with every secret component marked secret.
fn secret_rsa_key(parts: &RsaParts) -> Result<RsaPrivateKey, String> {
    let mut s = parts.secrets.clone();
    for x in &mut s {
        secret(x.as_mut_slice());
    }
    let [d, p, q, dp, dq, qinv] = &s;
    RsaPrivateKey::from_components(&parts.n, &parts.e, d, p, q, dp, dq, qinv)
        .map_err(|e| format!("key load: {e}"))
}

fn limbs(be: &[u8]) -> Vec<u64> {
    batch_core::num::limbs_from_be_bytes(be)
}

/// `c^dp mod p`, `c^dq mod q` with everything secret (the RSA-CRT halves).
fn check_modexp(backend: &dyn Backend, rng: &mut ChaCha20Rng) -> Check {
    let parts = rsa_parts(2048);
    let [_, p, q, dp, dq, _] = &parts.secrets;
    let (p, q, dp, dq) = (limbs(p), limbs(q), limbs(dp), limbs(dq));
    let mut bases = Vec::new();
    let mut want = Vec::new();
    for i in 0..BATCH {
        let (m, e) = if i % 2 == 0 { (&p, &dp) } else { (&q, &dq) };
        let dm = batch_core::num::DynMonty::new(m).map_err(|e| e.to_string())?;
        let mut b = vec![0u64; m.len()];
        b.iter_mut().for_each(|w| *w = rng.next_u64());
        let b = dm.reduce(&b);
        want.push(dm.pow_vartime(&b, e));
        bases.push(b);
    }
    let (mut sp, mut sq, mut sdp, mut sdq) = (p.clone(), q.clone(), dp.clone(), dq.clone());
    for v in [&mut sp, &mut sq, &mut sdp, &mut sdq]
        .into_iter()
        .chain(bases.iter_mut())
    {
        secret(v.as_mut_slice());
    }
    let moduli: Vec<&[u64]> = vec![&sp, &sq];
    let jobs: Vec<ModexpJob<'_>> = bases
        .iter()
        .enumerate()
        .map(|(i, b)| ModexpJob {
            base: b,
            exponent: if i % 2 == 0 { &sdp } else { &sdq },
            modulus: i % 2,
        })
        .collect();
    let got = backend.modexp(&moduli, &jobs).map_err(|e| e.to_string())?;
    for (i, (g, w)) in got.into_iter().zip(&want).enumerate() {
        let mut g = g.map_err(|e| format!("job {i}: {e}"))?;
        public(g.as_mut_slice());
        ensure(&g == w, || format!("job {i}: wrong result"))?;
    }
    Ok(())
}

/// Scalars below `n`, including `n − 1` (top limb equal to `n`'s) and 1.
fn scalars(curve: Curve, rng: &mut ChaCha20Rng) -> Vec<EcUint> {
    let n = curve.order();
    let mut out = vec![n.sbb(&EcUint::ONE).0, EcUint::ONE];
    while out.len() < BATCH {
        let mut k = EcUint::ZERO;
        for w in k.0.iter_mut().take(curve.limbs()) {
            *w = rng.next_u64();
        }
        // clear the bits above n's length, then reject (natively, before marking)
        let top = curve.bits() % 64;
        if top != 0 {
            k.0[curve.limbs() - 1] &= (1u64 << top) - 1;
        }
        if !k.is_zero_vartime() && k.cmp_vartime(&n).is_lt() {
            out.push(k);
        }
    }
    out
}

fn points_public(
    mut r: Vec<batch_core::JobResult<AffinePoint>>,
) -> Result<Vec<AffinePoint>, String> {
    r.iter_mut()
        .enumerate()
        .map(|(i, p)| {
            public(p);
            p.clone().map_err(|e| format!("job {i}: {e}"))
        })
        .collect()
}

/// `k·G` and `k·Q` with `k` and `Q` secret, compared with the scalar backend on public inputs.
fn check_ec(
    backend: &dyn Backend,
    reference: &dyn Backend,
    curve: Curve,
    rng: &mut ChaCha20Rng,
) -> Check {
    let ks = scalars(curve, rng);
    let qs = points_public(
        reference
            .mul_base(curve, &scalars(curve, rng))
            .map_err(|e| e.to_string())?,
    )?;
    let want_base = points_public(reference.mul_base(curve, &ks).map_err(|e| e.to_string())?)?;
    let want_point = points_public(
        reference
            .mul_point(curve, &qs, &ks)
            .map_err(|e| e.to_string())?,
    )?;

    let (mut sk, mut sq) = (ks.clone(), qs.clone());
    secret(sk.as_mut_slice());
    // The coordinates are secret; whether a point is the identity is public (the seam's
    // `infinity` flag, see the NOTE in batch-scalar's `finish`).
    for q in &mut sq {
        secret(&mut q.x);
        secret(&mut q.y);
    }
    let got = points_public(backend.mul_base(curve, &sk).map_err(|e| e.to_string())?)?;
    ensure(got == want_base, || {
        format!("{curve} mul_base: wrong result")
    })?;
    secret(sk.as_mut_slice());
    let got = points_public(
        backend
            .mul_point(curve, &sq, &sk)
            .map_err(|e| e.to_string())?,
    )?;
    ensure(got == want_point, || {
        format!("{curve} mul_point: wrong result")
    })
}

fn check_rsa(backend: &dyn Backend, bits: usize, rng: &mut ChaCha20Rng) -> Check {
    let parts = rsa_parts(bits);
    let key = secret_rsa_key(&parts)?;
    check_rsa_signing(backend, &key, bits, rng)
}

/// RSA key generation from a secret RNG (primes, `d`, CRT exponents, `q⁻¹`), then signing
/// with the generated key.
fn check_rsa_keygen(backend: &dyn Backend, bits: usize, rng: &mut ChaCha20Rng) -> Check {
    let mut srng = SecretRng(ChaCha20Rng::from_seed(seed(rng)));
    let key = RsaPrivateKey::generate(&mut srng, bits).map_err(|e| format!("keygen: {e}"))?;
    check_rsa_signing(backend, &key, bits, rng)
}

/// Signs a batch with `key` (PKCS#1 v1.5 and PSS, secret RNG) and verifies the signatures.
fn check_rsa_signing(
    backend: &dyn Backend,
    key: &RsaPrivateKey,
    bits: usize,
    rng: &mut ChaCha20Rng,
) -> Check {
    let digests: Vec<Vec<u8>> = (0..BATCH)
        .map(|i| HashAlg::Sha256.digest(&[i as u8; 3]))
        .collect();
    for scheme in [
        RsaScheme::pkcs1v15(HashAlg::Sha256),
        RsaScheme::pss(HashAlg::Sha256),
    ] {
        let jobs: Vec<RsaSignJob<'_>> = digests
            .iter()
            .map(|d| RsaSignJob { key, digest: d })
            .collect();
        let mut srng = SecretRng(ChaCha20Rng::from_seed(seed(rng)));
        let mut sigs = batchsig::rsa::sign_batch(backend, scheme, &jobs, &mut srng)
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for (i, s) in sigs.iter_mut().enumerate() {
            public(s);
            let mut s = s
                .clone()
                .map_err(|e| format!("RSA-{bits} {scheme:?} job {i}: {e}"))?;
            public(s.as_mut_slice());
            out.push(s);
        }
        let refs: Vec<&[u8]> = out.iter().map(Vec::as_slice).collect();
        let vjobs: Vec<batchsig::rsa::RsaVerifyJob<'_>> = digests
            .iter()
            .zip(&refs)
            .map(|(d, s)| batchsig::rsa::RsaVerifyJob {
                key: key.public_key(),
                digest: d,
                signature: s,
            })
            .collect();
        let ok = batchsig::rsa::verify_batch(backend, scheme, &vjobs).map_err(|e| e.to_string())?;
        ensure(ok.iter().all(Result::is_ok), || {
            format!("RSA-{bits} {scheme:?}: a signature does not verify")
        })?;
    }
    Ok(())
}

fn seed(rng: &mut ChaCha20Rng) -> [u8; 32] {
    let mut s = [0u8; 32];
    rng.fill_bytes(&mut s);
    s
}

fn check_ecdsa(backend: &dyn Backend, curve: Curve, rng: &mut ChaCha20Rng) -> Check {
    let hash = batchsig::ecdsa::curve_hash(curve);
    // One key loaded from secret bytes, one generated from a secret RNG.
    let mut d = vec![0u8; curve.field_bytes()];
    scalars(curve, rng)[2].write_be_bytes(&mut d);
    secret(d.as_mut_slice());
    let loaded = EcdsaPrivateKey::from_scalar_bytes(curve, &d)
        .map_err(|e| format!("{curve} key load: {e}"))?;
    let mut srng = SecretRng(ChaCha20Rng::from_seed(seed(rng)));
    let generated =
        EcdsaPrivateKey::generate(curve, &mut srng).map_err(|e| format!("{curve} keygen: {e}"))?;
    let digests: Vec<Vec<u8>> = (0..BATCH).map(|i| hash.digest(&[i as u8; 3])).collect();
    for key in [&loaded, &generated] {
        let jobs: Vec<EcdsaSignJob<'_>> = digests
            .iter()
            .map(|dg| EcdsaSignJob { key, digest: dg })
            .collect();
        let mut sigs =
            batchsig::ecdsa::sign_batch(backend, hash, &jobs, NonceMode::Hedged, &mut srng)
                .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for (i, s) in sigs.iter_mut().enumerate() {
            public(s);
            out.push(s.clone().map_err(|e| format!("{curve} job {i}: {e}"))?);
        }
        let refs: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
        let ok = key
            .public_key()
            .verify_digests_batch(backend, hash, &refs, &out)
            .map_err(|e| e.to_string())?;
        ensure(ok.iter().all(Result::is_ok), || {
            format!("{curve}: a signature does not verify")
        })?;
    }
    Ok(())
}

fn main() -> ExitCode {
    batch_core::ct::set_declassify_hook(valgrind::declassify_hook);
    let only: Vec<String> = std::env::args().skip(1).collect();
    // Every section but the demo's unless some are named; the demo's only when named.
    let wanted = |name: &str| {
        if only.is_empty() {
            !name.starts_with("demo-leak")
        } else {
            only.iter().any(|o| name.starts_with(o.as_str()))
        }
    };
    eprintln!("ct-check: under Valgrind: {}", valgrind::running());
    eprintln!(
        "ct-check: avx2 scalar tail on the mulx/adx kernel: {}",
        batch_avx2::adx_kernel().is_some()
    );

    let scalar: Box<dyn Backend> =
        Box::new(batch_scalar::ScalarBackend::with_threads(1).expect("pool"));
    let mut backends: Vec<(&str, Box<dyn Backend>)> = Vec::new();
    let avx2 = batch_avx2::Avx2Backend::with_threads(1).expect("pool");
    if avx2.availability().is_available() {
        backends.push((
            "scalar",
            Box::new(batch_scalar::ScalarBackend::with_threads(1).expect("pool")),
        ));
        backends.push(("avx2", Box::new(avx2)));
    } else {
        eprintln!("ct-check: SKIP avx2: {:?}", avx2.availability());
        if std::env::var_os("CI").is_some_and(|v| v == "true") {
            eprintln!("ct-check: FAIL: CI=true requires the AVX2 backend");
            return ExitCode::FAILURE;
        }
        backends.push((
            "scalar",
            Box::new(batch_scalar::ScalarBackend::with_threads(1).expect("pool")),
        ));
    }

    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let mut failed = 0;
    let mut run = |name: String, f: &mut dyn FnMut() -> Check| {
        if !wanted(&name) {
            return;
        }
        let t = std::time::Instant::now();
        match f() {
            Ok(()) => eprintln!("ct-check: ok   {name} ({:.1} s)", t.elapsed().as_secs_f64()),
            Err(e) => {
                eprintln!("ct-check: FAIL {name}: {e}");
                failed += 1;
            }
        }
    };
    // Key generation does not depend on the backend (the generated key then signs on scalar).
    for bits in [1024, 2048] {
        run(format!("keygen/rsa/{bits}"), &mut || {
            check_rsa_keygen(&*scalar, bits, &mut rng)
        });
    }
    for (bname, b) in &backends {
        run(format!("modexp/{bname}"), &mut || {
            check_modexp(&**b, &mut rng)
        });
        for &curve in b.curves() {
            run(format!("ec/{bname}/{curve}"), &mut || {
                check_ec(&**b, &*scalar, curve, &mut rng)
            });
        }
        for bits in [2048, 3072] {
            run(format!("rsa/{bname}/{bits}"), &mut || {
                check_rsa(&**b, bits, &mut rng)
            });
        }
        for &curve in b.curves() {
            run(format!("ecdsa/{bname}/{curve}"), &mut || {
                check_ecdsa(&**b, curve, &mut rng)
            });
        }
    }
    let leaky = LeakyBackend(&*scalar);
    run("demo-leak/rsa/scalar/2048".into(), &mut || {
        check_rsa(&leaky, 2048, &mut rng)
    });
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
