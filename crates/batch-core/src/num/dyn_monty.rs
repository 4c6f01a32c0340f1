//! Montgomery arithmetic for a modulus whose size is known only at run time.
//!
//! [`DynMonty`] picks the smallest monomorphised width `N` in [`KERNEL_LIMBS`] that holds the
//! modulus, so every size runs a fully unrolled [`MontyParams<N>`] kernel. Values in and out
//! are canonical little-endian limbs (`< m`, [`DynMonty::limbs`] long); conversions into and
//! out of Montgomery form happen inside each call. Constant-time like [`MontyParams`], except
//! functions ending in `_vartime`.

use super::{bits_public, MontKernel, MontyParams, Uint};
use crate::backend::check_modulus;
use crate::{Error, MAX_MODULUS_BITS};

/// Limb counts with a monomorphised kernel: CRT halves and full moduli of RSA-2048 … 15360,
/// plus small sizes. A modulus runs on the smallest that holds it.
pub const KERNEL_LIMBS: [usize; 10] = [4, 8, 16, 24, 32, 48, 60, 64, 120, 240];

macro_rules! dyn_monty {
    ($($variant:ident => $n:literal),* $(,)?) => {
        #[derive(Clone, Debug)]
        enum Kernel { $($variant(Box<MontyParams<$n>>)),* }

        macro_rules! with_kernel {
            ($k:expr, $p:ident => $body:expr) => {
                match $k { $(Kernel::$variant($p) => $body),* }
            };
        }

        impl Kernel {
            /// `vartime`: `m` is public, so its constants may be computed in variable time
            /// ([`MontyParams::new_vartime`]); otherwise constant-time ([`MontyParams::new_ct`]).
            fn new(m: &[u64], width: usize, vartime: bool) -> Self {
                match width {
                    $($n => {
                        let m = Uint::from_limbs(m).expect("kernel width holds the modulus");
                        Kernel::$variant(Box::new(if vartime {
                            MontyParams::new_vartime(&m)
                        } else {
                            MontyParams::new_ct(&m)
                        }))
                    })*
                    _ => unreachable!("width comes from KERNEL_LIMBS"),
                }
            }
        }
    };
}

dyn_monty!(L4 => 4, L8 => 8, L16 => 16, L24 => 24, L32 => 32, L48 => 48, L60 => 60, L64 => 64, L120 => 120, L240 => 240);

/// Montgomery constants for one odd modulus of up to [`MAX_MODULUS_BITS`] bits.
#[derive(Clone, Debug)]
pub struct DynMonty {
    kernel: Kernel,
    limbs: usize,
}

fn fit<const N: usize>(x: &[u64]) -> Uint<N> {
    Uint::from_limbs(x).expect("operand wider than its modulus")
}

impl DynMonty {
    /// Prepares `m` (odd, `> 1`, at most [`MAX_MODULUS_BITS`] bits).
    /// Constant-time in `m`'s value except for its bit length (public by design): RSA-CRT
    /// primes are secret moduli.
    pub fn new(m: &[u64]) -> Result<Self, Error> {
        Self::build(m, false)
    }

    /// [`Self::new`] for a **public** modulus (an RSA verification key): the same constants,
    /// with `R mod m` and `R² mod m` by long division ([`MontyParams::new_vartime`]) —
    /// roughly the cost of one multiplication instead of `128·L` modular doublings, which
    /// cost more than a whole `e = 65537` exponentiation. Variable-time in `m`'s value;
    /// never for secret moduli (RSA-CRT primes).
    pub fn new_vartime(m: &[u64]) -> Result<Self, Error> {
        Self::build(m, true)
    }

    /// [`Self::new_vartime`] where `vartime` (the batch's moduli are public), else
    /// [`Self::new`]: what a backend calls for the moduli of a batch.
    pub fn build(m: &[u64], vartime: bool) -> Result<Self, Error> {
        check_modulus(m, MAX_MODULUS_BITS)?;
        let limbs = bits_public(m).div_ceil(64);
        let width = *KERNEL_LIMBS
            .iter()
            .find(|&&n| n >= limbs)
            .expect("MAX_MODULUS_BITS fits the widest kernel");
        Ok(Self {
            kernel: Kernel::new(&m[..limbs], width, vartime),
            limbs,
        })
    }

    /// Limbs of the modulus (and of every result).
    pub fn limbs(&self) -> usize {
        self.limbs
    }

    /// The modulus.
    pub fn modulus(&self) -> Vec<u64> {
        with_kernel!(&self.kernel, p => p.modulus().0[..self.limbs].to_vec())
    }

    /// `x mod m` for any length of `x`.
    pub fn reduce(&self, x: &[u64]) -> Vec<u64> {
        self.reduce_in(None, x)
    }

    /// [`Self::reduce`] with its products on a backend's kernel `k` (see [`MontKernel`]).
    pub fn reduce_in(&self, k: Option<&dyn MontKernel>, x: &[u64]) -> Vec<u64> {
        with_kernel!(&self.kernel, p => p.reduce_limbs_in(k, x).0[..self.limbs].to_vec())
    }

    /// `a·b mod m` for `a, b < m`.
    pub fn mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        self.mul_in(None, a, b)
    }

    /// [`Self::mul`] with its products on a backend's kernel `k` (see [`MontKernel`]).
    pub fn mul_in(&self, k: Option<&dyn MontKernel>, a: &[u64], b: &[u64]) -> Vec<u64> {
        with_kernel!(&self.kernel, p => {
            let t = p.mul_in(k, &fit(a), &fit(b)); // a·b/R
            p.mul_in(k, &t, p.r2()).0[..self.limbs].to_vec()
        })
    }

    /// The Montgomery product `a·b·R⁻¹ mod m` for `a, b < m` (`R = 2^(64·w)`, `w` the kernel
    /// width: the same `R` for every call on this modulus), on `k` where given: one product
    /// where [`Self::mul_in`] takes two. With `b` kept as `b·R mod m` ([`Self::to_monty_in`]),
    /// it is `a·b mod m`; with both so kept, the result is `a·b·R mod m`.
    pub fn mont_mul_in(&self, k: Option<&dyn MontKernel>, a: &[u64], b: &[u64]) -> Vec<u64> {
        with_kernel!(&self.kernel, p => p.mul_in(k, &fit(a), &fit(b)).0[..self.limbs].to_vec())
    }

    /// `a·R mod m` for `a < m` (see [`Self::mont_mul_in`]).
    pub fn to_monty_in(&self, k: Option<&dyn MontKernel>, a: &[u64]) -> Vec<u64> {
        with_kernel!(&self.kernel, p => p.mul_in(k, &fit(a), p.r2()).0[..self.limbs].to_vec())
    }

    /// `a + b mod m` for `a, b < m`.
    pub fn add(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        with_kernel!(&self.kernel, p => p.add(&fit(a), &fit(b)).0[..self.limbs].to_vec())
    }

    /// `a − b mod m` for `a, b < m`.
    pub fn sub(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        with_kernel!(&self.kernel, p => p.sub(&fit(a), &fit(b)).0[..self.limbs].to_vec())
    }

    /// `base^exp mod m` (`base < m`), constant-time in base and exponent value with a fixed
    /// window sized by the exponent's limb count.
    pub fn pow(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.pow_in(None, base, exp)
    }

    /// [`Self::pow`] with its products on a backend's kernel `k` (see [`MontKernel`]).
    pub fn pow_in(&self, k: Option<&dyn MontKernel>, base: &[u64], exp: &[u64]) -> Vec<u64> {
        let w = window_for(64 * exp.len());
        with_kernel!(&self.kernel, p => {
            let b = p.mul_in(k, &fit(base), p.r2());
            let r = p.pow_in(k, &b, exp, w);
            p.mul_in(k, &r, &Uint::ONE).0[..self.limbs].to_vec()
        })
    }

    /// `base^exp mod m` (`base < m`); the timing depends on the exponent (public) but not on
    /// the base's value.
    pub fn pow_vartime(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        self.pow_vartime_in(None, base, exp)
    }

    /// [`Self::pow_vartime`] with its products on a backend's kernel `k`.
    pub fn pow_vartime_in(
        &self,
        k: Option<&dyn MontKernel>,
        base: &[u64],
        exp: &[u64],
    ) -> Vec<u64> {
        with_kernel!(&self.kernel, p => {
            p.pow_vartime_plain_in(k, &fit(base), exp).0[..self.limbs].to_vec()
        })
    }

    /// `a⁻¹ mod m` (`a < m`) for any odd `m`, by safegcd ([`super::safegcd`]), constant-time;
    /// 0, and any `a` sharing a factor with `m`, maps to 0.
    pub fn inv(&self, a: &[u64]) -> Vec<u64> {
        with_kernel!(&self.kernel, p => {
            let (t, _) = super::safegcd::inv_odd_uint(&fit(a), p.modulus());
            t.0[..self.limbs].to_vec()
        })
    }
}

#[cfg(test)]
impl DynMonty {
    /// `(R mod m, R² mod m)` at the kernel width, for comparing setups.
    fn constants(&self) -> (Vec<u64>, Vec<u64>) {
        with_kernel!(&self.kernel, p => (p.one().0.to_vec(), p.r2().0.to_vec()))
    }
}

/// The constants of a secret modulus (an RSA prime) are wiped on drop.
impl Drop for DynMonty {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        with_kernel!(&mut self.kernel, p => p.zeroize());
    }
}

/// Window width for a constant-time exponent of `bits` bits: table cost `2^w` against
/// `bits / w` multiplications.
pub fn window_for(bits: usize) -> usize {
    match bits {
        0..=64 => 2,
        65..=256 => 4,
        257..=1536 => 5,
        _ => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::rand_big::RandBigInt;
    use num_bigint::BigUint;

    fn big(x: &[u64]) -> BigUint {
        BigUint::from_slice(
            &x.iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn every_width_matches_num_bigint() {
        let mut rng = rand::rng();
        for bits in [
            3usize, 200, 511, 1024, 1500, 2048, 3000, 3840, 4000, 7680, 9000, 15360,
        ] {
            let m = rng.gen_biguint(bits as u64)
                | BigUint::from(1u8)
                | (BigUint::from(1u8) << (bits - 1));
            let ml = m.to_u64_digits();
            let d = DynMonty::new(&ml).unwrap();
            assert_eq!(d.limbs(), ml.len());
            assert_eq!(big(&d.modulus()), m);
            let a = rng.gen_biguint_below(&m);
            let b = rng.gen_biguint_below(&m);
            let (al, bl) = (pad(&a, ml.len()), pad(&b, ml.len()));
            assert_eq!(big(&d.mul(&al, &bl)), (&a * &b) % &m, "{bits}");
            assert_eq!(big(&d.add(&al, &bl)), (&a + &b) % &m);
            assert_eq!(big(&d.sub(&al, &bl)), (&a + &m - &b) % &m);
            assert_eq!(
                big(&d.inv(&al)),
                a.modinv(&m).unwrap_or_default(),
                "inv, {bits}"
            );
            let wide = rng.gen_biguint(2 * bits as u64 + 5);
            assert_eq!(big(&d.reduce(&wide.to_u64_digits())), &wide % &m);
            if bits <= 2048 {
                let e = rng.gen_biguint(bits as u64);
                assert_eq!(big(&d.pow(&al, &e.to_u64_digits())), a.modpow(&e, &m));
                assert_eq!(
                    big(&d.pow_vartime(&al, &e.to_u64_digits())),
                    a.modpow(&e, &m)
                );
            }
        }
        assert!(DynMonty::new(&[4]).is_err());
        assert!(DynMonty::new(&[1]).is_err());
        assert!(DynMonty::new(&vec![u64::MAX; 241]).is_err());
    }

    /// The variable-time setup gives the constant-time one's constants at every kernel width,
    /// for random moduli (1024 … 4096 bits, sizes between widths, small ones) and edge ones.
    #[test]
    fn vartime_setup_matches_constant_time() {
        let mut rng = rand::rng();
        let one = || BigUint::from(1u8);
        let mut moduli = Vec::new();
        for bits in [
            2usize, 3, 64, 65, 200, 256, 511, 1000, 1024, 1025, 1500, 1536, 2000, 2047, 2048, 2049,
            3000, 3072, 3500, 4096, 4097, 7680, 9000, 15360,
        ] {
            for _ in 0..3 {
                moduli.push(rng.gen_biguint(bits as u64) | one() | (one() << (bits - 1)));
            }
            moduli.push((one() << bits) - 1u8); // all ones
            if bits >= 2 {
                moduli.push((one() << (bits - 1)) + 1u8); // 2^(bits−1) + 1
            }
            if bits >= 3 {
                moduli.push((one() << bits) - (one() << (bits / 2)) - 1u8);
            }
        }
        for m in moduli {
            let ml = m.to_u64_digits();
            let (ct, vt) = (
                DynMonty::new(&ml).unwrap(),
                DynMonty::new_vartime(&ml).unwrap(),
            );
            assert_eq!(vt.limbs(), ct.limbs());
            assert_eq!(vt.modulus(), ct.modulus());
            assert_eq!(vt.constants(), ct.constants(), "m = {m:x}");
            let a = pad(&rng.gen_biguint_below(&m), ml.len());
            assert_eq!(vt.pow_vartime(&a, &[65537]), ct.pow_vartime(&a, &[65537]));
        }
        assert!(DynMonty::new_vartime(&[4]).is_err());
        assert!(DynMonty::new_vartime(&[1]).is_err());
        assert!(DynMonty::new_vartime(&[0, 0]).is_err());
        assert!(DynMonty::new_vartime(&vec![u64::MAX; 241]).is_err());
    }

    fn pad(x: &BigUint, n: usize) -> Vec<u64> {
        let mut v = x.to_u64_digits();
        v.resize(n, 0);
        v
    }
}
