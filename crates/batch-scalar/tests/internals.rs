//! Unit tests of the point code's internals (tables, recodings, formulas), kept out of the
//! library so that `cargo test` does not compile batch-scalar a second time as a test harness:
//! its backend inlines every curve's point formulas into a few large functions, and that
//! second build cost ~200 CPU-seconds (docs/PERF.md). Everything here goes through the
//! crate's public API; the kernels run through `batch_core::dev::Outline` where a test calls
//! them directly, so they inline as calls.

mod comb {
    use batch_core::curve::{CurveDef, P224, P256, P384, P521};
    use batch_core::num::digits::ModulusDigits;
    use batch_core::num::Uint;
    use batch_scalar::ecc::comb::*;
    use batch_scalar::ecc::point::{batch_normalize, AffineMonty, ProjectivePoint};

    use batch_core::dev::to_big;
    use num_bigint::BigInt;
    use rand::RngExt;

    /// The digit form holds each entry's coordinates as `x·2^(b·N) mod p` in `N` digits of `b`
    /// bits, at the SIMD backends' sizes (28-bit and 52-bit digits), for `G` and another point.
    #[test]
    fn comb_digits_hold_each_entry_in_montgomery_digits() {
        fn check<const L: usize>(c: &'static CurveDef<L>, n: usize, bits: usize) {
            // the tables' point arithmetic with calls for field operations (compile time)
            let c = &batch_core::dev::Outline(c);
            let p_limbs = c.p.modulus().0.to_vec();
            let p = ModulusDigits::new(&p_limbs, n, bits).expect("modulus");
            let g = CombTable::new(c, 4);
            let q2 = g.entry_vartime(0, 2); // 2·G, as another point
            for (table, w) in [(g, 4usize), (CombTable::for_point_vartime(c, &q2, 3), 3)] {
                let digits = CombDigits::new(c, &p, &table);
                assert_eq!((digits.w, digits.n), (w, n));
                for i in [0, table.windows() - 1] {
                    for j in [1, 1 << (w - 1)] {
                        let e = table.entry_vartime(i, j);
                        let want_x = p.to_monty_digits(&c.p.from_monty(&e.x).0);
                        let want_y = p.to_monty_digits(&c.p.from_monty(&e.y).0);
                        assert_eq!(&digits.entry(i, j)[..n], &want_x[..], "{:?} x", c.curve);
                        assert_eq!(&digits.entry(i, j)[n..], &want_y[..], "{:?} y", c.curve);
                    }
                }
            }
        }
        check(&P224, 9, 28);
        check(&P256, 10, 28);
        check(&P384, 15, 28);
        check(&P521, 20, 28);
        check(&P224, 5, 52);
        check(&P256, 6, 52);
        check(&P384, 8, 52);
        check(&P521, 11, 52);
    }

    /// The condition under which [`CombTable::mul`]'s Jacobian sum never meets `acc = entry`
    /// (its doc): below the top window `|s − d·2^(w·i)| < n`, and no multiple of `2^(w·(W−1))`
    /// lies in `[n − bound, n)`, `bound` the largest `|s|` before the top window; for every
    /// curve at the width its table uses (another width must pass it before it is used).
    #[test]
    fn top_window_is_safe() {
        use num_bigint::BigUint;
        for (curve, used) in [
            (P224.curve, W_P224),
            (P256.curve, W_P256),
            (P384.curve, W_P384),
            (P521.curve, W_P521),
        ] {
            let n = to_big(&curve.order().0);
            let w = used;
            let windows = booth_windows(curve.bits(), w);
            // largest |s| before window i: 2^(w−1)·(2^(w·i) − 1)/(2^w − 1)
            let bound = |i: usize| {
                (BigUint::from(1u8) << (w - 1)) * ((BigUint::from(1u8) << (w * i)) - 1u8)
                    / ((BigUint::from(1u8) << w) - 1u8)
            };
            let below_top =
                (1..windows - 1).all(|i| bound(i) + (BigUint::from(1u8) << (w - 1 + w * i)) < n);
            let t = w * (windows - 1);
            let lo = &n - bound(windows - 1);
            // the smallest multiple of 2^t at or above lo must be ≥ n
            let step = BigUint::from(1u8) << t;
            let first = (&lo + &step - 1u8) / &step * &step;
            assert!(
                below_top && first >= n,
                "{curve:?} w = {w}: the comb's Jacobian sum is not safe"
            );
        }
    }

    /// Σ d_i·2^(w·i) reconstructs k, with |d_i| ≤ 2^(w−1), for edge and random scalars.
    #[test]
    fn booth_digits_reconstruct_the_scalar() {
        let mut rng = rand::rng();
        for w in [4usize, 5, 6, 7, 8] {
            let bits = 256;
            let mut ks = vec![Uint::<4>::ZERO, Uint::ONE, Uint([u64::MAX; 4])];
            for _ in 0..50 {
                ks.push(Uint([
                    rng.random(),
                    rng.random(),
                    rng.random(),
                    rng.random(),
                ]));
            }
            ks.push(Uint([0, 0, 0, 1 << 63]));
            for k in ks {
                let windows = booth_windows(bits, w);
                let mut sum = BigInt::from(0);
                for i in (0..windows).rev() {
                    let (mag, neg) = booth_digit(&k, i, w);
                    assert!(mag <= 1 << (w - 1));
                    assert!(neg == 0 || neg == u64::MAX);
                    let d = if neg != 0 {
                        -BigInt::from(mag)
                    } else {
                        BigInt::from(mag)
                    };
                    sum = (sum << w) + d;
                }
                assert_eq!(sum, BigInt::from(to_big(&k.0)), "w={w} k={k:?}");
            }
        }
    }

    /// Table entries are the right multiples: window i, j == j·2^(w·i)·G by repeated doubling.
    #[test]
    fn table_entries_match_doubling() {
        let c = &batch_core::dev::Outline(&P256);
        let t = table_p256();
        let g = ProjectivePoint::from_affine(&AffineMonty { x: c.gx, y: c.gy }, c);
        let mut base = g;
        for i in 0..t.windows() {
            if i % 9 == 0 || i == t.windows() - 1 {
                let mut acc = base;
                for j in 1..=(1usize << (t.width() - 1)) {
                    if j > 1 {
                        acc = acc.add(&base, c);
                    }
                    if j % 7 == 1 || j == 1 << (t.width() - 1) {
                        let (a, _) = batch_normalize(c, &[acc])[0];
                        assert_eq!(t.entry_vartime(i, j), a, "window {i} multiple {j}");
                    }
                }
            }
            for _ in 0..t.width() {
                base = base.double(c);
            }
        }
    }
}

mod point {
    use batch_core::num::Uint;
    use batch_scalar::ecc::point::*;

    use batch_core::curve::{CurveDef, P224, P256, P384, P521};

    fn g<const L: usize>(c: &CurveDef<L>) -> ProjectivePoint<L> {
        ProjectivePoint::from_affine(&AffineMonty { x: c.gx, y: c.gy }, c)
    }

    fn affine<const L: usize>(c: &CurveDef<L>, p: &ProjectivePoint<L>) -> (AffineMonty<L>, u64) {
        batch_normalize(c, &[*p])[0]
    }

    fn eq<const L: usize>(c: &CurveDef<L>, a: &ProjectivePoint<L>, b: &ProjectivePoint<L>) -> bool {
        affine(c, a) == affine(c, b)
    }

    fn check<const L: usize>(c: &'static CurveDef<L>) {
        // the formulas inline with calls for field operations (`Outline`: compile time)
        let c = &batch_core::dev::Outline(c);
        let id = ProjectivePoint::identity(c);
        let g = g(c);
        let ga = AffineMonty { x: c.gx, y: c.gy };
        let g2 = g.double(c);
        let g3 = g2.add(&g, c);
        let mut neg_g = g;
        neg_g.neg_if(u64::MAX, c);
        // results are on the curve and not the identity
        for p in [g2, g3] {
            let (a, m) = affine(c, &p);
            assert_eq!(m, 0);
            assert_eq!(c.on_curve_mask(&a.x, &a.y), u64::MAX);
        }
        // doubling agrees with addition, mixed with full, identity laws, P + (−P)
        assert!(eq(c, &g.add(&g, c), &g2));
        assert!(eq(c, &g2.add_mixed(&ga, 0, c), &g3));
        assert!(eq(c, &g.add(&g2, c), &g3));
        assert!(eq(c, &id.add_mixed(&ga, 0, c), &g));
        assert!(eq(c, &g.add_mixed(&ga, 0, c), &g2));
        assert!(eq(
            c,
            &g3.add_mixed(&AffineMonty::default(), u64::MAX, c),
            &g3
        ));
        assert!(eq(c, &id.add(&g3, c), &g3));
        assert!(eq(c, &g3.add(&id, c), &g3));
        assert_eq!(g.add(&neg_g, c).is_identity_mask(), u64::MAX);
        assert_eq!(neg_g.add_mixed(&ga, 0, c).is_identity_mask(), u64::MAX);
        assert_eq!(id.double(c).is_identity_mask(), u64::MAX);
        assert_eq!(id.add(&id, c).is_identity_mask(), u64::MAX);
        assert!(!eq(c, &g2, &g3));
        // (2G + G) + 2G == 5G == 2(2G) + G, with a scaled (non-normalised) representation
        let g5a = g3.add(&g2, c);
        let g5b = g2.double(c).add(&g, c);
        assert!(eq(c, &g5a, &g5b));
        // batch normalisation with identities mixed in
        let pts = [g5a, id, g3, id, g2];
        let got = batch_normalize(c, &pts);
        for (p, r) in pts.iter().zip(&got) {
            assert_eq!(*r, affine(c, p));
        }
        assert_eq!(got[1], (AffineMonty::default(), u64::MAX));
        assert_eq!(batch_normalize(c, &[]), vec![]);
        // the variable-time inversion's normalisation: the same results
        assert_eq!(batch_normalize_vartime(c, &pts), got);
        assert_eq!(batch_normalize_vartime(c, &[]), vec![]);
        // the constant-time Jacobian doubling between conversions (`varbase`): the same
        // points as RCB's doubling, from scaled inputs, and the identity carried through —
        // from (0 : 1 : 0) and from a scaled (0 : λ : 0), which `to_projective` also yields
        let scaled_id = ProjectivePoint {
            x: Uint::ZERO,
            y: g5a.x,
            z: Uint::ZERO,
        };
        for p in [g, g2, g3, g5a, id, scaled_id] {
            let mut j = JacobianPoint::from_projective(&p, c);
            let mut want = p;
            for _ in 0..3 {
                j = j.double(c);
                want = want.double(c);
                assert!(eq(c, &j.to_projective(c), &want));
            }
            let back = JacobianPoint::from_projective(&p, c).to_projective(c);
            assert!(eq(c, &back, &p));
            assert_eq!(back.is_identity_mask(), p.is_identity_mask());
            assert!(!back.y.is_zero_vartime(), "a valid projective point");
        }
    }

    #[test]
    fn formulas_agree_on_all_curves() {
        check(&P224);
        check(&P256);
        check(&P384);
        check(&P521);
    }
}

mod recoding {
    use batch_core::curve::CurveDef;
    use batch_core::num::Uint;
    use batch_scalar::ecc::comb::CombTable;
    use batch_scalar::ecc::point::AffineMonty;
    use batch_scalar::ecc::recoding::*;

    use batch_core::curve::{P256, P384};
    use batch_scalar::ecc::comb::{table_p256, table_p384};
    use batch_scalar::ecc::point::batch_normalize;

    fn scalars<const L: usize>(c: &CurveDef<L>) -> Vec<Uint<L>> {
        let n = *c.n.modulus();
        let small = |v: u64| {
            let mut k = [0u64; L];
            k[0] = v;
            Uint(k)
        };
        let mut out = vec![small(0), small(1), small(2), small(3)];
        out.push(n.sbb(&small(1)).0);
        out.push(n.sbb(&small(2)).0);
        // Deterministic pseudo-random scalars below n (top limb cleared a little).
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..16 {
            let mut k = [0u64; L];
            for l in k.iter_mut() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                *l = s;
            }
            k[L - 1] >>= 1;
            out.push(Uint(k));
        }
        out
    }

    fn check<const L: usize>(c: &'static CurveDef<L>, table: &CombTable<L>) {
        // every method with calls for field operations (`Outline`: compile time)
        let c = &batch_core::dev::Outline(c);
        let g = AffineMonty { x: c.gx, y: c.gy };
        for k in scalars(c) {
            let reference = batch_normalize(c, &[Method::Comb.mul(c, &g, table, &k)])[0];
            for m in Method::ALL {
                let got = batch_normalize(c, &[m.mul(c, &g, table, &k)])[0];
                assert_eq!(
                    got, reference,
                    "{:?} on {:?} for k = {:x?}",
                    m, c.curve, k.0
                );
            }
        }
    }

    #[test]
    fn methods_agree_p256() {
        check(&P256, table_p256());
    }

    #[test]
    fn methods_agree_p384() {
        check(&P384, table_p384());
    }
}

mod straus {
    use batch_core::curve::CurveArith;
    use batch_core::num::Uint;
    use batch_scalar::ecc::point::{batch_normalize, AffineMonty, JacobianPoint, ProjectivePoint};
    use batch_scalar::ecc::straus::*;

    use batch_core::dev::to_big;
    use num_bigint::BigInt;
    use rand::RngExt;

    #[test]
    fn wnaf_reconstructs_and_is_sparse() {
        let mut rng = rand::rng();
        for w in [2usize, 4, 5, 7, 8] {
            let mut ks = vec![
                Uint::<4>::ZERO,
                Uint::ONE,
                Uint([u64::MAX; 4]),
                Uint([0, 0, 0, 1 << 63]),
            ];
            for _ in 0..50 {
                ks.push(Uint([
                    rng.random(),
                    rng.random(),
                    rng.random(),
                    rng.random(),
                ]));
            }
            for k in ks {
                let naf = wnaf_vartime(&k, w, 256);
                assert_eq!(naf.len(), 257);
                let mut sum = BigInt::from(0);
                for (i, &d) in naf.iter().enumerate().rev() {
                    if d != 0 {
                        assert!(d % 2 != 0 && d.unsigned_abs() < 1 << (w - 1), "digit {d}");
                        assert!(
                            naf[i + 1..(i + w).min(naf.len())].iter().all(|&e| e == 0),
                            "adjacent"
                        );
                    }
                    sum = (sum << 1) + d;
                }
                assert_eq!(sum, BigInt::from(to_big(&k.0)), "w={w}");
            }
        }
    }

    /// `G`'s odd multiples against the comb (`k·G` by table additions): every entry of a small
    /// table, and the first and last entries of each curve's width-`W_G` table.
    #[test]
    fn odd_multiples_match_comb() {
        use batch_core::curve::{P256, P521};
        use batch_scalar::ecc::comb::{table_p256, table_p521};
        fn check<const L: usize>(
            c: &impl CurveArith<L>,
            t: &OddMultiples<L>,
            comb: &batch_scalar::ecc::comb::CombTable<L>,
            ks: &[usize],
        ) {
            for &k in ks {
                let mut u = Uint::<L>::ZERO;
                u.0[0] = k as u64;
                let want = batch_normalize(c, &[comb.mul_vartime(c, &u)])[0].0;
                let got = t.entries()[(k - 1) / 2];
                assert_eq!((got.x, got.y), (want.x, want.y), "{k}·G");
            }
        }
        // the tables' point arithmetic with calls for field operations (compile time)
        let (p256, p521) = (
            &batch_core::dev::Outline(&P256),
            &batch_core::dev::Outline(&P521),
        );
        let small = OddMultiples::new(p256, 6);
        assert_eq!(small.entries().len(), 16);
        check(
            p256,
            &small,
            table_p256(),
            &(1..32).step_by(2).collect::<Vec<_>>(),
        );
        let last = (1 << (W_G - 1)) - 1;
        assert_eq!(g_odd_p256().entries().len(), 1 << (W_G - 2));
        check(p256, g_odd_p256(), table_p256(), &[1, 3, last - 2, last]);
        check(p521, g_odd_p521(), table_p521(), &[1, 3, last - 2, last]);
    }

    /// Paired doublings change nothing but the schedule: every job's result equals the
    /// one-at-a-time loop's, in a chunk of odd length (the last job alone) holding zero
    /// scalars, `Q = O`, `Q = ±G` (additions that meet the accumulator) and jobs whose top
    /// digits sit far apart (one accumulator still the identity while the other doubles).
    #[test]
    fn paired_doublings_match_single() {
        use batch_core::curve::P256;
        // the loop inline with calls for field operations (`Outline`: compile time)
        let c = &batch_core::dev::Outline(&P256);
        let mut rng = rand::rng();
        let mut random = || Uint::<4>(core::array::from_fn(|_| rng.random::<u64>() >> 1));
        let g = AffineMonty { x: c.gx, y: c.gy };
        let neg_g = AffineMonty {
            x: c.gx,
            y: c.p.neg(&c.gy),
        };
        let q = comb_point(c, &random());
        let mut jobs = vec![
            DoubleJob {
                u1: Uint::ZERO,
                u2: Uint::ZERO,
                q: None,
            },
            DoubleJob {
                u1: random(),
                u2: Uint::ZERO,
                q: Some(q),
            },
            DoubleJob {
                u1: Uint::ONE,
                u2: Uint::ONE,
                q: Some(g),
            },
            DoubleJob {
                u1: Uint::from_limbs(&[5]).unwrap(),
                u2: Uint::from_limbs(&[5]).unwrap(),
                q: Some(neg_g),
            },
            DoubleJob {
                u1: Uint::from_limbs(&[3]).unwrap(),
                u2: random(),
                q: Some(q),
            },
            DoubleJob {
                u1: random(),
                u2: random(),
                q: None,
            },
        ];
        for _ in 0..9 {
            jobs.push(DoubleJob {
                u1: random(),
                u2: random(),
                q: Some(q),
            });
        }
        assert_eq!(jobs.len() % 2, 1);
        let table = OddMultiples::new(c, 6);
        let single = mul_double_chunk_vartime(c, &table, &jobs);
        let paired = mul_double_chunk_paired_vartime(c, &table, &jobs);
        for (i, (s, p)) in single.iter().zip(&paired).enumerate() {
            assert_eq!((s.x, s.y, s.z), (p.x, p.y, p.z), "job {i}");
        }
        // and the results are right: 1·G + 1·G = 2G, 5·G + 5·(−G) = O
        let norm = |p: &ProjectivePoint<4>| batch_normalize(c, &[*p])[0];
        let two_g = ProjectivePoint::from_affine(&g, c).double(c);
        assert_eq!(norm(&paired[2]), norm(&two_g));
        assert_eq!(paired[3].is_identity_mask(), u64::MAX);
        assert_eq!(paired[0].is_identity_mask(), u64::MAX);
    }

    /// `k·G` as an affine point, by the comb.
    fn comb_point(c: &impl CurveArith<4>, k: &Uint<4>) -> AffineMonty<4> {
        let p = batch_scalar::ecc::comb::table_p256().mul_vartime(c, k);
        batch_normalize(c, &[p])[0].0
    }

    /// Jacobian formulas against the complete projective ones, exceptional cases included.
    #[test]
    fn jacobian_matches_projective() {
        use batch_core::curve::P256;
        // the formulas inline with calls for field operations (`Outline`: compile time)
        let c = &batch_core::dev::Outline(&P256);
        let ga = AffineMonty { x: c.gx, y: c.gy };
        let g = ProjectivePoint::from_affine(&ga, c);
        let norm = |p: ProjectivePoint<4>| batch_normalize(c, &[p])[0];
        let jg = JacobianPoint {
            x: c.gx,
            y: c.gy,
            z: *c.p.one(),
        };
        // 2G, 3G, 4G
        let j2 = jg.double_vartime(c);
        assert_eq!(norm(j2.to_projective(c)), norm(g.double(c)));
        let j3 = j2.add_affine_vartime(&ga, c);
        assert_eq!(norm(j3.to_projective(c)), norm(g.double(c).add(&g, c)));
        // G + G through the addition, G + (−G), identity + G, 2·identity
        assert_eq!(
            norm(jg.add_affine_vartime(&ga, c).to_projective(c)),
            norm(j2.to_projective(c))
        );
        let neg = AffineMonty {
            x: ga.x,
            y: c.p.neg(&ga.y),
        };
        assert!(jg.add_affine_vartime(&neg, c).is_identity_vartime());
        let id = JacobianPoint::identity(c);
        assert_eq!(
            norm(id.add_affine_vartime(&ga, c).to_projective(c)),
            norm(g)
        );
        assert!(id.double_vartime(c).is_identity_vartime());
        assert_eq!(id.to_projective(c).is_identity_mask(), u64::MAX);
        // a non-normalised Jacobian point (Z ≠ 1) plus an affine one
        let j4 = j3.add_affine_vartime(&ga, c);
        assert_eq!(norm(j4.to_projective(c)), norm(g.double(c).double(c)));
    }
}

mod varbase {
    use batch_core::num::Uint;
    use batch_scalar::ecc::point::{AffineMonty, ProjectivePoint};
    use batch_scalar::ecc::varbase::*;

    use batch_core::curve::{CurveDef, P224, P256, P384, P521};
    use batch_scalar::ecc::comb::{table_p224, table_p256, table_p384, table_p521, CombTable};
    use batch_scalar::ecc::point::batch_normalize;
    use rand::RngExt;

    /// k·Q against the comb (an independent path) for Q = G, and k·(2G) == (2k)·G, on the
    /// scalars where the windows' additions come closest to their exceptions: every `k` below
    /// 80 (identity accumulators, `k = 2d₀`), every `k` within 80 of `n` (the last window's
    /// `acc = ±entry`), top bits set, and random ones; and `Q = O`.
    fn check<const L: usize>(c: &'static CurveDef<L>, t: &CombTable<L>) {
        // the kernels inline with calls for field operations (`Outline`: compile time)
        let c = &batch_core::dev::Outline(c);
        let g = AffineMonty { x: c.gx, y: c.gy };
        let g2 = batch_normalize(c, &[ProjectivePoint::from_affine(&g, c).double(c)])[0].0;
        let n = *c.n.modulus();
        let small = |v: u64| Uint::from_limbs(&[v]).unwrap();
        let mut ks: Vec<Uint<L>> = (0..80).map(small).collect();
        ks.extend((1..=80).map(|v| n.sbb(&small(v)).0));
        let mut rng = batch_core::dev::rng(L as u64);
        for _ in 0..20 {
            let mut k = Uint::<L>(core::array::from_fn(|_| rng.random()));
            k.0[L - 1] &= n.0[L - 1] >> 1;
            ks.push(k);
        }
        ks.push(n.sbb(&small(1)).0.shr1());
        for k in ks {
            let want = batch_normalize(c, &[t.mul(c, &k)])[0];
            let got = batch_normalize(c, &[mul(c, &g, 0, &k)])[0];
            assert_eq!(got, want, "{:?} k={k:?}", c.curve);
            // k·(2G) = (2k mod n)·G
            let k2 = c.n.add(&k, &k);
            let got2 = batch_normalize(c, &[mul(c, &g2, 0, &k)])[0];
            assert_eq!(
                got2,
                batch_normalize(c, &[t.mul(c, &k2)])[0],
                "{:?} 2k, k={k:?}",
                c.curve
            );
            // the identity point gives the identity, whatever is in q
            assert_eq!(mul(c, &g, u64::MAX, &k).is_identity_mask(), u64::MAX);
            assert_eq!(
                mul(c, &AffineMonty::default(), u64::MAX, &k).is_identity_mask(),
                u64::MAX
            );
        }
    }

    #[test]
    fn matches_comb_on_every_curve() {
        check(&P224, table_p224());
        check(&P256, table_p256());
        check(&P384, table_p384());
        check(&P521, table_p521());
    }
}
