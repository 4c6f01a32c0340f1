//! batchsig ECDSA against RustCrypto's p224/p256/p384/p521: pure RFC 6979 signatures are
//! byte-identical, hedged ones verify there, theirs verify here, keys load both ways.

use batchsig::ecdsa::{curve_hash, EcdsaPrivateKey, EcdsaPublicKey, EcdsaSignature, NonceMode};
use batchsig::{test_keys, Curve};
use signature::{Signer, Verifier};

fn backend() -> batch_scalar::ScalarBackend {
    batch_scalar::ScalarBackend::new()
}

fn msgs(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("ecdsa message {i}").into_bytes())
        .collect()
}

fn ours_deterministic(key: &EcdsaPrivateKey, m: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let hash = curve_hash(key.curve());
    let digests: Vec<Vec<u8>> = m.iter().map(|x| hash.digest(x)).collect();
    let refs: Vec<&[u8]> = digests.iter().map(Vec::as_slice).collect();
    key.sign_digests_batch(&backend(), hash, &refs, NonceMode::Deterministic)
        .unwrap()
        .into_iter()
        .map(|s| s.unwrap().to_bytes())
        .collect()
}

macro_rules! curve_tests {
    ($modname:ident, $krate:ident, $curve:expr) => {
        mod $modname {
            use super::*;
            use $krate::ecdsa::{Signature, SigningKey, VerifyingKey};
            use $krate::pkcs8::DecodePrivateKey;

            fn their_key() -> SigningKey {
                let sk = $krate::SecretKey::from_pkcs8_pem(test_keys::ecdsa_pem($curve)).unwrap();
                SigningKey::from_slice(&sk.to_bytes()).unwrap()
            }

            #[test]
            fn deterministic_signatures_are_byte_identical() {
                // RFC 6979 nonces on both sides (p521 0.14 signs deterministically too).
                let ours = test_keys::ecdsa($curve);
                let theirs = their_key();
                let m = msgs(6);
                for (msg, sig) in m.iter().zip(ours_deterministic(&ours, &m)) {
                    let want: Signature = theirs.sign(msg);
                    assert_eq!(sig, want.to_bytes().to_vec());
                }
            }

            #[test]
            fn hedged_signatures_verify_in_rustcrypto_and_differ_each_time() {
                let ours = test_keys::ecdsa($curve);
                let vk = VerifyingKey::from(&their_key());
                let m = msgs(5);
                let refs: Vec<&[u8]> = m.iter().map(Vec::as_slice).collect();
                let a = ours.sign_batch(&backend(), &refs).unwrap();
                let b = ours.sign_batch(&backend(), &refs).unwrap();
                for ((msg, x), y) in m.iter().zip(&a).zip(&b) {
                    let (x, y) = (x.as_ref().unwrap(), y.as_ref().unwrap());
                    assert_ne!(x, y, "hedged nonces must differ between runs");
                    let sig = Signature::from_slice(&x.to_bytes()).unwrap();
                    vk.verify(msg, &sig).expect("RustCrypto verifies");
                    let der = Signature::from_der(&x.to_der()).expect("DER parses in RustCrypto");
                    assert_eq!(der, sig);
                }
            }

            #[test]
            fn rustcrypto_signatures_verify_here_and_tampering_fails() {
                let theirs = their_key();
                let pk = test_keys::ecdsa($curve).public_key().clone();
                let m = msgs(5);
                let refs: Vec<&[u8]> = m.iter().map(Vec::as_slice).collect();
                let mut sigs: Vec<EcdsaSignature> = m
                    .iter()
                    .map(|x| {
                        let s: Signature = theirs.sign(x);
                        EcdsaSignature::from_der($curve, s.to_der().as_bytes()).unwrap()
                    })
                    .collect();
                let res = pk.verify_batch(&backend(), &refs, &sigs).unwrap();
                assert!(res.iter().all(Result::is_ok), "{res:?}");
                // Swap two signatures: both must fail, the rest stay valid.
                sigs.swap(1, 3);
                let res = pk.verify_batch(&backend(), &refs, &sigs).unwrap();
                assert_eq!(res.iter().filter(|r| r.is_ok()).count(), 3);
                assert_eq!(res[1], Err(batchsig::Error::InvalidSignature));
            }

            #[test]
            fn public_key_pem_matches() {
                let ours = test_keys::ecdsa($curve);
                let vk = VerifyingKey::from(&their_key());
                let point = vk.to_sec1_point(false);
                assert_eq!(ours.public_key().to_sec1_bytes(), point.as_bytes());
                let pem = ours.public_key().to_public_key_pem().unwrap();
                assert_eq!(
                    EcdsaPublicKey::from_pem_or_der(pem.as_bytes()).unwrap(),
                    *ours.public_key()
                );
            }
        }
    };
}

curve_tests!(p224_interop, p224, Curve::P224);
curve_tests!(p256_interop, p256, Curve::P256);
curve_tests!(p384_interop, p384, Curve::P384);
curve_tests!(p521_interop, p521, Curve::P521);

/// RFC 6979 appendix A.2.4–A.2.7: message "sample" with the curve's hash.
#[test]
fn rfc6979_known_answers() {
    let cases = [
        (
            Curve::P224,
            "F220266E1105BFE3083E03EC7A3A654651F45E37167E88600BF257C1",
            "1CDFE6662DDE1E4A1EC4CDEDF6A1F5A2FB7FBD9145C12113E6ABFD3E",
            "A6694FD7718A21053F225D3F46197CA699D45006C06F871808F43EBC",
        ),
        (
            Curve::P256,
            "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721",
            "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
            "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8",
        ),
        (
            Curve::P384,
            "6B9D3DAD2E1B8C1C05B19875B6659F4DE23C3B667BF297BA9AA47740787137D896D5724E4C70A825F872C9EA60D2EDF5",
            "94EDBB92A5ECB8AAD4736E56C691916B3F88140666CE9FA73D64C4EA95AD133C81A648152E44ACF96E36DD1E80FABE46",
            "99EF4AEB15F178CEA1FE40DB2603138F130E740A19624526203B6351D0A3A94FA329C145786E679E7B82C71A38628AC8",
        ),
        (
            Curve::P521,
            "00FAD06DAA62BA3B25D2FB40133DA757205DE67F5BB0018FEE8C86E1B68C7E75CAA896EB32F1F47C70855836A6D16FCC1466F6D8FBEC67DB89EC0C08B0E996B83538",
            "00C328FAFCBD79DD77850370C46325D987CB525569FB63C5D3BC53950E6D4C5F174E25A1EE9017B5D450606ADD152B534931D7D4E8455CC91F9B15BF05EC36E377FA",
            "00617CCE7CF5064806C467F678D3B4080D6F1CC50AF26CA209417308281B68AF282623EAA63E5B5C0723D8B8C37FF0777B1A20F8CCB1DCCC43997F1EE0E44DA4A67A",
        ),
    ];
    for (curve, d, r, s) in cases {
        let key = EcdsaPrivateKey::from_scalar_bytes(curve, &hex::decode(d).unwrap()).unwrap();
        let sig = ours_deterministic(&key, &[b"sample".to_vec()]).remove(0);
        let mut want = hex::decode(r).unwrap();
        want.extend(hex::decode(s).unwrap());
        assert_eq!(hex::encode(sig), hex::encode(want), "{curve}");
    }
}
