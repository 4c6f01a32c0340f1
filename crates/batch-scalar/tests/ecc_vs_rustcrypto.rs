//! The scalar backend's `k·G`, `k·Q` and `u₁·G + u₂·Q` against RustCrypto's p224 / p256 /
//! p384 / p521 (0.14) on all four curves: edge scalars, special points, batch sizes around the chunk
//! size, and invalid jobs mixed into valid batches.

use batch_core::dev::{from_big, rng, to_big};
use batch_core::num::Uint;
use batch_core::{AffinePoint, Backend, Curve, EcUint, Error, JobResult};
use batch_scalar::ScalarBackend;
use num_bigint::BigUint;
use rand::{Rng, RngExt};

/// An independent implementation of one curve.
trait Reference {
    const CURVE: Curve;
    fn mul_g(k: &EcUint) -> AffinePoint;
    fn mul(q: &AffinePoint, k: &EcUint) -> AffinePoint;
    fn add(a: &AffinePoint, b: &AffinePoint) -> AffinePoint;
}

macro_rules! reference {
    ($name:ident, $krate:ident, $curve:expr) => {
        struct $name;

        impl $name {
            fn scalar(k: &EcUint) -> $krate::Scalar {
                use $krate::elliptic_curve::ff::PrimeField;
                let mut buf = vec![0u8; $curve.field_bytes()];
                k.write_be_bytes(&mut buf);
                Option::from($krate::Scalar::from_repr(buf.iter().copied().collect()))
                    .expect("test scalar below n")
            }

            fn to_rc(p: &AffinePoint) -> $krate::ProjectivePoint {
                use $krate::elliptic_curve::sec1::FromSec1Point;
                if p.infinity {
                    return $krate::ProjectivePoint::IDENTITY;
                }
                let fb = $curve.field_bytes();
                let (mut x, mut y) = (vec![0u8; fb], vec![0u8; fb]);
                p.x.write_be_bytes(&mut x);
                p.y.write_be_bytes(&mut y);
                let (x, y): ($krate::FieldBytes, $krate::FieldBytes) =
                    (x.iter().copied().collect(), y.iter().copied().collect());
                let ep = $krate::Sec1Point::from_affine_coordinates(&x, &y, false);
                let a: Option<$krate::AffinePoint> =
                    $krate::AffinePoint::from_sec1_point(&ep).into();
                a.expect("test point on the curve").into()
            }

            fn from_rc(p: $krate::ProjectivePoint) -> AffinePoint {
                use $krate::elliptic_curve::sec1::ToSec1Point;
                let ep = p.to_affine().to_sec1_point(false);
                match (ep.x(), ep.y()) {
                    (Some(x), Some(y)) => AffinePoint {
                        x: Uint::from_be_bytes(x).unwrap(),
                        y: Uint::from_be_bytes(y).unwrap(),
                        infinity: false,
                    },
                    _ => AffinePoint::IDENTITY,
                }
            }
        }

        impl Reference for $name {
            const CURVE: Curve = $curve;
            fn mul_g(k: &EcUint) -> AffinePoint {
                Self::from_rc($krate::ProjectivePoint::GENERATOR * Self::scalar(k))
            }
            fn mul(q: &AffinePoint, k: &EcUint) -> AffinePoint {
                Self::from_rc(Self::to_rc(q) * Self::scalar(k))
            }
            fn add(a: &AffinePoint, b: &AffinePoint) -> AffinePoint {
                Self::from_rc(Self::to_rc(a) + Self::to_rc(b))
            }
        }
    };
}

reference!(RefP224, p224, Curve::P224);
reference!(RefP256, p256, Curve::P256);
reference!(RefP384, p384, Curve::P384);
reference!(RefP521, p521, Curve::P521);

fn uint(x: &BigUint) -> EcUint {
    Uint::from_limbs(&from_big(x, 9)).unwrap()
}

fn n_big(curve: Curve) -> BigUint {
    to_big(&curve.order().0)
}

/// 0, 1, 2, 3, n−1, n−2, (n−1)/2, small values, powers of two below n, then random `< n`.
fn scalars(curve: Curve, rng: &mut impl Rng, random: usize) -> Vec<EcUint> {
    let n = n_big(curve);
    let mut v: Vec<BigUint> = [
        0u32,
        1,
        2,
        3,
        5,
        7,
        15,
        16,
        17,
        31,
        33,
        63,
        64,
        65,
        127,
        128,
        129,
        255,
        1 << 20,
    ]
    .iter()
    .map(|&s| BigUint::from(s))
    .collect();
    v.extend([&n - 1u8, &n - 2u8, (&n - 1u8) >> 1, (&n >> 1) + 1u8]);
    for k in (0..curve.bits()).step_by(37).chain([curve.bits() - 1]) {
        let p = BigUint::from(1u8) << k;
        if p < n {
            v.push(p.clone());
            v.push(&n - &p);
        }
    }
    // around the comb's window boundaries (w = 7): partial sums that are zero (an identity
    // accumulator), largest and most negative Booth digits, the top window's largest digit
    for i in (7..curve.bits()).step_by(7) {
        let p = BigUint::from(1u8) << i;
        for v2 in [
            p.clone() - 1u8,
            p.clone() + 1u8,
            &p << 6u8,
            (&p << 6u8) - &p / 2u8,
        ] {
            if v2 < n {
                v.push(&n - &v2);
                v.push(v2);
            }
        }
    }
    for _ in 0..random {
        let limbs: Vec<u64> = (0..curve.limbs()).map(|_| rng.random()).collect();
        v.push(to_big(&limbs) % &n);
    }
    v.iter().map(uint).collect()
}

fn ok(r: &JobResult<AffinePoint>) -> AffinePoint {
    r.clone().unwrap_or_else(|e| panic!("job failed: {e}"))
}

fn neg(curve: Curve, p: &AffinePoint) -> AffinePoint {
    if p.infinity {
        return *p;
    }
    let y = to_big(&p.y.0);
    let y = if y == BigUint::from(0u8) {
        y
    } else {
        to_big(&curve.prime().0) - y
    };
    AffinePoint {
        x: p.x,
        y: uint(&y),
        infinity: false,
    }
}

fn check_curve<R: Reference>() {
    let curve = R::CURVE;
    let be = ScalarBackend::new();
    let mut rng = rng(0x5eed ^ curve.bits() as u64);
    let n = n_big(curve);
    let g = curve.generator();
    let ks = scalars(curve, &mut rng, 24);

    // k·G
    let got = be.mul_base(curve, &ks).unwrap();
    assert_eq!(got.len(), ks.len());
    for (k, r) in ks.iter().zip(&got) {
        assert_eq!(ok(r), R::mul_g(k), "{curve} k·G, k = {k:?}");
    }
    assert_eq!(ok(&got[0]), AffinePoint::IDENTITY);
    assert_eq!(ok(&got[1]), g);
    // (n−1)·G = −G
    assert_eq!(
        ok(&be.mul_base(curve, &[uint(&(&n - 1u8))]).unwrap()[0]),
        neg(curve, &g)
    );

    // k·Q: random Q, G, −G, the identity
    let t: Vec<EcUint> = scalars(curve, &mut rng, 3).split_off(scalars(curve, &mut rng, 0).len());
    let mut qs: Vec<AffinePoint> = t.iter().map(R::mul_g).collect();
    qs.extend([g, neg(curve, &g), AffinePoint::IDENTITY]);
    let pairs: Vec<(AffinePoint, EcUint)> = qs
        .iter()
        .flat_map(|q| ks.iter().step_by(2).map(move |k| (*q, *k)))
        .collect();
    let (pq, pk): (Vec<_>, Vec<_>) = pairs.iter().copied().unzip();
    let got = be.mul_point(curve, &pq, &pk).unwrap();
    for ((q, k), r) in pairs.iter().zip(&got) {
        assert_eq!(ok(r), R::mul(q, k), "{curve} k·Q, k = {k:?}, Q = {q:?}");
    }

    // u₁·G + u₂·Q
    let mut u1 = Vec::new();
    let mut u2 = Vec::new();
    let mut pts = Vec::new();
    let q_t = &t[0];
    let q = R::mul_g(q_t);
    let tb = to_big(&q_t.0);
    for (i, k) in ks.iter().enumerate() {
        let kb = to_big(&k.0);
        let other = ks[(i * 7 + 3) % ks.len()];
        // random-ish pairs over the random Q, G, −G and the identity
        for qq in [q, g, neg(curve, &g), AffinePoint::IDENTITY] {
            u1.push(*k);
            u2.push(other);
            pts.push(qq);
        }
        // u₁ = 0, u₂ = 0
        u1.push(Uint::ZERO);
        u2.push(*k);
        pts.push(q);
        u1.push(*k);
        u2.push(Uint::ZERO);
        pts.push(q);
        // u₁·G = −u₂·Q with Q = t·G: u₁ = −u₂·t mod n (identity), and u₁·G = +u₂·Q (doubling)
        let cancel = (&n - (&kb * &tb) % &n) % &n;
        u1.push(uint(&cancel));
        u2.push(*k);
        pts.push(q);
        u1.push(uint(&((&kb * &tb) % &n)));
        u2.push(*k);
        pts.push(q);
        // Q = G, u₁ = u₂; Q = −G, u₁ = u₂
        u1.push(*k);
        u2.push(*k);
        pts.push(g);
        u1.push(*k);
        u2.push(*k);
        pts.push(neg(curve, &g));
    }
    let got = be.mul_double_vartime(curve, &u1, &u2, &pts).unwrap();
    for (i, r) in got.iter().enumerate() {
        let want = R::add(&R::mul_g(&u1[i]), &R::mul(&pts[i], &u2[i]));
        assert_eq!(
            ok(r),
            want,
            "{curve} u1·G + u2·Q job {i}: u1 = {:?}, u2 = {:?}",
            u1[i],
            u2[i]
        );
    }
    // the cancelling jobs really are the identity (and the others are not all identity)
    let per = 10;
    for i in 0..ks.len() {
        assert_eq!(
            ok(&got[i * per + 6]),
            AffinePoint::IDENTITY,
            "{curve} cancel job {i}"
        );
        assert_eq!(
            ok(&got[i * per + 9]),
            AffinePoint::IDENTITY,
            "{curve} Q = −G job {i}"
        );
    }
    assert!(got.iter().filter(|r| ok(r).infinity).count() < got.len() / 2);
}

#[test]
fn p224_vs_rustcrypto() {
    check_curve::<RefP224>();
}

#[test]
fn p256_vs_rustcrypto() {
    check_curve::<RefP256>();
}

#[test]
fn p384_vs_rustcrypto() {
    check_curve::<RefP384>();
}

#[test]
fn p521_vs_rustcrypto() {
    check_curve::<RefP521>();
}

fn random_below(rng: &mut impl Rng, n: &BigUint) -> EcUint {
    let limbs: Vec<u64> = (0..9).map(|_| rng.random()).collect();
    uint(&(to_big(&limbs) % n))
}

/// Batch sizes around the chunk size: every job is right, in order.
fn check_sizes<R: Reference>() {
    let curve = R::CURVE;
    let be = ScalarBackend::new();
    let mut rng = rng(77 + curve.bits() as u64);
    let n = n_big(curve);
    for &len in &[0usize, 1, 31, 32, 33, 65] {
        let k: Vec<EcUint> = (0..len).map(|_| random_below(&mut rng, &n)).collect();
        let k2: Vec<EcUint> = (0..len).map(|_| random_below(&mut rng, &n)).collect();
        let base = R::mul_g(&random_below(&mut rng, &n));
        let q: Vec<AffinePoint> = (0..len)
            .map(|i| if i % 5 == 4 { curve.generator() } else { base })
            .collect();
        let a = be.mul_base(curve, &k).unwrap();
        let b = be.mul_point(curve, &q, &k).unwrap();
        let c = be.mul_double_vartime(curve, &k, &k2, &q).unwrap();
        assert_eq!((a.len(), b.len(), c.len()), (len, len, len));
        for i in 0..len {
            let kg = R::mul_g(&k[i]);
            assert_eq!(ok(&a[i]), kg, "{curve} batch {len} k·G job {i}");
            assert_eq!(
                ok(&b[i]),
                R::mul(&q[i], &k[i]),
                "{curve} batch {len} k·Q job {i}"
            );
            assert_eq!(
                ok(&c[i]),
                R::add(&kg, &R::mul(&q[i], &k2[i])),
                "{curve} batch {len} double job {i}"
            );
        }
    }
}

#[test]
fn batch_sizes_around_the_chunk() {
    check_sizes::<RefP224>();
    check_sizes::<RefP256>();
    check_sizes::<RefP384>();
    check_sizes::<RefP521>();
}

/// Invalid jobs get their own error; the valid jobs around them (same chunks) stay right.
fn check_bad_jobs<R: Reference>() {
    let curve = R::CURVE;
    let be = ScalarBackend::new();
    let mut rng = rng(99 + curve.bits() as u64);
    let n = n_big(curve);
    let p = to_big(&curve.prime().0);
    let g = curve.generator();
    let len = 70;
    let mut k: Vec<EcUint> = (0..len).map(|_| random_below(&mut rng, &n)).collect();
    let mut k2: Vec<EcUint> = (0..len).map(|_| random_below(&mut rng, &n)).collect();
    let base = R::mul_g(&random_below(&mut rng, &n));
    let mut q: Vec<AffinePoint> = vec![base; len];
    let bad_scalar = Err(Error::ScalarOutOfRange { curve });
    let bad_point = Err(Error::PointNotOnCurve { curve });
    // scalars: = n, n + 1, 2^bits − 1, all nine limbs set (wider than the curve)
    let wide = Uint([u64::MAX; 9]);
    let scalar_bad = [
        (3, uint(&n)),
        (31, uint(&(&n + 1u8))),
        (32, uint(&((BigUint::from(1u8) << curve.bits()) - 1u8))),
        (64, wide),
    ];
    // points: y off by one, x = p (coordinates not reduced), identity with non-zero x, y = p − y
    // is fine (−Q) but y + p is not
    let mut off = base;
    off.y.0[0] ^= 1;
    let mut x_p = base;
    x_p.x = uint(&(to_big(&base.x.0) + &p));
    let mut bad_id = AffinePoint::IDENTITY;
    bad_id.x.0[0] = 1;
    let mut y_p = g;
    y_p.y = uint(&(to_big(&g.y.0) + &p));
    let point_bad = [(5, off), (33, x_p), (40, bad_id), (66, y_p)];

    let mut want_base: Vec<Option<JobResult<AffinePoint>>> = vec![None; len];
    for &(i, s) in &scalar_bad {
        k[i] = s;
        want_base[i] = Some(bad_scalar.clone());
    }
    let got = be.mul_base(curve, &k).unwrap();
    for i in 0..len {
        match &want_base[i] {
            Some(e) => assert_eq!(&got[i], e, "{curve} k·G bad job {i}"),
            None => assert_eq!(ok(&got[i]), R::mul_g(&k[i]), "{curve} k·G good job {i}"),
        }
    }

    let mut want_point = want_base.clone();
    for &(i, pt) in &point_bad {
        q[i] = pt;
        want_point[i] = Some(bad_point.clone());
    }
    let got = be.mul_point(curve, &q, &k).unwrap();
    for i in 0..len {
        match &want_point[i] {
            Some(e) => assert_eq!(&got[i], e, "{curve} k·Q bad job {i}"),
            None => assert_eq!(
                ok(&got[i]),
                R::mul(&q[i], &k[i]),
                "{curve} k·Q good job {i}"
            ),
        }
    }

    // double: bad u₁ (above), bad u₂ at other places, bad points
    let mut want_double = want_point.clone();
    for &(i, s) in &[(10usize, uint(&n)), (45, uint(&(&n + 5u8)))] {
        k2[i] = s;
        want_double[i] = Some(bad_scalar.clone());
    }
    let got = be.mul_double_vartime(curve, &k, &k2, &q).unwrap();
    for i in 0..len {
        match &want_double[i] {
            Some(e) => assert_eq!(&got[i], e, "{curve} double bad job {i}"),
            None => {
                assert_eq!(
                    ok(&got[i]),
                    R::add(&R::mul_g(&k[i]), &R::mul(&q[i], &k2[i])),
                    "{curve} double good job {i}"
                )
            }
        }
    }
}

#[test]
fn bad_jobs_fail_alone() {
    check_bad_jobs::<RefP224>();
    check_bad_jobs::<RefP256>();
    check_bad_jobs::<RefP384>();
    check_bad_jobs::<RefP521>();
}
