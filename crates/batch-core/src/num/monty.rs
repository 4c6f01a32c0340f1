//! Montgomery arithmetic modulo an odd `m < 2^(64L)`, with `R = 2^(64L)`.
//!
//! Values in Montgomery form are `x·R mod m`, fully reduced (`< m`) on entry and exit of every
//! function. Kernels (Koç–Acar–Kaliski 1996), picked per `L` by measurement on x86-64 with
//! portable Rust: multiplication is CIOS (coarsely integrated operand scanning) up to 24 limbs
//! and FIPS (finely integrated product scanning, columns in a 3-word accumulator) above;
//! squaring is CIOS up to 16 limbs and SOS above (the square with each off-diagonal product
//! once, then a row-wise reduction up to 24 limbs, a column-wise one above). All end in one
//! constant-time subtraction. Everything is constant-time in the operand values except functions
//! ending in `_vartime`; exponent *lengths* (limb counts) are public.

use super::{adc, mac, mask_from_bit, sbb, Uint};

/// Precomputed constants for one odd modulus.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MontyParams<const L: usize> {
    modulus: Uint<L>,
    /// `-m⁻¹ mod 2^64`.
    m0inv: u64,
    /// `R mod m`: the Montgomery form of 1.
    one: Uint<L>,
    /// `R² mod m`: converts into Montgomery form.
    r2: Uint<L>,
}

/// A Montgomery product kernel that a backend supplies for the exponentiations of its
/// scalar path (the avx2 backend's `mulx`/`adcx`/`adox` assembly), for any limb count in
/// [`super::dyn_monty::KERNEL_LIMBS`]. It must be constant-time in the operand values, and
/// give the portable kernel's results: [`MontyParams::mul_in`] does the final subtraction.
pub trait MontKernel: Sync {
    /// Writes `t` and returns `t_hi` with `t_hi·R + t = (a·b + u·m)/R` for the `u < R` that
    /// makes the division exact (`R = 2^(64·len)`, `m0inv = −m⁻¹ mod 2^64`), which is `< 2m`
    /// when `a·b < R·m`. `t`, `a`, `b` and `m` have one length.
    fn mul(&self, t: &mut [u64], a: &[u64], b: &[u64], m: &[u64], m0inv: u64) -> u64;

    /// [`Self::mul`] with `b = a`.
    fn square(&self, t: &mut [u64], a: &[u64], m: &[u64], m0inv: u64) -> u64 {
        self.mul(t, a, a, m, m0inv)
    }

    /// Narrower moduli keep the portable kernel (where the backend measured it faster).
    fn min_limbs(&self) -> usize {
        0
    }
}

impl<const L: usize> MontyParams<L> {
    /// Builds the constants. Panics unless `m` is odd and greater than 1 (in const context,
    /// a compile error). Runtime callers with untrusted input use [`Self::try_new`].
    pub const fn new(m: Uint<L>) -> Self {
        assert!(m.0[0] & 1 == 1, "Montgomery modulus must be odd");
        assert!(m.bits_vartime() > 1, "Montgomery modulus must exceed 1");
        Self::new_unchecked(m)
    }

    /// [`Self::new`] without its checks, for a modulus already validated (odd, `> 1`), and
    /// constant-time in its value: for secret moduli (RSA-CRT primes).
    pub const fn new_unchecked(m: Uint<L>) -> Self {
        // R mod m: start from 1 < m, double (constant-time) up to 2^(64L).
        let mut x = Uint::<L>::ONE;
        let mut k = 0;
        while k < 64 * L {
            x = mod_double(&x, &m);
            k += 1;
        }
        let one = x;
        while k < 128 * L {
            x = mod_double(&x, &m);
            k += 1;
        }
        Self {
            modulus: m,
            m0inv: neg_inv_word(m.0[0]),
            one,
            r2: x,
        }
    }

    /// The constants of [`Self::new_unchecked`], constant-time in `m`'s value (its bit
    /// length `k` is public), at run time and fast: `2^k mod m = 2^k − m` (one subtraction,
    /// since `2^(k−1) ≤ m < 2^k`), `64L − k` doublings to `R mod m`, then `R² mod m` as the
    /// Montgomery form of `2^(64L)`: with `64L = a·2^b` (`a` odd), `a` doublings give the form
    /// of `2^a` and `b` Montgomery squarings that of `2^(a·2^b)`. For a 1024-bit prime that is
    /// 1 doubling and 10 squarings instead of 2048 doublings: what a batch pays per secret
    /// modulus (RSA-CRT primes). For a validated modulus (odd, `> 1`).
    pub fn new_ct(m: &Uint<L>) -> Self {
        let k = super::bits_public(&m.0);
        let mut pow2k = Uint::<L>::ZERO;
        if k < 64 * L {
            pow2k.0[k / 64] = 1 << (k % 64);
        }
        let (mut x, _) = pow2k.sbb(m); // 2^k − m, exact (mod 2^64L when k = 64L)
        for _ in k..64 * L {
            x = mod_double(&x, m);
        }
        let mut p = Self {
            modulus: *m,
            m0inv: neg_inv_word(m.0[0]),
            one: x,
            r2: Uint::ZERO,
        };
        let (a, b) = (
            (64 * L) >> (64 * L).trailing_zeros(),
            (64 * L).trailing_zeros(),
        );
        for _ in 0..a {
            x = mod_double(&x, m);
        }
        for _ in 0..b {
            x = p.square(&x);
        }
        p.r2 = x;
        p
    }

    /// The same constants as [`Self::new`], for a **public** modulus (an RSA verification
    /// key): `R mod m` and `R² mod m` by long division ([`super::rem_vartime`], about one
    /// multiplication's work) instead of `128·L` constant-time modular doublings.
    /// Variable-time in `m`; never for secret moduli (RSA-CRT primes), which take
    /// [`Self::new_unchecked`]. Panics unless `m` is odd and greater than 1.
    pub fn new_vartime(m: &Uint<L>) -> Self {
        assert!(m.is_odd(), "Montgomery modulus must be odd");
        assert!(m.bits_vartime() > 1, "Montgomery modulus must exceed 1");
        let fit = |x: Vec<u64>| Uint::<L>::from_limbs(&x).expect("a remainder mod m fits");
        Self {
            modulus: *m,
            m0inv: neg_inv_word(m.0[0]),
            one: fit(super::pow2_rem_vartime(64 * L, &m.0)),
            r2: fit(super::pow2_rem_vartime(128 * L, &m.0)),
        }
    }

    /// Like [`Self::new`], `None` for an even modulus or one of at most 1.
    pub fn try_new(m: &Uint<L>) -> Option<Self> {
        // variable-time: for public moduli
        if !m.is_odd() || m.bits_vartime() < 2 {
            return None;
        }
        Some(Self::new(*m))
    }

    #[inline(always)]
    pub const fn modulus(&self) -> &Uint<L> {
        &self.modulus
    }

    /// Montgomery form of 1 (`R mod m`).
    #[inline(always)]
    pub const fn one(&self) -> &Uint<L> {
        &self.one
    }

    /// `R² mod m`.
    #[inline(always)]
    pub const fn r2(&self) -> &Uint<L> {
        &self.r2
    }

    /// Montgomery product `a·b·R⁻¹ mod m`, for `a·b < R·m` (e.g. `a < R`, `b < m`); `< m`.
    #[inline(always)]
    pub fn mul(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        if let (Some(a4), Some(b4)) = (self.p256_form(a), self.p256_form(b)) {
            let (t, t_hi) = redc_p256(wide_mul4(a4, b4));
            return self.final_sub(widen(t), t_hi);
        }
        // `L` is public; CIOS measured faster up to 24 limbs, FIPS beyond.
        let (t, t_hi) = if L <= 24 {
            mul_cios(&a.0, &b.0, &self.modulus.0, self.m0inv)
        } else {
            mul_fips(&a.0, &b.0, &self.modulus.0, self.m0inv)
        };
        self.final_sub(Uint(t), t_hi)
    }

    /// Montgomery square `a²·R⁻¹ mod m`, for `a < m`; `< m`.
    #[inline(always)]
    pub fn square(&self, a: &Uint<L>) -> Uint<L> {
        if let Some(a4) = self.p256_form(a) {
            let (t, t_hi) = redc_p256(sqr4(a4));
            return self.final_sub(widen(t), t_hi);
        }
        if let Some(a9) = self.p521_form(a) {
            return widen(redc_p521(sqr_wide(a9)));
        }
        let m = &self.modulus.0;
        // `L` is public. Measured (docs in the module header): up to 16 limbs the separate
        // square does not beat CIOS; the column-wise reduction wins from 32 limbs on.
        let (t, t_hi) = if L <= 16 {
            mul_cios(&a.0, &a.0, m, self.m0inv)
        } else if L <= 24 {
            redc_rows(sqr_wide(&a.0), m, self.m0inv)
        } else {
            redc_fips(sqr_wide(&a.0), m, self.m0inv)
        };
        self.final_sub(Uint(t), t_hi)
    }

    /// `a`'s limbs where this is P-256's field (`L = 4` and `m = p₂₅₆`), whose Montgomery
    /// reduction needs one multiplication per word instead of four ([`redc_p256`]). Where
    /// the parameters are a constant (the curve code's `P256.p`, inlined) the test folds away;
    /// elsewhere it compares public data: `L` first, then `m0inv` (1 only for `m ≡ −1 mod
    /// 2^64`), then the modulus.
    #[inline(always)]
    fn p256_form<'a>(&self, a: &'a Uint<L>) -> Option<&'a [u64; 4]> {
        self.shaped(a, &P256_P)
    }

    /// `a`'s limbs where the modulus is `prime` (`−prime⁻¹ ≡ 1 mod 2^64`, as for P-256 and
    /// P-521): `L`, then `m0inv`, then the modulus compared, all public.
    #[inline(always)]
    fn shaped<'a, const K: usize>(&self, a: &'a Uint<L>, prime: &[u64; K]) -> Option<&'a [u64; K]> {
        if L == K && self.m0inv == 1 && self.modulus.0[..] == prime[..] {
            a.0.first_chunk::<K>()
        } else {
            None
        }
    }

    /// `a`'s limbs where this is P-521's field (`L = 9` and `m = 2^521 − 1`), whose Montgomery
    /// reduction needs no multiplication at all ([`redc_p521`]). Only the squaring takes it
    /// (each off-diagonal product once: 45 multiplications where CIOS has 81 for the product
    /// and the reduction's, which LLVM turns into shifts and subtractions for this all-ones
    /// modulus). Measured with `avx2bench`'s scalar rows (docs/PERF.md): products through it
    /// too made `k·G` 1–3 % slower than CIOS; the squaring alone gives `k·Q` and
    /// `u₁·G + u₂·Q` 6–9 % and `k·G` 3–4 %, where the same square under the generic
    /// row-wise reduction loses 15–19 %. Folds away for the curve code's constant `P521.p`,
    /// as [`Self::p256_form`] does; elsewhere it compares public data.
    #[inline(always)]
    fn p521_form<'a>(&self, a: &'a Uint<L>) -> Option<&'a [u64; 9]> {
        self.shaped(a, &P521_P)
    }

    /// Reduces `t_hi·R + t` (known `< 2m`) to `< m`.
    #[inline(always)]
    fn final_sub(&self, t: Uint<L>, t_hi: u64) -> Uint<L> {
        let (d, borrow) = t.sbb(&self.modulus);
        // Keep `t` only when the full value t_hi·R + t is below m.
        let (_, keep) = sbb(t_hi, 0, borrow);
        Uint::select(&d, &t, mask_from_bit(keep))
    }

    /// `a + b mod m` for `a, b < m`.
    #[inline(always)]
    pub fn add(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        let (s, carry) = a.adc(b);
        self.final_sub(s, carry)
    }

    /// `a - b mod m` for `a, b < m`.
    #[inline(always)]
    pub fn sub(&self, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        let (d, borrow) = a.sbb(b);
        let mut masked = self.modulus;
        let mask = mask_from_bit(borrow);
        for w in masked.0.iter_mut() {
            *w &= mask;
        }
        d.adc(&masked).0
    }

    /// `-a mod m` for `a < m`.
    #[inline(always)]
    pub fn neg(&self, a: &Uint<L>) -> Uint<L> {
        self.sub(&Uint::ZERO, a)
    }

    /// `2a mod m`.
    #[inline(always)]
    pub fn double(&self, a: &Uint<L>) -> Uint<L> {
        self.add(a, a)
    }

    /// Into Montgomery form; accepts any `a < R` and reduces it modulo `m`.
    #[inline(always)]
    pub fn to_monty(&self, a: &Uint<L>) -> Uint<L> {
        self.mul(a, &self.r2)
    }

    /// Out of Montgomery form.
    #[inline(always)]
    pub fn from_monty(&self, a: &Uint<L>) -> Uint<L> {
        self.mul(a, &Uint::ONE)
    }

    /// `x mod m` for a little-endian limb slice of any length (Horner over `L`-limb chunks,
    /// in Montgomery form). Constant-time in the value; the length is public.
    pub fn reduce_limbs(&self, x: &[u64]) -> Uint<L> {
        self.reduce_limbs_in(None, x)
    }

    /// [`Self::reduce_limbs`] with its products on `k` (see [`Self::mul_in`]).
    pub fn reduce_limbs_in(&self, k: Option<&dyn MontKernel>, x: &[u64]) -> Uint<L> {
        let mut acc = Uint::<L>::ZERO; // Montgomery form
        let chunks = x.len().div_ceil(L).max(1);
        for c in (0..chunks).rev() {
            let lo = (c * L).min(x.len());
            let hi = ((c + 1) * L).min(x.len());
            let chunk = Uint::<L>::from_limbs(&x[lo..hi]).expect("chunk fits");
            // acc·R + chunk, in Montgomery form: mul(acc, R²) = acc·R·R/R·... = M(acc·R).
            acc = self.mul_in(k, &acc, &self.r2);
            acc = self.add(&acc, &self.mul_in(k, &chunk, &self.r2));
        }
        self.mul_in(k, &acc, &Uint::ONE)
    }

    /// [`Self::mul`] on `k` where a backend supplies one (see [`MontKernel`]), else the
    /// portable kernel.
    #[inline(always)]
    pub fn mul_in(&self, k: Option<&dyn MontKernel>, a: &Uint<L>, b: &Uint<L>) -> Uint<L> {
        match k {
            Some(k) if L >= k.min_limbs() => {
                let mut t = [0u64; L];
                let t_hi = k.mul(&mut t, &a.0, &b.0, &self.modulus.0, self.m0inv);
                self.final_sub(Uint(t), t_hi)
            }
            _ => self.mul(a, b),
        }
    }

    /// [`Self::square`] on `k` where a backend supplies one, else the portable kernel.
    #[inline(always)]
    pub fn square_in(&self, k: Option<&dyn MontKernel>, a: &Uint<L>) -> Uint<L> {
        match k {
            Some(k) if L >= k.min_limbs() => {
                let mut t = [0u64; L];
                let t_hi = k.square(&mut t, &a.0, &self.modulus.0, self.m0inv);
                self.final_sub(Uint(t), t_hi)
            }
            _ => self.square(a),
        }
    }

    /// `a^e` in Montgomery form (`a` in Montgomery form) with a fixed `w`-bit window
    /// (`1 <= w <= 7`) over all `64·e.len()` exponent bits; every table entry is read at each
    /// step. Constant-time in `a` and the value of `e`.
    pub fn pow(&self, a: &Uint<L>, e: &[u64], w: usize) -> Uint<L> {
        self.pow_in(None, a, e, w)
    }

    /// [`Self::pow`] with its products on `k` (see [`Self::mul_in`]).
    // NOTE: the exponent's limb count (not its value) sets the running time.
    pub fn pow_in(&self, k: Option<&dyn MontKernel>, a: &Uint<L>, e: &[u64], w: usize) -> Uint<L> {
        assert!((1..=7).contains(&w));
        let n = 1usize << w;
        let mut table = vec![self.one; n];
        if n > 1 {
            table[1] = *a;
        }
        for i in 2..n {
            table[i] = self.mul_in(k, &table[i - 1], a);
        }
        let bits = 64 * e.len();
        let windows = bits.div_ceil(w);
        let mut acc = self.one;
        for j in (0..windows).rev() {
            if j != windows - 1 {
                for _ in 0..w {
                    acc = self.square_in(k, &acc);
                }
            }
            let idx = super::window(e, j * w, w);
            let entry = ct_lookup(&table, idx);
            acc = self.mul_in(k, &acc, &entry);
        }
        acc
    }

    /// `a^e` in Montgomery form by left-to-right square-and-multiply, skipping zero bits.
    /// For public exponents only.
    pub fn pow_vartime(&self, a: &Uint<L>, e: &[u64]) -> Uint<L> {
        self.pow_vartime_in(None, a, e)
    }

    /// [`Self::pow_vartime`] with its products on `k` (see [`Self::mul_in`]). The top bit
    /// starts from `a` itself (no squaring of 1, no product by 1).
    pub fn pow_vartime_in(&self, k: Option<&dyn MontKernel>, a: &Uint<L>, e: &[u64]) -> Uint<L> {
        match super::bits_vartime(e) {
            0 => self.one,
            bits => self.pow_bits_vartime(k, a, e, bits, 0),
        }
    }

    /// Left-to-right square-and-multiply over `e`'s bits `bits − 2` down to `low`, starting
    /// from `a` for the top bit `bits − 1` (`bits ≥ 1`): `a^(e >> low)`, Montgomery form.
    fn pow_bits_vartime(
        &self,
        k: Option<&dyn MontKernel>,
        a: &Uint<L>,
        e: &[u64],
        bits: usize,
        low: usize,
    ) -> Uint<L> {
        let mut acc = *a;
        for i in (low..bits - 1).rev() {
            acc = self.square_in(k, &acc);
            if (e[i / 64] >> (i % 64)) & 1 == 1 {
                acc = self.mul_in(k, &acc, a);
            }
        }
        acc
    }

    /// `a^e mod m` for `a < R` and `e` public, **in and out of Montgomery form**: one product
    /// into it, and the last step's product leaves it, by `a` itself where `e` is odd
    /// (`x·R · a / R = x·a`) and by 1 otherwise. An RSA verification (`e = 65537`) takes 16
    /// squarings and 2 products, against 16 and 3 for [`Self::pow_vartime_in`] between
    /// [`Self::to_monty`] and [`Self::from_monty`].
    pub fn pow_vartime_plain_in(
        &self,
        k: Option<&dyn MontKernel>,
        a: &Uint<L>,
        e: &[u64],
    ) -> Uint<L> {
        let bits = super::bits_vartime(e);
        if bits == 0 {
            return Uint::ONE; // m > 1
        }
        if bits == 1 {
            // a mod m, also for an unreduced a < R, as the general case gives it
            return self.mul_in(k, &self.mul_in(k, a, &self.r2), &Uint::ONE);
        }
        let am = self.mul_in(k, a, &self.r2);
        let acc = self.pow_bits_vartime(k, &am, e, bits, 1);
        let acc = self.square_in(k, &acc);
        let last = if e[0] & 1 == 1 { *a } else { Uint::ONE };
        self.mul_in(k, &acc, &last)
    }

    /// Inverse in Montgomery form for any odd modulus, by safegcd
    /// ([`super::safegcd::inv_odd_uint`]) and two products: `a·R ↦ a⁻¹·R`; 0 and values
    /// sharing a factor with `m` map to 0. Constant-time; faster than [`Self::inv_prime`] at
    /// every width, 3× at 256 bits, 12× at 521, 28× at 1024 (`batch-core/examples/invbench.rs`,
    /// docs/PERF.md).
    pub fn inv(&self, a: &Uint<L>) -> Uint<L> {
        let (t, _) = super::safegcd::inv_odd_uint(a, &self.modulus); // a⁻¹·R⁻¹
        let t = self.mul(&t, &self.r2); // a⁻¹
        self.mul(&t, &self.r2) // a⁻¹·R
    }

    /// [`Self::inv`] in variable time, for public values (ECDSA verification's `s`).
    pub fn inv_vartime(&self, a: &Uint<L>) -> Uint<L> {
        let t = super::safegcd::inv_odd_uint_vartime(a, &self.modulus).unwrap_or(Uint::ZERO);
        let t = self.mul(&t, &self.r2);
        self.mul(&t, &self.r2)
    }

    /// Inverse in Montgomery form by Fermat's little theorem; **`m` must be prime**.
    /// Returns 0 for 0. Constant-time.
    pub fn inv_prime(&self, a: &Uint<L>) -> Uint<L> {
        let (e, _) = self.modulus.sbb(&Uint::from_limbs(&[2]).expect("fits"));
        self.pow(a, &e.0, 4)
    }
}

impl<const L: usize> MontyParams<L> {
    /// A square root in Montgomery form of Montgomery-form `a` for a **prime** `m`, or `None`
    /// if `a` is not a square. `p ≡ 3 (mod 4)` (P-256, P-384, P-521) takes one power,
    /// `a^((p+1)/4)`; otherwise (P-224: `p − 1 = 2^96·(2^128 − 1)`) Tonelli–Shanks, with the
    /// smallest non-residue found by Euler's criterion. Which root comes back is unspecified.
    /// Variable-time: for public values (point decompression) only.
    pub fn sqrt_prime_vartime(&self, a: &Uint<L>) -> Option<Uint<L>> {
        let one = *self.one();
        if a.is_zero_vartime() {
            return Some(Uint::ZERO);
        }
        let (p_minus_1, _) = self.modulus.sbb(&Uint::ONE);
        let half = p_minus_1.shr1(); // (p − 1)/2
        let root = if self.modulus.0[0] & 3 == 3 {
            let e = half.adc(&Uint::ONE).0.shr1(); // (p + 1)/4
            self.pow_vartime(a, &e.0)
        } else {
            // p − 1 = 2^s·q, q odd
            let (mut q, mut s) = (p_minus_1, 0u32);
            while q.0[0] & 1 == 0 {
                q = q.shr1();
                s += 1;
            }
            let minus_one = self.neg(&one);
            let mut z = one;
            loop {
                z = self.add(&z, &one);
                if self.pow_vartime(&z, &half.0) == minus_one {
                    break;
                }
            }
            let mut c = self.pow_vartime(&z, &q.0);
            let mut t = self.pow_vartime(a, &q.0);
            let mut r = self.pow_vartime(a, &q.adc(&Uint::ONE).0.shr1().0); // a^((q+1)/2)
            let mut m = s;
            while t != one {
                // the least i with t^(2^i) = 1; none below m: a is not a square
                let (mut i, mut t2) = (0u32, t);
                while t2 != one {
                    t2 = self.square(&t2);
                    i += 1;
                    if i == m {
                        return None;
                    }
                }
                let mut b = c;
                for _ in 0..m - i - 1 {
                    b = self.square(&b);
                }
                m = i;
                c = self.square(&b);
                t = self.mul(&t, &c);
                r = self.mul(&r, &b);
            }
            r
        };
        (self.square(&root) == *a).then_some(root)
    }
}

impl<const L: usize> zeroize::Zeroize for MontyParams<L> {
    fn zeroize(&mut self) {
        self.modulus.zeroize();
        self.m0inv.zeroize();
        self.one.zeroize();
        self.r2.zeroize();
    }
}

/// Constant-time table lookup: reads every entry, keeps the one at `idx`.
#[inline(always)]
pub fn ct_lookup<const L: usize>(table: &[Uint<L>], idx: u64) -> Uint<L> {
    let mut out = Uint::<L>::ZERO;
    for (i, entry) in table.iter().enumerate() {
        let mask = super::ct_eq_mask(i as u64, idx);
        for j in 0..L {
            out.0[j] |= entry.0[j] & mask;
        }
    }
    out
}

/// A 192-bit column accumulator `l + m·2^64 + h·2^128`.
#[derive(Clone, Copy)]
struct Acc {
    l: u64,
    m: u64,
    h: u64,
}

impl Acc {
    const ZERO: Self = Self { l: 0, m: 0, h: 0 };

    /// `self += x·y`.
    #[inline(always)]
    fn mac(&mut self, x: u64, y: u64) {
        let p = (x as u128) * (y as u128);
        let (l, c) = self.l.overflowing_add(p as u64);
        let t = (self.m as u128) + (p >> 64) + (c as u128);
        self.l = l;
        self.m = t as u64;
        self.h = self.h.wrapping_add((t >> 64) as u64);
    }

    /// `self += Σ x[i]·y[i]` over the common length.
    #[inline(always)]
    fn dot(&mut self, x: &[u64], y: &[u64]) {
        let n = x.len().min(y.len());
        let (x, y) = (&x[..n], &y[..n]);
        let (xc, yc) = (x.chunks_exact(4), y.chunks_exact(4));
        let (xr, yr) = (xc.remainder(), yc.remainder());
        for (x4, y4) in xc.zip(yc) {
            self.mac(x4[0], y4[0]);
            self.mac(x4[1], y4[1]);
            self.mac(x4[2], y4[2]);
            self.mac(x4[3], y4[3]);
        }
        for (x, y) in xr.iter().zip(yr) {
            self.mac(*x, *y);
        }
    }

    /// `self += x`.
    #[inline(always)]
    fn add_word(&mut self, x: u64) {
        let (l, c) = self.l.overflowing_add(x);
        let (m, c) = self.m.overflowing_add(c as u64);
        self.l = l;
        self.m = m;
        self.h = self.h.wrapping_add(c as u64);
    }

    /// `self += x`.
    #[inline(always)]
    fn add(&mut self, x: Acc) {
        let (l, c) = self.l.overflowing_add(x.l);
        let t = (self.m as u128) + (x.m as u128) + (c as u128);
        self.l = l;
        self.m = t as u64;
        self.h = self.h.wrapping_add(x.h).wrapping_add((t >> 64) as u64);
    }

    /// Drops the low word: `self >> 64`.
    #[inline(always)]
    fn shift(self) -> Self {
        Self {
            l: self.m,
            m: self.h,
            h: 0,
        }
    }
}

/// `x` with its limbs in reverse order, so that a column `Σ x_i·y_(k-i)` becomes a forward dot
/// product.
#[inline(always)]
fn rev<const L: usize>(x: &[u64; L]) -> [u64; L] {
    let mut r = *x;
    r.reverse();
    r
}

/// P-256's field prime `2^256 − 2^224 + 2^192 + 2^96 − 1`, little-endian limbs.
const P256_P: [u64; 4] = [
    0xffff_ffff_ffff_ffff,
    0x0000_0000_ffff_ffff,
    0,
    0xffff_ffff_0000_0001,
];

/// `[0u64; L]` with `t` in its low `K` limbs (`K = L` wherever it is called).
#[inline(always)]
fn widen<const L: usize, const K: usize>(t: [u64; K]) -> Uint<L> {
    let mut out = [0u64; L];
    out[..K].copy_from_slice(&t);
    Uint(out)
}

/// The double-width product `a·b` as `[low half, high half]`, operand scanning.
#[inline(always)]
fn wide_mul4(a: &[u64; 4], b: &[u64; 4]) -> [[u64; 4]; 2] {
    let mut w = [0u64; 8];
    for (i, &bi) in b.iter().enumerate() {
        let mut carry = 0;
        for (j, &aj) in a.iter().enumerate() {
            (w[i + j], carry) = mac(w[i + j], aj, bi, carry);
        }
        w[i + 4] = carry;
    }
    [[w[0], w[1], w[2], w[3]], [w[4], w[5], w[6], w[7]]]
}

/// The double-width square `a²` of four limbs as `[low half, high half]`: the six
/// off-diagonal products once, doubled by shifts, plus the four diagonal squares (ten
/// multiplications), written out so that nothing is called.
#[inline(always)]
fn sqr4(a: &[u64; 4]) -> [[u64; 4]; 2] {
    let mut w = [0u64; 8];
    let mut c;
    // off-diagonal triangle: rows a0·a[1..], a1·a[2..], a2·a3
    (w[1], c) = mac(0, a[0], a[1], 0);
    (w[2], c) = mac(0, a[0], a[2], c);
    (w[3], w[4]) = mac(0, a[0], a[3], c);
    (w[3], c) = mac(w[3], a[1], a[2], 0);
    (w[4], w[5]) = mac(w[4], a[1], a[3], c);
    (w[5], w[6]) = mac(w[5], a[2], a[3], 0);
    // doubled: w = 2w (w < 2^447 so nothing shifts out)
    w[7] = w[6] >> 63;
    for i in (2..7).rev() {
        w[i] = (w[i] << 1) | (w[i - 1] >> 63);
    }
    w[1] <<= 1;
    // plus the squares a_i² at words 2i, 2i+1
    let mut carry = 0;
    for i in 0..4 {
        let sq = (a[i] as u128) * (a[i] as u128);
        (w[2 * i], carry) = adc(w[2 * i], sq as u64, carry);
        (w[2 * i + 1], carry) = adc(w[2 * i + 1], (sq >> 64) as u64, carry);
    }
    [[w[0], w[1], w[2], w[3]], [w[4], w[5], w[6], w[7]]]
}

/// Montgomery reduction modulo P-256's prime of a double-width `w < R·p`, word by word, using
/// the prime's shape: `−p⁻¹ ≡ 1 (mod 2^64)`, so the quotient digit of word `i` is `u = w_i`
/// itself, and `w_i + u·p` clears word `i` leaving `u·2^32` on words `i+1, i+2` (from
/// `p₀ = 2^64 − 1` and `p₁ = 2^32 − 1`: `u·p₀ + u = u·2^64`, plus `u·p₁`) and `u·p₃` on words
/// `i+3, i+4` (`p₂ = 0`): one multiplication per word where the generic reduction has four.
/// Returns `(t, t_hi)` with `t_hi·R + t = (w + u·p)/R < 2p`, the contract of the generic
/// kernels. Constant-time: no branch, no data-dependent index.
#[inline(always)]
fn redc_p256(w: [[u64; 4]; 2]) -> ([u64; 4], u64) {
    let mut w = [
        w[0][0], w[0][1], w[0][2], w[0][3], w[1][0], w[1][1], w[1][2], w[1][3],
    ];
    // `pending` is the previous row's carry out of its last word, which is the word where
    // this row adds the high half of `u·p₃`: folded into that addend, which is at most
    // 2^64 − 2^32 and so cannot overflow.
    let mut pending = 0;
    for i in 0..4 {
        let u = w[i];
        let up3 = (u as u128) * (P256_P[3] as u128);
        let mut c;
        (w[i + 1], c) = adc(w[i + 1], u << 32, 0);
        (w[i + 2], c) = adc(w[i + 2], u >> 32, c);
        (w[i + 3], c) = adc(w[i + 3], up3 as u64, c);
        (w[i + 4], c) = adc(w[i + 4], ((up3 >> 64) as u64) + pending, c);
        pending = c;
    }
    ([w[4], w[5], w[6], w[7]], pending)
}

/// P-521's field prime `2^521 − 1`, little-endian limbs.
const P521_P: [u64; 9] = [
    u64::MAX,
    u64::MAX,
    u64::MAX,
    u64::MAX,
    u64::MAX,
    u64::MAX,
    u64::MAX,
    u64::MAX,
    0x1ff,
];

impl MontyParams<9> {
    /// `w·R⁻¹ mod p`, fully reduced, for a double-width `w = [low, high]` at most `(p − 1)²`
    /// (the product of two elements below `p`), where this is P-521's field: the reduction of
    /// [`Self::square`] without multiplications ([`redc_p521`]), for a field that forms the
    /// product with its own instructions (batch-avx2's `mulx`/`adcx`/`adox` P-521). Panics on
    /// any other modulus (a public comparison). Constant-time in `w`.
    #[inline(always)]
    pub fn redc_wide_p521(&self, w: [[u64; 9]; 2]) -> Uint<9> {
        assert!(
            self.p521_form(&Uint::ZERO).is_some(),
            "redc_wide_p521 on a modulus other than P-521's prime"
        );
        Uint(redc_p521(w))
    }
}

/// Montgomery reduction modulo P-521's prime `p = 2^521 − 1` of a double-width `w ≤ (p − 1)²`
/// (the product of two elements below `p`; `R = 2^576`), with no multiplication, fully
/// reduced. Write `w = H·R + L` (`L` the low nine words); then `w·R⁻¹ ≡ H + L·R⁻¹`, and
/// `R = 2^521·2^55 ≡ 2^55`, so `L·R⁻¹ ≡ L·2^−55 = ⌊L/2^55⌋ + (L mod 2^55)·2^−55`, where
/// `2^−55 ≡ 2^466`. Since `w < 2^1042`, `H < 2^466`: its bits and those of
/// `(L mod 2^55)·2^466` (bits 466 … 520) do not overlap, so `H' = H + (L mod 2^55)·2^466` is
/// an OR, below `2^521`, and the sum `s = H' + ⌊L/2^55⌋` is at most `2p − 1` (`s = 2p` would
/// need `L = 2^576 − 1` and `H = 2^466 − 1`, i.e. `w = 2^1042 − 1`). One carry chain forms
/// `t = s + 1`: its bit 521 is set exactly when `s ≥ p`, and then `t − 2^521 = s − p`;
/// otherwise the result is `t − 1 = s`. So a second chain subtracts `1 − bit` and the mask
/// drops bit 521. Constant-time: fixed shifts, masks and carry chains.
#[inline(always)]
fn redc_p521(w: [[u64; 9]; 2]) -> [u64; 9] {
    const TOP: u64 = 0x1ff; // bits 512 … 520, in limb 8
    let [lo, hi] = w;
    debug_assert!(hi[8] == 0 && hi[7] >> 18 == 0, "w ≤ (p − 1)² < 2^1042");
    // H' = H | (L mod 2^55)·2^466: bit 466 is bit 18 of limb 7
    let low = lo[0] << 9; // L's bits 0 … 54 at bits 9 … 63
    let mut h = hi;
    h[7] |= low << 9;
    h[8] = low >> 55;
    // t = H' + ⌊L/2^55⌋ + 1
    let mut t = [0u64; 9];
    let mut c = 1;
    for i in 0..9 {
        let above = if i < 8 { lo[i + 1] << 9 } else { 0 };
        (t[i], c) = adc(h[i], (lo[i] >> 55) | above, c);
    }
    debug_assert_eq!(c, 0, "t ≤ 2p < 2^522");
    // bit 521 clear: s < p, take t − 1; set: take t − 2^521
    let mut borrow = (t[8] >> 9) ^ 1;
    for x in t.iter_mut() {
        (*x, borrow) = sbb(*x, 0, borrow);
    }
    t[8] &= TOP;
    t
}

/// Coarsely integrated operand scanning: row `i` adds `a·b_i`, then `u·m` with `u` chosen to
/// clear the low word, and shifts one word down. Returns `(t, t_hi)` with
/// `t_hi·R + t = (a·b + u·m)/R`, which is `< 2m` when `a·b < R·m`.
#[inline(always)]
fn mul_cios<const L: usize>(
    a: &[u64; L],
    b: &[u64; L],
    m: &[u64; L],
    m0inv: u64,
) -> ([u64; L], u64) {
    let mut t = [0u64; L];
    let mut t_hi = 0u64; // word L of the running sum; word L+1 is at most 1
    for i in 0..L {
        // t += a · b[i]
        let bi = b[i];
        let mut carry = 0;
        for j in 0..L {
            (t[j], carry) = mac(t[j], a[j], bi, carry);
        }
        let (s, t_top) = adc(t_hi, carry, 0);
        // t = (t + u·m) / 2^64 with u chosen so the low word cancels
        let u = t[0].wrapping_mul(m0inv);
        let (_, mut carry) = mac(t[0], u, m[0], 0);
        for j in 1..L {
            (t[j - 1], carry) = mac(t[j], u, m[j], carry);
        }
        let (s2, c2) = adc(s, carry, 0);
        t[L - 1] = s2;
        t_hi = t_top + c2;
    }
    (t, t_hi)
}

/// Finely integrated product scanning (Koç–Acar–Kaliski's FIPS): column `k` of `a·b + u·m`
/// is summed in a 3-word accumulator; in the low `L` columns the quotient digit `u_k` is
/// chosen to clear the column, the high `L` columns are the result. Returns `(t, t_hi)` with
/// `t_hi·R + t = (a·b + u·m)/R`, which is `< 2m` when `a·b < R·m`.
///
/// Limb indices are public (they depend on `L` and the loop counters only). The `a·b` part of
/// each low column goes to its own accumulator so it does not wait for the previous `u`.
#[inline(always)]
fn mul_fips<const L: usize>(
    a: &[u64; L],
    b: &[u64; L],
    m: &[u64; L],
    m0inv: u64,
) -> ([u64; L], u64) {
    let (br, mr) = (rev(b), rev(m));
    let mut u = [0u64; L];
    let mut t = [0u64; L];
    let mut acc = Acc::ZERO;
    for k in 0..L {
        // column k: a_i·b_(k-i) for i <= k, u_i·m_(k-i) for i < k
        let o = L - 1 - k;
        let mut c = Acc::ZERO;
        c.dot(&a[..=k], &br[o..]);
        acc.dot(&u[..k], &mr[o..L - 1]);
        acc.add(c);
        let uk = acc.l.wrapping_mul(m0inv);
        u[k] = uk;
        acc.mac(uk, m[0]);
        acc = acc.shift();
    }
    for k in L..2 * L - 1 {
        // column k: i from k-L+1 to L-1
        let lo = k + 1 - L;
        acc.dot(&a[lo..], &br);
        acc.dot(&u[lo..], &mr);
        t[k - L] = acc.l;
        acc = acc.shift();
    }
    t[L - 1] = acc.l;
    (t, acc.m)
}

/// The double-width square `a²` as `[low half, high half]`: each off-diagonal product once,
/// doubled, plus the diagonal.
#[inline(always)]
fn sqr_wide<const L: usize>(a: &[u64; L]) -> [[u64; L]; 2] {
    let mut w = [[0u64; L]; 2];
    let wf = w.as_flattened_mut();
    // off-diagonal triangle, row by row: w += a_i · a[i+1..] · 2^(64(2i+1))
    for i in 0..L - 1 {
        let ai = a[i];
        let mut carry = 0;
        for (wj, aj) in wf[2 * i + 1..i + L].iter_mut().zip(&a[i + 1..]) {
            (*wj, carry) = mac(*wj, ai, *aj, carry);
        }
        wf[i + L] = carry;
    }
    double_plus_squares(wf, a);
    w
}

/// `w = 2w + Σ a_i² · 2^(128i)` for `w` of `2·a.len()` limbs: turns the off-diagonal half of
/// a square into the square. The result must fit (it does when `w` was the off-diagonal
/// triangle of `a`). Constant-time.
pub fn double_plus_squares(w: &mut [u64], a: &[u64]) {
    assert_eq!(w.len(), 2 * a.len());
    let mut hi_bit = 0;
    let mut carry = 0;
    for (i, &ai) in a.iter().enumerate() {
        let (lo, hi) = (w[2 * i], w[2 * i + 1]);
        let d0 = (lo << 1) | hi_bit;
        let d1 = (hi << 1) | (lo >> 63);
        hi_bit = hi >> 63;
        let sq = (ai as u128) * (ai as u128);
        (w[2 * i], carry) = adc(d0, sq as u64, carry);
        (w[2 * i + 1], carry) = adc(d1, (sq >> 64) as u64, carry);
    }
}

/// Montgomery reduction of a double-width `w < R·m`, row by row (fixed-length rows, which LLVM
/// unrolls): `w += u_i·m·2^(64i)` clears word `i`. Returns `(t, t_hi)` with
/// `t_hi·R + t = (w + u·m)/R < 2m`.
#[inline(always)]
fn redc_rows<const L: usize>(mut w: [[u64; L]; 2], m: &[u64; L], m0inv: u64) -> ([u64; L], u64) {
    let mut top = 0; // carry out of word i+L, added at word i+L+1 by the next row
    let wf = w.as_flattened_mut();
    for i in 0..L {
        let u = wf[i].wrapping_mul(m0inv);
        let mut carry = 0;
        for (wj, mj) in wf[i..i + L].iter_mut().zip(m) {
            (*wj, carry) = mac(*wj, u, *mj, carry);
        }
        (wf[i + L], top) = adc(wf[i + L], carry, top);
    }
    (w[1], top)
}

/// Montgomery reduction of a double-width `w < R·m` by product scanning: column `k` sums
/// `w_k + Σ u_i·m_(k-i)` in a 3-word accumulator. Same result as [`redc_rows`].
#[inline(always)]
fn redc_fips<const L: usize>(w: [[u64; L]; 2], m: &[u64; L], m0inv: u64) -> ([u64; L], u64) {
    let mr = rev(m);
    let mut u = [0u64; L];
    let mut t = [0u64; L];
    let mut acc = Acc::ZERO;
    for k in 0..L {
        acc.add_word(w[0][k]);
        acc.dot(&u[..k], &mr[L - 1 - k..L - 1]);
        let uk = acc.l.wrapping_mul(m0inv);
        u[k] = uk;
        acc.mac(uk, m[0]);
        acc = acc.shift();
    }
    for k in L..2 * L {
        let lo = k + 1 - L;
        acc.add_word(w[1][k - L]);
        acc.dot(&u[lo..], &mr);
        t[k - L] = acc.l;
        acc = acc.shift();
    }
    (t, acc.l)
}

/// `-m0⁻¹ mod 2^64` for odd `m0` by Newton's iteration (`m0·m0 ≡ 1 (mod 8)` seeds 3 correct
/// bits, each step doubles them). Constant-time.
const fn neg_inv_word(m0: u64) -> u64 {
    let mut inv = m0;
    let mut i = 0;
    while i < 5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
}

/// `2x mod m` for `x < m` (const, used while building the parameters).
const fn mod_double<const L: usize>(x: &Uint<L>, m: &Uint<L>) -> Uint<L> {
    let (y, carry) = x.adc(x);
    let (z, borrow) = y.sbb(m);
    // take z when the doubling overflowed or y >= m
    let take_z = carry | (borrow ^ 1);
    let mask = take_z.wrapping_neg();
    let mut out = [0u64; L];
    let mut i = 0;
    while i < L {
        out[i] = y.0[i] ^ ((y.0[i] ^ z.0[i]) & mask);
        i += 1;
    }
    Uint(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::rand_big::RandBigInt;
    use num_bigint::BigUint;
    use proptest::prelude::*;

    fn big<const L: usize>(x: &Uint<L>) -> BigUint {
        BigUint::from_slice(
            &x.0.iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    fn from_big<const L: usize>(x: &BigUint) -> Uint<L> {
        Uint::from_limbs(&x.to_u64_digits()).unwrap()
    }

    fn check_modulus<const L: usize>(m: BigUint, rng: &mut impl rand::Rng) {
        let mu = from_big::<L>(&m);
        let p = MontyParams::new(mu);
        assert_eq!(MontyParams::new_vartime(&mu), p);
        let r = BigUint::from(1u8) << (64 * L);
        assert_eq!(big(p.one()), &r % &m);
        assert_eq!(big(p.r2()), (&r * &r) % &m);
        let edge = [BigUint::from(0u8), BigUint::from(1u8), &m - 1u8, &m - 2u8];
        let mut vals: Vec<BigUint> = edge.to_vec();
        for _ in 0..8 {
            vals.push(rng.gen_biguint_below(&m));
        }
        for a in &vals {
            for b in &vals {
                let (am, bm) = (p.to_monty(&from_big(a)), p.to_monty(&from_big(b)));
                assert_eq!(big(&p.from_monty(&p.mul(&am, &bm))), (a * b) % &m);
                assert_eq!(big(&p.from_monty(&p.add(&am, &bm))), (a + b) % &m);
                assert_eq!(big(&p.from_monty(&p.sub(&am, &bm))), (a + &m - b) % &m);
            }
            let e = rng.gen_biguint(64 * L as u64 / 2);
            let el = from_big::<L>(&e);
            let am = p.to_monty(&from_big(a));
            let want = a.modpow(&e, &m);
            for w in [1, 4, 5] {
                assert_eq!(big(&p.from_monty(&p.pow(&am, &el.0, w))), want);
            }
            assert_eq!(big(&p.from_monty(&p.pow_vartime(&am, &el.0))), want);
            // inversion (any odd modulus; 0 and non-invertible values map to 0)
            let inv = a.modinv(&m).unwrap_or_default();
            assert_eq!(big(&p.from_monty(&p.inv(&am))), inv, "inv {a:x} mod {m:x}");
            assert_eq!(big(&p.from_monty(&p.inv_vartime(&am))), inv);
        }
        assert_eq!(MontyParams::new_ct(&mu), p);
        // wide reduction
        let x = rng.gen_biguint(64 * 3 * L as u64 + 17);
        let xl = x.to_u64_digits();
        assert_eq!(big(&p.reduce_limbs(&xl)), &x % &m);
    }

    #[test]
    fn matches_num_bigint_on_random_moduli() {
        let mut rng = rand::rng();
        for _ in 0..10 {
            let mut m = rng.gen_biguint(256) | BigUint::from(1u8);
            if m.bits() < 2 {
                m = BigUint::from(3u8);
            }
            check_modulus::<4>(m, &mut rng);
            // small moduli in wide types (m much smaller than R)
            let m = rng.gen_biguint(70) | BigUint::from(1u8);
            check_modulus::<4>(m, &mut rng);
            let m = (rng.gen_biguint(1024) | BigUint::from(1u8)) | (BigUint::from(1u8) << 1023);
            check_modulus::<16>(m, &mut rng);
        }
        check_modulus::<1>(BigUint::from(3u8), &mut rng);
        check_modulus::<9>((BigUint::from(1u8) << 521) - 1u8, &mut rng);
        for _ in 0..5 {
            let m = rng.gen_biguint(521) | BigUint::from(1u8);
            check_modulus::<9>(m, &mut rng);
        }
        check_modulus::<2>((BigUint::from(1u8) << 128) - 1u8, &mut rng);
    }

    /// Products (`edges ∪ wide` × `edges`) and squares (`edges`) of `cp` and of the same
    /// parameters built at run time, against the generic CIOS kernel and num-bigint.
    fn check_mul_square_vs_generic<const L: usize>(
        cp: &MontyParams<L>,
        rinv: &BigUint,
        edges: &[Uint<L>],
        wide: &[Uint<L>],
    ) {
        let rt = MontyParams::new_vartime(cp.modulus());
        let m = big(cp.modulus());
        let generic = |a: &Uint<L>, b: &Uint<L>| {
            let (t, t_hi) = mul_cios(&a.0, &b.0, &cp.modulus().0, cp.m0inv);
            cp.final_sub(Uint(t), t_hi)
        };
        for a in edges.iter().chain(wide) {
            for b in edges {
                let want = generic(a, b);
                assert_eq!(big(&want), big(a) * big(b) * rinv % &m, "{a:?} · {b:?}");
                assert_eq!(cp.mul(a, b), want, "{a:?} · {b:?}");
                assert_eq!(rt.mul(a, b), want, "{a:?} · {b:?} (run-time parameters)");
            }
        }
        for a in edges {
            assert_eq!(cp.square(a), generic(a, a), "{a:?}²");
            assert_eq!(rt.square(a), generic(a, a), "{a:?}² (run-time parameters)");
        }
    }

    /// P-521's squaring through `redc_p521` against the generic kernel and num-bigint: edge
    /// values (0, 1, p − 1, p − 2, powers of two around bits 55 and 466, where it splits),
    /// random ones, a first operand up to `R − 1` for the products, the reduction alone on
    /// double-width values around its one decision, and Montgomery-form round trips.
    #[test]
    fn p521_reduction_matches_generic() {
        let cp = &crate::curve::P521.p;
        let rt = MontyParams::new_vartime(cp.modulus());
        assert_eq!(rt, *cp);
        assert!(rt.p521_form(&Uint::ZERO).is_some());
        // other 9-limb moduli keep the generic kernel, P-521's order among them
        assert!(crate::curve::P521.n.p521_form(&Uint::ZERO).is_none());
        let m = big(cp.modulus());
        let r: BigUint = BigUint::from(1u8) << 576usize;
        let rinv = r.modinv(&m).expect("R is invertible mod p");
        let pm = |k: u64| from_big::<9>(&(&m - k));
        let pow2 = |k: usize| from_big::<9>(&(BigUint::from(1u8) << k));
        let mut edges = vec![
            Uint::ZERO,
            Uint::ONE,
            pow2(1),
            pm(1),
            pm(2),
            *cp.one(),
            *cp.r2(),
            pow2(54),
            pow2(55),
            pow2(56),
            pow2(465),
            pow2(466),
            pow2(520),
            from_big(&((BigUint::from(1u8) << 55usize) - 1u8)),
            from_big(&((BigUint::from(1u8) << 520usize) - 1u8)),
        ];
        let mut rng = rand::rng();
        for _ in 0..64 {
            edges.push(from_big(&rng.gen_biguint_below(&m)));
        }
        // the contract allows a < R for one operand (into Montgomery form): up to 2^576 − 1
        let wide = [
            Uint([u64::MAX; 9]),
            from_big(&(&m + 1u8)),
            from_big(&(BigUint::from(1u8) << 575usize)),
            from_big(&rng.gen_biguint_below(&r)),
        ];
        check_mul_square_vs_generic(cp, &rinv, &edges, &wide);
        // the reduction alone on double-width values `w ≤ (p − 1)²` (its contract: a product
        // of two elements below p) around its one decision, `H' + ⌊L/2^55⌋` against p: equal
        // to p, one either side, the largest sum 2p − 1, and random ones
        let two55 = BigUint::from(1u8) << 55usize;
        let two466 = BigUint::from(1u8) << 466usize;
        let mut ws = vec![
            (&m - 1u8) * (&m - 1u8),
            BigUint::ZERO,
            m.clone(),
            &m * &two55,
            (&m - 1u8) * &two55,
            (&m + 1u8) * &two55,
            (&two466 - 1u8) * &r - 1u8,
        ];
        for j in [1u64, 2, 3, 1 << 30] {
            for lo55 in [0u64, 1, (1 << 55) - 1] {
                // L = (p − j)·2^55 + lo55 with H = 0 and with H = j − 1, which sums to p
                let l = (&m - j) * &two55 + lo55;
                ws.push(l.clone());
                ws.push(BigUint::from(j - 1) * &r + &l);
                ws.push(BigUint::from(j) * &r + &l);
            }
        }
        for _ in 0..64 {
            ws.push(rng.gen_biguint_below(&m) * rng.gen_biguint_below(&m));
        }
        for w in &ws {
            assert!(*w <= (&m - 1u8) * (&m - 1u8));
            let wide = from_big::<18>(w);
            let halves: [[u64; 9]; 2] = [
                wide.0[..9].try_into().unwrap(),
                wide.0[9..].try_into().unwrap(),
            ];
            let t = big(&Uint(redc_p521(halves)));
            assert!(t < m, "{w:x}: fully reduced");
            assert_eq!(t % &m, w * &rinv % &m, "{w:x}");
        }
        // into and out of Montgomery form round-trips every value below R
        for a in edges.iter().chain(&wide) {
            let want = from_big::<9>(&(big(a) % &m));
            assert_eq!(cp.from_monty(&cp.to_monty(a)), want, "{a:?}");
        }
    }

    /// P-256's special-form reduction against the generic CIOS kernel and against num-bigint:
    /// edge operands (0, 1, 2, `p − 1`, `p − 2`, `R mod p`, `2^255`, words of all ones or with
    /// a single high bit, and a first operand up to `R − 1`, which the product's contract
    /// `a·b < R·p` allows) and random ones, products and squares, through the curve's
    /// constant parameters and through parameters built at run time.
    #[test]
    fn p256_reduction_matches_generic() {
        let cp = &crate::curve::P256.p;
        let rt = MontyParams::new_vartime(cp.modulus());
        assert_eq!(rt, *cp);
        assert!(rt.p256_form(&Uint::ZERO).is_some());
        // other 4-limb moduli keep the generic kernel, P-256's order among them
        assert!(crate::curve::P256.n.p256_form(&Uint::ZERO).is_none());
        assert!(crate::curve::P224.p.p256_form(&Uint::ZERO).is_none());
        let m = big(cp.modulus());
        let r: BigUint = BigUint::from(1u8) << 256usize;
        let rinv = r.modinv(&m).expect("R is invertible mod p");
        let pm = |k: u64| from_big::<4>(&(&m - k));
        let mut edges = vec![
            Uint::ZERO,
            Uint::ONE,
            Uint([2, 0, 0, 0]),
            pm(1),
            pm(2),
            *cp.one(),
            Uint([0, 0, 0, 1 << 63]),
            Uint([u64::MAX, 0, 0, 0]),
            Uint([0, u64::MAX, u64::MAX, 0]),
            Uint([u64::MAX, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff]),
        ];
        let mut rng = rand::rng();
        for _ in 0..64 {
            edges.push(from_big(&rng.gen_biguint_below(&m)));
        }
        let wide = [Uint([u64::MAX; 4]), Uint([u64::MAX, 0, u64::MAX, u64::MAX])];
        check_mul_square_vs_generic(cp, &rinv, &edges, &wide);
    }

    /// Square roots: every residue mod 97 (`p − 1 = 2^5·3`, Tonelli–Shanks) and mod 103
    /// (`p ≡ 3 mod 4`) against squaring all values; on each curve's `p`, random squares come
    /// back as roots and a square times a non-residue has none.
    #[test]
    fn square_roots_mod_primes() {
        for m in [97u64, 103] {
            let p = MontyParams::<1>::new(Uint([m]));
            let squares: std::collections::BTreeSet<u64> = (0..m).map(|x| x * x % m).collect();
            for a in 0..m {
                let am = p.to_monty(&Uint([a]));
                let got = p.sqrt_prime_vartime(&am).map(|r| p.from_monty(&r).0[0]);
                assert_eq!(got.is_some(), squares.contains(&a), "sqrt {a} mod {m}");
                if let Some(r) = got {
                    assert_eq!(r * r % m, a, "sqrt {a} mod {m}");
                }
            }
        }
        fn curve<const L: usize>(c: &crate::curve::CurveDef<L>, rng: &mut impl rand::Rng) {
            let f = &c.p;
            let m = big(f.modulus());
            // a non-residue: −1 for p ≡ 3 mod 4; for P-224 the smallest one Euler finds
            let mut z = BigUint::from(2u8);
            while z.modpow(&((&m - 1u8) >> 1), &m) != &m - 1u8 {
                z += 1u8;
            }
            for _ in 0..8 {
                let x = rng.gen_biguint_below(&m);
                let sq = f.to_monty(&from_big(&(&x * &x % &m)));
                let r = f.sqrt_prime_vartime(&sq).expect("a square has a root");
                let r = big(&f.from_monty(&r));
                assert!(r == x || r == (&m - &x) % &m, "{:?}", c.curve);
                let non = f.to_monty(&from_big(&(&x * &x * &z % &m)));
                assert_eq!(f.sqrt_prime_vartime(&non), None, "{:?}", c.curve);
            }
        }
        let mut rng = rand::rng();
        curve(&crate::curve::P224, &mut rng);
        curve(&crate::curve::P256, &mut rng);
        curve(&crate::curve::P384, &mut rng);
        curve(&crate::curve::P521, &mut rng);
    }

    #[test]
    fn exponent_edges() {
        let m = Uint::<4>::from_be_hex(
            "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
        );
        let p = MontyParams::new(m);
        let a = p.to_monty(&Uint::from_limbs(&[12345]).unwrap());
        assert_eq!(p.pow(&a, &[0, 0], 5), *p.one());
        assert_eq!(p.pow(&a, &[1], 5), a);
        assert_eq!(p.pow(&a, &[], 5), *p.one());
        assert_eq!(p.pow_vartime(&a, &[]), *p.one());
        let inv = p.inv_prime(&a);
        assert_eq!(p.mul(&inv, &a), *p.one());
        assert_eq!(p.inv_prime(&Uint::ZERO), Uint::ZERO);
        let all_ones = [u64::MAX; 4];
        let b = BigUint::from(12345u32).modpow(&big(&Uint::<4>(all_ones)), &big(&m));
        assert_eq!(big(&p.from_monty(&p.pow(&a, &all_ones, 4))), b);
    }

    /// The public-exponent power in and out of Montgomery form against num-bigint: exponents
    /// 0 … 5, even and odd, 65537, one with a zero top limb and random ones; bases 0, 1,
    /// `m − 1`, random, and unreduced (`≥ m`, reduced like the other paths reduce them); at a
    /// width where `m` is far below `R` too.
    #[test]
    fn pow_vartime_plain_matches_bigint() {
        fn check<const L: usize>(m: Uint<L>, rng: &mut impl rand::Rng) {
            let p = MontyParams::new(m);
            let mb = big(&m);
            let mut bases = vec![
                Uint::ZERO,
                Uint::ONE,
                m.sbb(&Uint::ONE).0,
                Uint([u64::MAX; L]),
            ];
            for _ in 0..4 {
                bases.push(from_big(&(rng.gen_biguint(64 * L as u64) % &mb)));
            }
            let mut exps: Vec<Vec<u64>> = (0..6).map(|e| vec![e]).collect();
            exps.push(vec![65537]);
            exps.push(vec![65536, 0]);
            exps.push(vec![u64::MAX, 1]);
            for _ in 0..4 {
                exps.push(rng.gen_biguint(100).to_u64_digits());
            }
            for a in &bases {
                for e in &exps {
                    let eb = BigUint::from_slice(
                        &e.iter()
                            .flat_map(|&w| [w as u32, (w >> 32) as u32])
                            .collect::<Vec<_>>(),
                    );
                    let want = big(a).modpow(&eb, &mb);
                    assert_eq!(
                        big(&p.pow_vartime_plain_in(None, a, e)),
                        want,
                        "{a:?}^{e:?}"
                    );
                    if a.ct_lt_mask(&m) == u64::MAX {
                        let am = p.to_monty(a);
                        assert_eq!(big(&p.from_monty(&p.pow_vartime(&am, e))), want);
                    }
                }
            }
        }
        let mut rng = rand::rng();
        check(
            Uint::<4>::from_be_hex(
                "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
            ),
            &mut rng,
        );
        check(Uint::<4>([0xfff1, 0x3, 0, 0]), &mut rng);
        let mut m = Uint::<16>([0x9e37_79b9_7f4a_7c15; 16]);
        m.0[0] |= 1;
        check(m, &mut rng);
    }

    /// `square` against `mul(a, a)` and num-bigint, and `mul` against num-bigint, for a
    /// modulus built from `m` (forced odd; `shift` clears top bits so `m` can be far below R).
    fn check_square<const L: usize>(
        m: [u64; L],
        a: [u64; L],
        b: [u64; L],
        shift: u32,
    ) -> Result<(), TestCaseError> {
        let mut m = Uint::<L>(m);
        m.0[L - 1] >>= shift;
        m.0[0] |= 1;
        prop_assume!(m.bits_vartime() > 1);
        let p = MontyParams::new(m);
        let mb = big(&m);
        let r_inv = (BigUint::from(1u8) << (64 * L)).modinv(&mb).unwrap();
        let (ab, bb) = (big(&Uint(a)) % &mb, big(&Uint(b)) % &mb);
        let (x, y) = (from_big::<L>(&ab), from_big::<L>(&bb));
        let sq = p.square(&x);
        prop_assert_eq!(sq, p.mul(&x, &x));
        prop_assert_eq!(big(&sq), &ab * &ab * &r_inv % &mb);
        prop_assert_eq!(big(&p.mul(&x, &y)), &ab * &bb * &r_inv % &mb);
        // edges: 0, 1, m-1 (whose square has every word set in the high half)
        for e in [BigUint::from(0u8), BigUint::from(1u8), &mb - 1u8] {
            let x = from_big::<L>(&e);
            prop_assert_eq!(big(&p.square(&x)), &e * &e * &r_inv % &mb);
            prop_assert_eq!(p.square(&x), p.mul(&x, &x));
        }
        Ok(())
    }

    /// The variable-time and the fast constant-time setup against the doubling one (and
    /// num-bigint) for `m` at width `L`.
    fn check_vartime_setup<const L: usize>(m: &BigUint) -> Result<(), TestCaseError> {
        let mu = from_big::<L>(m);
        let ct = MontyParams::new_unchecked(mu);
        let vt = MontyParams::new_vartime(&mu);
        prop_assert_eq!(vt, ct, "m = {:x}", m);
        prop_assert_eq!(MontyParams::new_ct(&mu), ct, "new_ct, m = {:x}", m);
        let r = BigUint::from(1u8) << (64 * L);
        prop_assert_eq!(big(vt.one()), &r % m);
        prop_assert_eq!(big(vt.r2()), (&r * &r) % m);
        Ok(())
    }

    /// A random odd modulus of exactly `bits` bits (`bits ≥ 2`).
    fn odd_modulus(rng: &mut impl rand::Rng, bits: u64) -> BigUint {
        rng.gen_biguint(bits) | BigUint::from(1u8) | (BigUint::from(1u8) << (bits - 1))
    }

    /// Edge moduli of `bits` bits: `2^(bits−1) + 1`, `2^bits − 1`, `2^bits − 2^(bits/2) − 1`,
    /// `2^(bits−1) + 2^(bits−2) + 1` (where they are odd and above 1).
    fn edge_moduli(bits: usize) -> Vec<BigUint> {
        let one = || BigUint::from(1u8);
        let mut v = vec![(one() << bits) - 1u8];
        if bits >= 2 {
            v.push((one() << (bits - 1)) + 1u8);
        }
        if bits >= 3 {
            v.push((one() << (bits - 1)) + (one() << (bits - 2)) + 1u8);
            v.push((one() << bits) - (one() << (bits / 2)) - 1u8);
        }
        v.retain(|m| m.bit(0) && m.bits() >= 2);
        v
    }

    #[test]
    fn vartime_setup_edge_moduli() {
        fn at<const L: usize>(bits: &[usize]) {
            for &b in bits {
                for m in edge_moduli(b) {
                    check_vartime_setup::<L>(&m).unwrap();
                }
            }
        }
        at::<1>(&[2, 3, 5, 63, 64]);
        at::<2>(&[2, 64, 65, 127, 128]);
        at::<4>(&[2, 3, 65, 129, 192, 193, 255, 256]);
        at::<16>(&[512, 960, 1023, 1024]);
        at::<24>(&[1025, 1536]);
        at::<32>(&[1537, 2047, 2048]);
        at::<48>(&[2049, 3071, 3072]);
        at::<64>(&[3073, 4095, 4096]);
        at::<120>(&[4097, 7679, 7680]);
        // the smallest modulus, in wide types
        for m in [3u8, 5, 7] {
            check_vartime_setup::<4>(&BigUint::from(m)).unwrap();
            check_vartime_setup::<32>(&BigUint::from(m)).unwrap();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Random odd moduli of random sizes at the RSA widths (1024 … 4096 bits and the
        /// sizes between kernel widths) and small ones.
        #[test]
        fn vartime_setup_matches_constant_time(seed in any::<u64>(), frac in 0.0f64..1.0) {
            use rand::SeedableRng;
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let pick = |lo: usize, hi: usize| lo + ((hi - lo) as f64 * frac) as usize;
            check_vartime_setup::<1>(&odd_modulus(&mut rng, pick(2, 64) as u64))?;
            check_vartime_setup::<4>(&odd_modulus(&mut rng, pick(2, 256) as u64))?;
            check_vartime_setup::<16>(&odd_modulus(&mut rng, pick(513, 1024) as u64))?;
            check_vartime_setup::<16>(&odd_modulus(&mut rng, 1024))?;
            check_vartime_setup::<24>(&odd_modulus(&mut rng, 1536))?;
            check_vartime_setup::<32>(&odd_modulus(&mut rng, pick(1537, 2048) as u64))?;
            check_vartime_setup::<32>(&odd_modulus(&mut rng, 2048))?;
            check_vartime_setup::<48>(&odd_modulus(&mut rng, 3072))?;
            check_vartime_setup::<64>(&odd_modulus(&mut rng, pick(3073, 4096) as u64))?;
            check_vartime_setup::<64>(&odd_modulus(&mut rng, 4096))?;
        }
    }

    proptest! {
        #[test]
        fn square_matches_mul_and_num_bigint_small(m in any::<[u64; 4]>(), a in any::<[u64; 4]>(), b in any::<[u64; 4]>(), s in 0u32..64) {
            check_square(m, a, b, s)?;
            check_square([m[0]], [a[0]], [b[0]], s)?;
            check_square([m[0], m[1]], [a[0], a[1]], [b[0], b[1]], s)?;
        }

        #[test]
        fn square_matches_mul_and_num_bigint_6_9(m in any::<[u64; 9]>(), a in any::<[u64; 9]>(), b in any::<[u64; 9]>(), s in 0u32..64) {
            check_square(m, a, b, s)?;
            let six = |x: [u64; 9]| [x[0], x[1], x[2], x[3], x[4], x[5]];
            check_square(six(m), six(a), six(b), s)?;
        }

        #[test]
        fn square_matches_mul_and_num_bigint_16(m in any::<[u64; 16]>(), a in any::<[u64; 16]>(), b in any::<[u64; 16]>(), s in 0u32..64) {
            check_square(m, a, b, s)?;
        }

        #[test]
        fn square_matches_mul_and_num_bigint_32(m in any::<[u64; 32]>(), a in any::<[u64; 32]>(), b in any::<[u64; 32]>(), s in 0u32..64) {
            check_square(m, a, b, s)?;
        }

        // 24 limbs: row-wise reduction of the square; 60: column-wise, and FIPS multiplication.
        #[test]
        fn square_matches_mul_and_num_bigint_24_60(seed in any::<u64>(), s in 0u32..64) {
            use rand::{RngExt, SeedableRng};
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let (mut m, mut a, mut b) = ([0u64; 60], [0u64; 60], [0u64; 60]);
            for x in [&mut m, &mut a, &mut b] {
                rng.fill(&mut x[..]);
            }
            check_square(m, a, b, s)?;
            let r24 = |x: [u64; 60]| -> [u64; 24] { x[..24].try_into().unwrap() };
            check_square(r24(m), r24(a), r24(b), s)?;
        }

        #[test]
        fn mul_matches_num_bigint(a in any::<[u64; 6]>(), b in any::<[u64; 6]>(), m in any::<[u64; 6]>()) {
            let mut m = Uint::<6>(m);
            m.0[0] |= 1;
            prop_assume!(m.bits_vartime() > 1);
            let p = MontyParams::new(m);
            let (mb, ab, bb) = (big(&m), big(&Uint(a)) , big(&Uint(b)));
            let am = p.to_monty(&Uint(a));
            let bm = p.to_monty(&Uint(b));
            prop_assert_eq!(big(&p.from_monty(&p.mul(&am, &bm))), (ab * bb) % mb);
        }
    }
}
