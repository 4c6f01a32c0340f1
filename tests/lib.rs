//! Shared helpers for the batchsig integration tests.

use std::process::Command;

/// Whether the tests run under CI (`CI=true`), where skips are failures.
pub fn ci() -> bool {
    std::env::var("CI")
        .map(|v| v == "true" || v == "1")
        .unwrap_or(false)
}

/// Skips loudly: prints why; under CI (or with `require_var` set) panics instead.
pub fn skip_or_fail(what: &str, why: &str, require_var: &str) {
    let required = ci() || std::env::var(require_var).is_ok();
    if required {
        panic!("{what}: {why} (required because CI=true or {require_var} is set)");
    }
    eprintln!("SKIPPED {what}: {why} (set {require_var}=1 to make this a failure)");
}

/// The `openssl` command line if present: `Some(version)`, else `None` (after a loud skip,
/// or a panic under CI).
pub fn openssl(what: &str) -> Option<String> {
    match Command::new("openssl").arg("version").output() {
        Ok(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        _ => {
            skip_or_fail(
                what,
                "the `openssl` command line is not installed",
                "BATCHSIG_REQUIRE_OPENSSL",
            );
            None
        }
    }
}

/// Runs `openssl` with `args`: whether it succeeded, and its stdout and stderr.
pub fn openssl_run(args: &[&str]) -> (bool, String) {
    let out = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Writes `data` to `dir/name`; returns the path as a string (for command lines).
pub fn write_file(dir: &std::path::Path, name: &str, data: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p.to_str().unwrap().to_string()
}

/// The `openssl dgst` option for `h` (OpenSSL 3.0 names).
pub fn openssl_dgst_flag(h: batchsig::HashAlg) -> &'static str {
    use batchsig::HashAlg;
    match h {
        HashAlg::Sha1 => "-sha1",
        HashAlg::Sha224 => "-sha224",
        HashAlg::Sha256 => "-sha256",
        HashAlg::Sha384 => "-sha384",
        HashAlg::Sha512 => "-sha512",
        HashAlg::Sha512_224 => "-sha512-224",
        HashAlg::Sha512_256 => "-sha512-256",
        HashAlg::Sha3_224 => "-sha3-224",
        HashAlg::Sha3_256 => "-sha3-256",
        HashAlg::Sha3_384 => "-sha3-384",
        HashAlg::Sha3_512 => "-sha3-512",
    }
}
