//! The algorithms `batch-speed` measures, under the names `openssl speed` uses, with their
//! NIST SP 800-57 Part 1 (rev. 5, Table 2) security strengths.

use std::fmt;
use std::str::FromStr;

use batch_core::Curve;

/// A signature algorithm at one key size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Alg {
    /// RSA with a modulus of this many bits (PKCS#1 v1.5, SHA-256 — what `openssl speed rsa` times).
    Rsa(usize),
    /// ECDSA on a NIST curve with the curve's hash (SHA-256/384/512).
    Ecdsa(Curve),
}

/// The RSA sizes the fixed test keys cover.
pub const RSA_BITS: [usize; 5] = [2048, 3072, 4096, 7680, 15360];

impl Alg {
    /// Every algorithm, in table order.
    pub fn all() -> Vec<Alg> {
        RSA_BITS
            .iter()
            .map(|&b| Alg::Rsa(b))
            .chain(Curve::ALL.iter().map(|&c| Alg::Ecdsa(c)))
            .collect()
    }

    /// The default set: the sizes the seed comparisons all measured.
    pub fn common() -> Vec<Alg> {
        vec![
            Alg::Rsa(2048),
            Alg::Rsa(3072),
            Alg::Rsa(4096),
            Alg::Ecdsa(Curve::P256),
            Alg::Ecdsa(Curve::P384),
            Alg::Ecdsa(Curve::P521),
        ]
    }

    /// The `--algs` / `openssl speed` name: `rsa2048`, `ecdsap256`, …
    pub fn name(self) -> String {
        match self {
            Alg::Rsa(bits) => format!("rsa{bits}"),
            Alg::Ecdsa(c) => format!("ecdsap{}", c.bits()),
        }
    }

    /// The row label `openssl speed` prints.
    pub fn label(self) -> String {
        match self {
            Alg::Rsa(bits) => format!("rsa {bits} bits"),
            Alg::Ecdsa(c) => format!("{} bits ecdsa (nistp{})", c.bits(), c.bits()),
        }
    }

    /// Human name for prose: `RSA-3072`, `ECDSA P-256`.
    pub fn pretty(self) -> String {
        match self {
            Alg::Rsa(bits) => format!("RSA-{bits}"),
            Alg::Ecdsa(c) => format!("ECDSA {}", c.name()),
        }
    }

    /// Security strength in bits (SP 800-57 Part 1 Table 2). RSA-4096 sits between the
    /// 128 and 192 levels and counts as 128 (the level it fully meets).
    pub fn security_bits(self) -> usize {
        match self {
            Alg::Rsa(b) if b >= 15360 => 256,
            Alg::Rsa(b) if b >= 7680 => 192,
            Alg::Rsa(b) if b >= 3072 => 128,
            Alg::Rsa(b) if b >= 2048 => 112,
            Alg::Rsa(_) => 80,
            Alg::Ecdsa(Curve::P224) => 112,
            Alg::Ecdsa(Curve::P256) => 128,
            Alg::Ecdsa(Curve::P384) => 192,
            Alg::Ecdsa(Curve::P521) => 256,
        }
    }

    /// Parses a comma-separated `--algs` list; `all` and `common` are accepted.
    pub fn parse_list(s: &str) -> Result<Vec<Alg>, String> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "all" => out.extend(Alg::all()),
                "common" => out.extend(Alg::common()),
                p => out.push(p.parse()?),
            }
        }
        if out.is_empty() {
            return Err("no algorithm given".into());
        }
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// The pairs SP 800-57 makes equivalent, by security level: (level, RSA, ECDSA).
pub const EQUAL_SECURITY: [(usize, Alg, Alg); 4] = [
    (112, Alg::Rsa(2048), Alg::Ecdsa(Curve::P224)),
    (128, Alg::Rsa(3072), Alg::Ecdsa(Curve::P256)),
    (192, Alg::Rsa(7680), Alg::Ecdsa(Curve::P384)),
    (256, Alg::Rsa(15360), Alg::Ecdsa(Curve::P521)),
];

impl fmt::Display for Alg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Alg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Alg::all()
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                let names: Vec<String> = Alg::all().iter().map(|a| a.name()).collect();
                format!(
                    "unknown algorithm {s:?}; expected one of {}, all, common",
                    names.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Alg::all() {
            assert_eq!(a.name().parse::<Alg>().unwrap(), a);
        }
        assert!("rsa1024".parse::<Alg>().is_err());
    }

    #[test]
    fn parse_list_dedups_and_orders() {
        let l = Alg::parse_list("ecdsap256,rsa2048,common").unwrap();
        assert_eq!(l, Alg::common());
        assert_eq!(Alg::parse_list("all").unwrap().len(), 9);
        assert!(Alg::parse_list("").is_err());
        assert!(Alg::parse_list("rsa2048,bogus").is_err());
    }

    #[test]
    fn equal_security_pairs_share_a_level() {
        for (level, rsa, ec) in EQUAL_SECURITY {
            assert_eq!(rsa.security_bits(), level);
            assert_eq!(ec.security_bits(), level);
        }
    }
}
