//! Nonces: RFC 6979 §3.2 HMAC_DRBG, optionally hedged with fresh randomness as the §3.6
//! additional data (the default: a fault on a purely deterministic nonce reveals the key).
//!
//! `bits2int` keeps the leftmost `qlen` bits; `bits2octets(h) = int2octets(bits2int(h) mod q)`.
//
//! The candidate test `k ∈ [1, q)` is constant-time (masks), and only its verdict is public:
//! a rejection (probability < 2⁻³² on P-256/P-384, about 2⁻²⁶⁰ on P-521) is visible, nothing
//! else about the accepted nonce. (A variable-time comparison would exit early unless the top
//! limbs match: on P-521 one candidate in 512 has n's top limb `0x1FF`, and the time would
//! reveal the accepted nonce's top 9 bits — a lattice attack's input.)

use batch_core::{Curve, EcUint};
use hmac::{KeyInit, Mac};
use zeroize::Zeroizing;

use crate::hash::{HashAlg, HmacOf};

/// `bits2int(b)` for `curve`'s `qlen`: the leftmost `qlen` bits of `b` as an integer.
pub fn bits2int(curve: Curve, b: &[u8]) -> EcUint {
    let qlen = curve.bits();
    let lead = &b[..b.len().min(qlen.div_ceil(8))];
    let mut v = EcUint::from_be_bytes(lead).expect("at most 66 bytes");
    for _ in qlen..8 * lead.len() {
        v = v.shr1();
    }
    v
}

/// `bits2int(b) mod n` (one conditional subtraction, since `2^qlen < 2n`). Variable-time:
/// for digests, which are public.
pub fn bits2int_mod_n(curve: Curve, b: &[u8]) -> EcUint {
    let v = bits2int(curve, b);
    let n = curve.order();
    if v.cmp_vartime(&n) == core::cmp::Ordering::Less {
        v
    } else {
        v.sbb(&n).0
    }
}

fn int2octets(curve: Curve, v: &EcUint) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(vec![0u8; curve.field_bytes()]);
    v.write_be_bytes(&mut out);
    out
}

/// The RFC 6979 nonce for private key `x` and digest `h1`, with HMAC over `hash`; `extra` is
/// the §3.6 additional data (empty for pure RFC 6979).
pub fn generate_k(
    curve: Curve,
    hash: HashAlg,
    x: &EcUint,
    h1: &[u8],
    extra: &[u8],
) -> Zeroizing<EcUint> {
    let xo = int2octets(curve, x);
    let ho = int2octets(curve, &bits2int_mod_n(curve, h1));
    let hlen = hash.output_len();
    crate::hash::with_digest!(hash, D => drbg(curve, hlen, &xo, &ho, extra, <D as HmacOf>::zero_keyed()))
}

/// §3.2 steps b–h with one HMAC state per key `K`, set once and cloned for each MAC under it
/// (step e's `K` serves steps e and f, step f's serves g and h), step c's all-zero `K` given
/// keyed (`zero_keyed`, made once a process): with SHA-2, whose HMAC state keeps both pads
/// compressed, a hedged P-256 nonce costs 18 SHA-256 compressions instead of 24.
fn drbg<M: Mac + KeyInit + Clone>(
    curve: Curve,
    hlen: usize,
    xo: &[u8],
    ho: &[u8],
    extra: &[u8],
    zero_keyed: M,
) -> Zeroizing<EcUint> {
    let keyed = |k: &[u8]| <M as KeyInit>::new_from_slice(k).expect("any key length");
    let mac = |key: &M, parts: &[&[u8]]| {
        let mut m = key.clone();
        for p in parts {
            m.update(p);
        }
        Zeroizing::new(m.finalize().into_bytes().to_vec())
    };
    let mut v = Zeroizing::new(vec![1u8; hlen]);
    let mut k = zero_keyed;
    k = keyed(&mac(&k, &[&v, &[0], xo, ho, extra]));
    v = mac(&k, &[&v]);
    k = keyed(&mac(&k, &[&v, &[1], xo, ho, extra]));
    v = mac(&k, &[&v]);
    let n = curve.order();
    loop {
        let mut t = Zeroizing::new(Vec::with_capacity(curve.field_bytes() + hlen));
        while 8 * t.len() < curve.bits() {
            v = mac(&k, &[&v]);
            t.extend_from_slice(&v);
        }
        let cand = Zeroizing::new(bits2int(curve, &t));
        if batch_core::ct::declassify_mask(!cand.is_zero_mask() & cand.ct_lt_mask(&n)) {
            return cand;
        }
        k = keyed(&mac(&k, &[&v, &[0]]));
        v = mac(&k, &[&v]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_uint(s: &str) -> EcUint {
        EcUint::from_be_hex(s)
    }

    /// RFC 6979 appendix A.2.5 (P-256, SHA-256, message "sample").
    #[test]
    fn rfc6979_a25_p256_sample() {
        let x = hex_uint("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721");
        let h = HashAlg::Sha256.digest(b"sample");
        let k = generate_k(Curve::P256, HashAlg::Sha256, &x, &h, &[]);
        assert_eq!(
            *k,
            hex_uint("A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60")
        );
    }

    #[test]
    fn bits2int_truncates_long_digests() {
        let b = [0xffu8; 64];
        let v = bits2int(Curve::P256, &b);
        assert_eq!(v.bits_vartime(), 256);
        let v = bits2int(Curve::P521, &b);
        assert_eq!(v.bits_vartime(), 512);
        let v = bits2int(Curve::P521, &[0xff; 66]);
        assert_eq!(v.bits_vartime(), 521);
        assert_eq!(bits2int(Curve::P384, &[0x80; 64]).bits_vartime(), 384);
    }
}
