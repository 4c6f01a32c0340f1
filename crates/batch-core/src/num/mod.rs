//! Fixed-size unsigned integers on 64-bit limbs.
//!
//! Representation: `Uint<L>` is `L` little-endian `u64` limbs (limb 0 least significant).
//! Every function here is constant-time in the *values* of its operands (it may depend on `L`)
//! unless its name ends in `_vartime`. Masks are all-ones / all-zeros `u64`s, derived
//! arithmetically; `black_box` keeps the optimiser from turning selects back into branches.

pub mod digits;
pub mod div;
pub mod dyn_monty;
pub mod monty;
pub mod safegcd;

/// Random `BigUint`s for the tests (num-bigint's own `RandBigInt` is tied to rand 0.8).
#[cfg(test)]
pub(crate) mod rand_big {
    use num_bigint::BigUint;

    pub(crate) trait RandBigInt {
        /// Uniform in `[0, 2^bits)`.
        fn gen_biguint(&mut self, bits: u64) -> BigUint;
        /// Uniform in `[0, bound)`, by rejection; `bound` must be nonzero.
        fn gen_biguint_below(&mut self, bound: &BigUint) -> BigUint;
    }

    impl<R: rand::Rng + ?Sized> RandBigInt for R {
        fn gen_biguint(&mut self, bits: u64) -> BigUint {
            let mut bytes = vec![0u8; bits.div_ceil(8) as usize];
            self.fill_bytes(&mut bytes);
            if !bits.is_multiple_of(8) {
                bytes[0] &= (1u8 << (bits % 8)) - 1;
            }
            BigUint::from_bytes_be(&bytes)
        }

        fn gen_biguint_below(&mut self, bound: &BigUint) -> BigUint {
            assert!(*bound != BigUint::ZERO, "empty range");
            loop {
                let x = self.gen_biguint(bound.bits());
                if x < *bound {
                    return x;
                }
            }
        }
    }
}

pub use div::{pow2_rem_vartime, rem_vartime};
pub use dyn_monty::DynMonty;
pub use monty::{MontKernel, MontyParams};

/// Widening multiply-accumulate: `a + b * c + carry`, as (low, high).
#[inline(always)]
pub const fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = (a as u128) + (b as u128) * (c as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// Add with carry: `a + b + carry` (carry 0 or 1), as (sum, carry out).
#[inline(always)]
pub const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (a as u128) + (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// Subtract with borrow: `a - b - borrow` (borrow 0 or 1), as (difference, borrow out 0/1).
#[inline(always)]
pub const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub((b as u128) + (borrow as u128));
    (t as u64, ((t >> 64) as u64) & 1)
}

/// All-ones if `bit == 1`, zero if `bit == 0` (`bit` must be 0 or 1).
#[inline(always)]
pub fn mask_from_bit(bit: u64) -> u64 {
    core::hint::black_box(bit).wrapping_neg()
}

/// All-ones if `a == b`, else zero.
#[inline(always)]
pub fn ct_eq_mask(a: u64, b: u64) -> u64 {
    let x = a ^ b;
    // (x | -x) has its top bit set iff x != 0.
    let nonzero = (x | x.wrapping_neg()) >> 63;
    mask_from_bit(nonzero ^ 1)
}

/// Entries per block of a constant-time table scan ([`scan_masks`]).
pub const SCAN_BLOCK: usize = 16;

/// `masks[j]` all-ones where `first + j + 1 == mag`, zero elsewhere: the masks of one block
/// of a constant-time table scan, computed by plain arithmetic and then hidden from the
/// optimiser as a whole (one `black_box` on the block). Both halves matter: with a
/// `black_box` per mask each one cost a store and a reload (14 % of a P-256 signature in the
/// comb's 64-entry scans), and with none LLVM saw that only entry `mag` survives and compiled
/// the scan into a bounds check and a direct load (caught by `scripts/ct-check.sh`).
#[inline(always)]
pub fn scan_masks(first: usize, mag: u64) -> [u64; SCAN_BLOCK] {
    let mut masks = [0u64; SCAN_BLOCK];
    for (j, m) in masks.iter_mut().enumerate() {
        let x = ((first + j) as u64 + 1) ^ mag;
        *m = ((x | x.wrapping_neg()) >> 63).wrapping_sub(1);
    }
    core::hint::black_box(&mut masks);
    masks
}

/// Entry `mag` (counted from 1) of a table of `C` coordinates an entry, or zeros for
/// `mag = 0`: the OR of every entry under its mask ([`scan_masks`], a block at a time),
/// constant-time in `mag` (every entry read). The comb's `k·G` lookups (affine `(x, y)`
/// entries) and `k·Q`'s (Jacobian `(X, Y, Z, Z², Z³)`) go through
/// `CurveArith::select_entry`, whose default is this; a backend may run the same scan on
/// wider vectors.
#[inline(always)]
pub fn select_entry<const L: usize, const C: usize>(
    table: &[[Uint<L>; C]],
    mag: u64,
) -> [Uint<L>; C] {
    let mut out = [[0u64; L]; C];
    for (b, block) in table.chunks(SCAN_BLOCK).enumerate() {
        let masks = scan_masks(b * SCAN_BLOCK, mag);
        for (e, &m) in block.iter().zip(&masks) {
            for (o, coord) in out.iter_mut().zip(e) {
                for l in 0..L {
                    o[l] |= coord.0[l] & m;
                }
            }
        }
    }
    out.map(Uint)
}

/// A fixed-size unsigned integer of `L` 64-bit limbs, least significant first.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Uint<const L: usize>(pub [u64; L]);

impl<const L: usize> core::fmt::Debug for Uint<L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Uint(0x")?;
        for limb in self.0.iter().rev() {
            write!(f, "{limb:016x}")?;
        }
        write!(f, ")")
    }
}

/// `Zeroizing<Uint<L>>` wipes secrets (keys, nonces) on drop.
impl<const L: usize> zeroize::DefaultIsZeroes for Uint<L> {}

impl<const L: usize> Default for Uint<L> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<const L: usize> Uint<L> {
    pub const ZERO: Self = Self([0; L]);
    pub const ONE: Self = {
        let mut l = [0u64; L];
        l[0] = 1;
        Self(l)
    };
    pub const BITS: usize = 64 * L;

    /// Parses big-endian hex (no prefix, `_` allowed as a separator) at compile time.
    /// Panics (a compile error in const context) on a bad digit or an overlong value.
    pub const fn from_be_hex(s: &str) -> Self {
        let b = s.as_bytes();
        let mut limbs = [0u64; L];
        let mut i = b.len();
        let mut nibble = 0usize;
        while i > 0 {
            i -= 1;
            let c = b[i];
            let v = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                b'_' => continue,
                _ => panic!("bad hex digit"),
            } as u64;
            if nibble / 16 >= L {
                assert!(v == 0, "hex value too long");
            } else {
                limbs[nibble / 16] |= v << (4 * (nibble % 16));
            }
            nibble += 1;
        }
        Self(limbs)
    }

    /// From little-endian limbs of any length; `None` if the value does not fit.
    pub fn from_limbs(src: &[u64]) -> Option<Self> {
        let mut out = [0u64; L];
        for (i, &w) in src.iter().enumerate() {
            if i < L {
                out[i] = w;
            } else if w != 0 {
                return None;
            }
        }
        Some(Self(out))
    }

    /// From big-endian bytes of any length; `None` if the value does not fit.
    pub fn from_be_bytes(bytes: &[u8]) -> Option<Self> {
        let mut out = [0u64; L];
        for (i, &byte) in bytes.iter().rev().enumerate() {
            let limb = i / 8;
            if limb < L {
                out[limb] |= (byte as u64) << (8 * (i % 8));
            } else if byte != 0 {
                return None;
            }
        }
        Some(Self(out))
    }

    /// Writes the value big-endian into `out`, which must be wide enough for the value;
    /// excess high bytes are zero-filled. Panics if a non-zero byte does not fit.
    pub fn write_be_bytes(&self, out: &mut [u8]) {
        let n = out.len();
        for i in 0..8 * L {
            let byte = (self.0[i / 8] >> (8 * (i % 8))) as u8;
            if i < n {
                out[n - 1 - i] = byte;
            } else {
                assert!(byte == 0, "value does not fit the output");
            }
        }
        if n > 8 * L {
            out[..n - 8 * L].fill(0);
        }
    }

    /// `self + rhs` and the carry out (0 or 1).
    #[inline(always)]
    pub const fn adc(&self, rhs: &Self) -> (Self, u64) {
        let mut out = [0u64; L];
        let mut carry = 0;
        let mut i = 0;
        while i < L {
            let (s, c) = adc(self.0[i], rhs.0[i], carry);
            out[i] = s;
            carry = c;
            i += 1;
        }
        (Self(out), carry)
    }

    /// `self - rhs` and the borrow out (0 or 1).
    #[inline(always)]
    pub const fn sbb(&self, rhs: &Self) -> (Self, u64) {
        let mut out = [0u64; L];
        let mut borrow = 0;
        let mut i = 0;
        while i < L {
            let (d, b) = sbb(self.0[i], rhs.0[i], borrow);
            out[i] = d;
            borrow = b;
            i += 1;
        }
        (Self(out), borrow)
    }

    /// `a` where `mask` is zero, `b` where `mask` is all-ones.
    #[inline(always)]
    pub fn select(a: &Self, b: &Self, mask: u64) -> Self {
        let mut out = [0u64; L];
        for i in 0..L {
            out[i] = a.0[i] ^ ((a.0[i] ^ b.0[i]) & mask);
        }
        Self(out)
    }

    /// Replaces `self` with `other` where `mask` is all-ones.
    #[inline(always)]
    pub fn assign_if(&mut self, other: &Self, mask: u64) {
        for i in 0..L {
            self.0[i] ^= (self.0[i] ^ other.0[i]) & mask;
        }
    }

    /// All-ones if zero.
    #[inline]
    pub fn is_zero_mask(&self) -> u64 {
        let mut acc = 0u64;
        for &w in &self.0 {
            acc |= w;
        }
        ct_eq_mask(acc, 0)
    }

    /// All-ones if equal.
    #[inline]
    pub fn ct_eq_mask(&self, rhs: &Self) -> u64 {
        let mut acc = 0u64;
        for i in 0..L {
            acc |= self.0[i] ^ rhs.0[i];
        }
        ct_eq_mask(acc, 0)
    }

    /// All-ones if `self < rhs`.
    #[inline]
    pub fn ct_lt_mask(&self, rhs: &Self) -> u64 {
        mask_from_bit(self.sbb(rhs).1)
    }

    pub fn is_zero_vartime(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    pub fn is_odd(&self) -> bool {
        self.0[0] & 1 == 1
    }

    /// Bit `i` (0 = least significant) as 0/1; `i` must be below `64 * L`.
    #[inline(always)]
    pub fn bit(&self, i: usize) -> u64 {
        (self.0[i / 64] >> (i % 64)) & 1
    }

    /// Number of significant bits. Variable-time in the value.
    pub const fn bits_vartime(&self) -> usize {
        let mut i = L;
        while i > 0 {
            i -= 1;
            if self.0[i] != 0 {
                return 64 * i + 64 - self.0[i].leading_zeros() as usize;
            }
        }
        0
    }

    /// Logical right shift by one bit.
    pub const fn shr1(&self) -> Self {
        let mut out = [0u64; L];
        let mut i = 0;
        while i < L {
            out[i] = self.0[i] >> 1;
            if i + 1 < L {
                out[i] |= self.0[i + 1] << 63;
            }
            i += 1;
        }
        Self(out)
    }

    /// `w`-bit window starting at bit `pos` (bits past the top read as zero); `w <= 32`.
    /// Constant-time in the value; the position is public.
    #[inline(always)]
    pub fn window(&self, pos: usize, w: usize) -> u64 {
        window(&self.0, pos, w)
    }

    /// Compares with variable timing: `core::cmp::Ordering` of the values.
    pub fn cmp_vartime(&self, rhs: &Self) -> core::cmp::Ordering {
        for i in (0..L).rev() {
            match self.0[i].cmp(&rhs.0[i]) {
                core::cmp::Ordering::Equal => continue,
                o => return o,
            }
        }
        core::cmp::Ordering::Equal
    }

    /// The low `M` limbs (zero-extended if `M > L`): drops the limbs above `M` whatever their
    /// value. Constant-time; for values known to fit (after a constant-time range check).
    #[inline]
    pub fn truncate<const M: usize>(&self) -> Uint<M> {
        let mut out = [0u64; M];
        let n = L.min(M);
        out[..n].copy_from_slice(&self.0[..n]);
        Uint(out)
    }

    /// Resizes to `M` limbs; `None` if the value does not fit. Variable-time.
    pub fn resize<const M: usize>(&self) -> Option<Uint<M>> {
        Uint::<M>::from_limbs(&self.0)
    }
}

/// `w`-bit window of a little-endian limb slice starting at bit `pos`; bits past the end
/// read as zero. Constant-time in the limb values (`pos`, `w` are public), `w <= 32`.
#[inline(always)]
pub fn window(limbs: &[u64], pos: usize, w: usize) -> u64 {
    let mask = (1u64 << w) - 1;
    let i = pos / 64;
    let s = pos % 64;
    if i >= limbs.len() {
        return 0;
    }
    let mut v = limbs[i] >> s;
    if s + w > 64 && i + 1 < limbs.len() {
        v |= limbs[i + 1] << (64 - s);
    }
    v & mask
}

/// Number of significant bits of a limb slice. Variable-time.
pub fn bits_vartime(limbs: &[u64]) -> usize {
    for i in (0..limbs.len()).rev() {
        if limbs[i] != 0 {
            return 64 * i + 64 - limbs[i].leading_zeros() as usize;
        }
    }
    0
}

/// Number of significant bits of a limb slice, computed in constant time and then made public
/// ([`crate::ct::declassify`]): the bit length of a modulus, secret or not, is public by design
/// (RSA's CRT primes have half the bits of `n`).
pub fn bits_public(limbs: &[u64]) -> usize {
    let mut bits = 0u64;
    for (i, &w) in limbs.iter().enumerate() {
        let nonzero = !ct_eq_mask(w, 0);
        let here = (64 * i as u64 + 64).wrapping_sub(w.leading_zeros() as u64);
        bits = (bits & !nonzero) | (here & nonzero);
    }
    crate::ct::declassify(&mut bits);
    bits as usize
}

/// Big-endian bytes to little-endian limbs (`ceil(len/8)` limbs).
pub fn limbs_from_be_bytes(bytes: &[u8]) -> Vec<u64> {
    let n = bytes.len().div_ceil(8).max(1);
    let mut out = vec![0u64; n];
    // A limb per 8 bytes from the end; the first (most significant) chunk may be shorter.
    for (o, chunk) in out.iter_mut().zip(bytes.rchunks(8)) {
        let mut w = [0u8; 8];
        w[8 - chunk.len()..].copy_from_slice(chunk);
        *o = u64::from_be_bytes(w);
    }
    out
}

/// Little-endian limbs to exactly `len` big-endian bytes; `None` if the value needs more.
/// Branches only on positions and on the bytes that do not fit (whole limbs are copied).
pub fn limbs_to_be_bytes(limbs: &[u64], len: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; len];
    for (i, &l) in limbs.iter().enumerate() {
        let lo = 8 * i; // the limb's least significant byte, counted from the end
        if lo + 8 <= len {
            out[len - lo - 8..len - lo].copy_from_slice(&l.to_be_bytes());
            continue;
        }
        for (j, byte) in l.to_le_bytes().into_iter().enumerate() {
            if lo + j < len {
                out[len - 1 - lo - j] = byte;
            } else if byte != 0 {
                return None;
            }
        }
    }
    Some(out)
}

/// Compares two little-endian limb slices of any lengths. Variable-time.
pub fn cmp_limbs_vartime(a: &[u64], b: &[u64]) -> core::cmp::Ordering {
    let n = a.len().max(b.len());
    for i in (0..n).rev() {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        match x.cmp(&y) {
            core::cmp::Ordering::Equal => continue,
            o => return o,
        }
    }
    core::cmp::Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_bytes_round_trip() {
        let x = Uint::<2>::from_be_hex("0123456789abcdef_fedcba9876543210");
        assert_eq!(x.0, [0xfedcba9876543210, 0x0123456789abcdef]);
        let mut be = [0u8; 16];
        x.write_be_bytes(&mut be);
        assert_eq!(Uint::<2>::from_be_bytes(&be), Some(x));
        assert_eq!(Uint::<1>::from_be_bytes(&be), None);
        assert_eq!(limbs_to_be_bytes(&x.0, 16).unwrap(), be.to_vec());
        assert_eq!(limbs_from_be_bytes(&be), x.0.to_vec());
        assert_eq!(limbs_to_be_bytes(&x.0, 15), None);
    }

    /// The limb-at-a-time conversions against byte-at-a-time ones, at every length around the
    /// limb boundaries, values with leading zero bytes included.
    #[test]
    fn byte_conversions_match_bytewise() {
        let bytewise = |limbs: &[u64], len: usize| -> Option<Vec<u8>> {
            let mut out = vec![0u8; len];
            for i in 0..8 * limbs.len() {
                let byte = (limbs[i / 8] >> (8 * (i % 8))) as u8;
                if i < len {
                    out[len - 1 - i] = byte;
                } else if byte != 0 {
                    return None;
                }
            }
            Some(out)
        };
        let limbs = [0x0102_0304_0506_0708u64, 0x1112_1314_1516_1718, 0x21];
        for n in 0..=3 {
            for top_zeros in 0..3 {
                let mut v = limbs[..n].to_vec();
                v.extend(std::iter::repeat_n(0, top_zeros));
                for len in 0..=8 * v.len() + 9 {
                    assert_eq!(
                        limbs_to_be_bytes(&v, len),
                        bytewise(&v, len),
                        "{v:x?}, {len}"
                    );
                    if let Some(be) = bytewise(&v, len) {
                        let back = limbs_from_be_bytes(&be);
                        assert!(back.len() == len.div_ceil(8).max(1));
                        assert_eq!(bytewise(&back, len), Some(be), "{v:x?}, {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn windows_cross_limbs() {
        let x = Uint::<2>([0xf000_0000_0000_0000, 0x5]);
        assert_eq!(x.window(60, 8), 0x5f);
        assert_eq!(x.window(124, 8), 0);
        assert_eq!(x.window(64, 3), 5);
        assert_eq!(x.bits_vartime(), 67);
    }

    #[test]
    fn bits_public_matches_bits_vartime() {
        for x in [
            &[][..],
            &[0],
            &[1],
            &[0, 0],
            &[u64::MAX, 0],
            &[3, 1 << 63, 0],
            &[0, 0, 7],
        ] {
            assert_eq!(bits_public(x), bits_vartime(x), "{x:?}");
        }
    }

    #[test]
    fn masks() {
        assert_eq!(ct_eq_mask(3, 3), u64::MAX);
        assert_eq!(ct_eq_mask(3, 4), 0);
        let a = Uint::<2>([1, 2]);
        let b = Uint::<2>([3, 2]);
        assert_eq!(a.ct_lt_mask(&b), u64::MAX);
        assert_eq!(b.ct_lt_mask(&a), 0);
        assert_eq!(Uint::select(&a, &b, u64::MAX), b);
        assert_eq!(Uint::select(&a, &b, 0), a);
    }
}
