//! RSA signature encodings (RFC 8017): EMSA-PKCS1-v1_5 (§9.2) and EMSA-PSS (§9.1) with MGF1.
//! Inputs are digests; outputs are encoded messages as big-endian bytes. PSS takes the MGF1
//! hash apart from the message hash (RFC 8017 §9.1: `Hash` and `MGF` are independent options).

use crate::hash::HashAlg;
use crate::Error;

/// EMSA-PKCS1-v1_5: `00 01 FF…FF 00 ‖ DigestInfo ‖ H`, `k` bytes.
pub fn pkcs1v15_encode(hash: HashAlg, digest: &[u8], k: usize) -> Result<Vec<u8>, Error> {
    let t = hash.digest_info(digest)?;
    let t_len = t.len();
    if k < t_len + 11 {
        return Err(Error::MessageTooLong);
    }
    let mut em = vec![0xffu8; k];
    em[0] = 0;
    em[1] = 1;
    em[k - t_len - 1] = 0;
    em[k - t_len..].copy_from_slice(&t);
    Ok(em)
}

/// MGF1 (RFC 8017 §B.2.1): XORs the mask generated from `seed` into `out`.
fn mgf1_xor(hash: HashAlg, seed: &[u8], out: &mut [u8]) {
    let mut counter = 0u32;
    let mut pos = 0;
    while pos < out.len() {
        let block = hash.digest_parts(&[seed, &counter.to_be_bytes()]);
        for (o, b) in out[pos..].iter_mut().zip(&block) {
            *o ^= b;
        }
        pos += block.len();
        counter += 1;
    }
}

/// EMSA-PSS-ENCODE with `emBits = mod_bits − 1`; returns `emLen = ceil(emBits/8)` bytes.
/// `hash` makes `H = Hash(0⁸ ‖ mHash ‖ salt)`, `mgf` is MGF1's hash.
pub fn pss_encode(
    hash: HashAlg,
    mgf: HashAlg,
    digest: &[u8],
    salt: &[u8],
    mod_bits: usize,
) -> Result<Vec<u8>, Error> {
    hash.check_digest(digest)?;
    let em_bits = mod_bits - 1;
    let em_len = em_bits.div_ceil(8);
    let h_len = hash.output_len();
    if em_len < h_len + salt.len() + 2 {
        return Err(Error::MessageTooLong);
    }
    let h = hash.digest_parts(&[&[0u8; 8], digest, salt]);
    let db_len = em_len - h_len - 1;
    let mut em = vec![0u8; em_len];
    // DB = PS ‖ 0x01 ‖ salt
    em[db_len - salt.len() - 1] = 1;
    em[db_len - salt.len()..db_len].copy_from_slice(salt);
    mgf1_xor(mgf, &h, &mut em[..db_len]);
    em[0] &= 0xff >> (8 * em_len - em_bits);
    em[db_len..db_len + h_len].copy_from_slice(&h);
    em[em_len - 1] = 0xbc;
    Ok(em)
}

/// EMSA-PSS-VERIFY. `salt_len`: `Some(n)` requires exactly `n` salt bytes, `None` accepts any.
/// Returns the salt length found. Variable-time (public data).
pub fn pss_verify_vartime(
    hash: HashAlg,
    mgf: HashAlg,
    digest: &[u8],
    em: &[u8],
    mod_bits: usize,
    salt_len: Option<usize>,
) -> Result<usize, Error> {
    hash.check_digest(digest)?;
    let em_bits = mod_bits - 1;
    let em_len = em_bits.div_ceil(8);
    let h_len = hash.output_len();
    if em.len() != em_len || em_len < h_len + 2 || em[em_len - 1] != 0xbc {
        return Err(Error::InvalidSignature);
    }
    let db_len = em_len - h_len - 1;
    if 8 * em_len > em_bits && em[0] & !(0xffu8 >> (8 * em_len - em_bits)) != 0 {
        return Err(Error::InvalidSignature);
    }
    let h = &em[db_len..db_len + h_len];
    let mut db = em[..db_len].to_vec();
    mgf1_xor(mgf, h, &mut db);
    db[0] &= 0xff >> (8 * em_len - em_bits);
    let one = db
        .iter()
        .position(|&b| b != 0)
        .ok_or(Error::InvalidSignature)?;
    if db[one] != 1 {
        return Err(Error::InvalidSignature);
    }
    let salt = &db[one + 1..];
    if let Some(n) = salt_len {
        if salt.len() != n {
            return Err(Error::InvalidSignature);
        }
    }
    let h2 = hash.digest_parts(&[&[0u8; 8], digest, salt]);
    if h2 != h {
        return Err(Error::InvalidSignature);
    }
    Ok(salt.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkcs1v15_layout() {
        let d = HashAlg::Sha256.digest(b"x");
        let em = pkcs1v15_encode(HashAlg::Sha256, &d, 256).unwrap();
        assert_eq!(&em[..2], &[0, 1]);
        assert_eq!(em[256 - 32 - 19 - 1], 0);
        assert_eq!(em[256 - 32 - 19..256 - 32 - 17], [0x30, 0x31]);
        assert!(em[2..256 - 52].iter().all(|&b| b == 0xff));
        assert_eq!(&em[256 - 32..], &d[..]);
        assert_eq!(
            pkcs1v15_encode(HashAlg::Sha512, &[0; 64], 64),
            Err(Error::MessageTooLong)
        );
        assert_eq!(
            pkcs1v15_encode(HashAlg::Sha256, &[0; 31], 256),
            Err(Error::DigestLength {
                expected: 32,
                got: 31
            })
        );
    }

    #[test]
    fn pss_round_trip_and_tamper() {
        for bits in [1024usize, 1025, 1031, 2048] {
            let d = HashAlg::Sha384.digest(b"msg");
            let salt = [7u8; 48];
            let h = HashAlg::Sha384;
            let em = pss_encode(h, h, &d, &salt, bits).unwrap();
            assert_eq!(em.len(), (bits - 1).div_ceil(8));
            pss_verify_vartime(h, h, &d, &em, bits, Some(48)).unwrap();
            assert_eq!(pss_verify_vartime(h, h, &d, &em, bits, None), Ok(48));
            assert!(pss_verify_vartime(h, h, &d, &em, bits, Some(32)).is_err());
            let mut bad = em.clone();
            bad[5] ^= 1;
            assert!(pss_verify_vartime(h, h, &d, &bad, bits, None).is_err());
            let d2 = HashAlg::Sha384.digest(b"other");
            assert!(pss_verify_vartime(h, h, &d2, &em, bits, None).is_err());
        }
    }

    #[test]
    fn pss_mgf1_hash_is_its_own_parameter() {
        // SHA-512 message hash, MGF1-SHA-256 (Wycheproof's rsa_pss_2048_sha512_mgf1sha256):
        // the encoding verifies only with the MGF1 hash it was made with.
        let (h, m) = (HashAlg::Sha512, HashAlg::Sha256);
        let d = h.digest(b"msg");
        let salt = [3u8; 32];
        let em = pss_encode(h, m, &d, &salt, 2048).unwrap();
        pss_verify_vartime(h, m, &d, &em, 2048, Some(32)).unwrap();
        assert!(pss_verify_vartime(h, h, &d, &em, 2048, Some(32)).is_err());
        assert!(pss_verify_vartime(h, HashAlg::Sha3_256, &d, &em, 2048, None).is_err());
        assert_ne!(em, pss_encode(h, h, &d, &salt, 2048).unwrap());
        // A 28-byte SHA-512/224 digest with SHA-1 MGF1 fits a 1024-bit modulus.
        let d = HashAlg::Sha512_224.digest(b"msg");
        let em = pss_encode(HashAlg::Sha512_224, HashAlg::Sha1, &d, &[1; 28], 1024).unwrap();
        pss_verify_vartime(HashAlg::Sha512_224, HashAlg::Sha1, &d, &em, 1024, Some(28)).unwrap();
    }
}
