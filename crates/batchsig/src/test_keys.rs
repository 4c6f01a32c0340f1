//! Fixed keys for benchmarks, examples and tests, generated once with `openssl genpkey`
//! (RSA-7680 and RSA-15360 take minutes to generate). **Public: never use them for real.**

use crate::rsa::RsaPrivateKey;

/// RSA sizes with a fixed key.
pub const RSA_BITS: [usize; 5] = [2048, 3072, 4096, 7680, 15360];

/// The PKCS#8 PEM of the fixed RSA key of `bits` bits.
pub fn rsa_pem(bits: usize) -> Option<&'static str> {
    Some(match bits {
        2048 => include_str!("../keys/rsa2048.pem"),
        3072 => include_str!("../keys/rsa3072.pem"),
        4096 => include_str!("../keys/rsa4096.pem"),
        7680 => include_str!("../keys/rsa7680.pem"),
        15360 => include_str!("../keys/rsa15360.pem"),
        _ => return None,
    })
}

/// The fixed RSA key of `bits` bits (one of [`RSA_BITS`]). Panics for other sizes.
pub fn rsa(bits: usize) -> RsaPrivateKey {
    let pem =
        rsa_pem(bits).unwrap_or_else(|| panic!("no fixed RSA-{bits} key; sizes: {RSA_BITS:?}"));
    RsaPrivateKey::from_pem_or_der(pem.as_bytes()).expect("fixed key parses")
}

/// The PKCS#8 PEM of the fixed ECDSA key on `curve`.
pub fn ecdsa_pem(curve: crate::Curve) -> &'static str {
    match curve {
        crate::Curve::P224 => include_str!("../keys/p224.pem"),
        crate::Curve::P256 => include_str!("../keys/p256.pem"),
        crate::Curve::P384 => include_str!("../keys/p384.pem"),
        crate::Curve::P521 => include_str!("../keys/p521.pem"),
    }
}

/// The fixed ECDSA key on `curve`.
pub fn ecdsa(curve: crate::Curve) -> crate::ecdsa::EcdsaPrivateKey {
    crate::ecdsa::EcdsaPrivateKey::from_pem_or_der(ecdsa_pem(curve).as_bytes())
        .expect("fixed key parses")
}
