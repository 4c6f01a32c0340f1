//! The built `batchsig` binary end to end: keygen → sign → verify for RSA-2048 (PKCS#1 v1.5,
//! PSS) and P-224/256/384/521; signatures exchanged with the `openssl` command both ways; the
//! JSON-lines mode; tampered items (exit 1, a FAILED line each); bad input (exit 2, a message,
//! nothing written). Without `openssl` the interop tests skip loudly, and fail under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use base64ct::{Base64, Encoding};

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn expect(self, code: i32, what: &str) -> Self {
        assert_eq!(
            self.code, code,
            "{what}: exit status\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{what}: {}", self.stderr);
        self
    }
}

/// Runs `batchsig args…` in `dir`.
fn batchsig(dir: &Path, args: &[&str]) -> Out {
    let o = Command::new(env!("CARGO_BIN_EXE_batchsig"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the batchsig binary runs");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Runs `openssl args…` in `dir`: (success, stdout + stderr).
fn openssl(dir: &Path, args: &[&str]) -> (bool, String) {
    let o = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs");
    (
        o.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

/// Whether `openssl` is installed; if not, a loud skip line, or a panic under CI.
fn have_openssl(what: &str) -> bool {
    if matches!(Command::new("openssl").arg("version").output(), Ok(o) if o.status.success()) {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    if ci || std::env::var("BATCHSIG_REQUIRE_OPENSSL").is_ok() {
        panic!("{what}: the `openssl` command line is not installed (required under CI)");
    }
    eprintln!(
        "SKIPPED {what}: the `openssl` command line is not installed (set \
         BATCHSIG_REQUIRE_OPENSSL=1 to make this a failure)"
    );
    false
}

/// The parts, one after another.
fn cat<'a>(parts: &[&[&'a str]]) -> Vec<&'a str> {
    parts.concat()
}

fn write(dir: &Path, name: &str, data: &[u8]) {
    std::fs::write(dir.join(name), data).unwrap();
}

fn abs(p: PathBuf) -> String {
    p.to_str().expect("UTF-8 temp path").to_string()
}

/// One RSA-2048 key for the whole test binary (generation is the slow part): `key.pem`
/// and `pub.pem` in a directory kept for the process's life.
fn rsa_key() -> &'static (String, String) {
    static KEY: OnceLock<(tempfile::TempDir, (String, String))> = OnceLock::new();
    &KEY.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        batchsig(
            dir.path(),
            &[
                "keygen", "--alg", "rsa2048", "--out", "key.pem", "--pub", "pub.pem",
            ],
        )
        .expect(0, "keygen rsa2048");
        let paths = (
            abs(dir.path().join("key.pem")),
            abs(dir.path().join("pub.pem")),
        );
        (dir, paths)
    })
    .1
}

/// A fresh EC key pair in `dir`: `{alg}.pem`, `{alg}.pub.pem`.
fn ec_key(dir: &Path, alg: &str) -> (String, String) {
    let (k, p) = (format!("{alg}.pem"), format!("{alg}.pub.pem"));
    batchsig(dir, &["keygen", "--alg", alg, "--out", &k, "--pub", &p]).expect(0, alg);
    (k, p)
}

fn messages(dir: &Path) -> [&'static str; 3] {
    write(dir, "a.txt", b"first message\n");
    write(dir, "b.txt", b"");
    write(
        dir,
        "c.bin",
        &(0..=255u8).cycle().take(200_000).collect::<Vec<u8>>(),
    );
    ["a.txt", "b.txt", "c.bin"]
}

#[test]
fn rsa2048_round_trips_pkcs1_and_pss() {
    let (key, public) = rsa_key();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = messages(d);
    for scheme in [
        None,
        Some("pkcs1-sha384"),
        Some("pss-sha256"),
        Some("pss-sha512"),
    ] {
        let opt: Vec<&str> = scheme.map_or(vec![], |s| vec!["--scheme", s]);
        let sign: Vec<&str> = cat(&[&["sign", "--key", key.as_str()], &opt, &files]);
        let out = batchsig(d, &sign).expect(0, "sign");
        assert!(out.stderr.contains("signed 3 items"), "{}", out.stderr);
        assert!(out.stderr.contains("items/s"), "{}", out.stderr);
        for f in files {
            assert_eq!(
                std::fs::read(d.join(format!("{f}.sig"))).unwrap().len(),
                256
            );
        }
        let verify: Vec<&str> = cat(&[&["verify", "--key", public.as_str()], &opt, &files]);
        let out = batchsig(d, &verify).expect(0, "verify");
        for f in files {
            assert!(out.stdout.contains(&format!("{f}: ok")), "{}", out.stdout);
        }
        assert!(out.stderr.contains("3 ok, 0 FAILED"), "{}", out.stderr);
        // The private key verifies too.
        let verify: Vec<&str> = cat(&[&["verify", "--key", key.as_str()], &opt, &files]);
        batchsig(d, &verify).expect(0, "verify with the private key");
    }
    // Signed with PSS-SHA512 (the last loop), checked as PKCS#1: every item fails.
    let verify: Vec<&str> = cat(&[&["verify", "--key", public.as_str()], &files]);
    let out = batchsig(d, &verify).expect(1, "wrong scheme");
    assert_eq!(
        out.stdout.matches(": FAILED: ").count(),
        3,
        "{}",
        out.stdout
    );
}

/// `--mgf1` and `--salt-len`: a signature made with them verifies with them, and fails
/// (exit 1) under the scheme's defaults for MGF1, and under another exact salt length.
#[test]
fn pss_mgf1_and_salt_length_flags_round_trip() {
    let (key, public) = rsa_key();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = messages(d);
    let pss = ["--scheme", "pss-sha256"];
    let opts = ["--mgf1", "sha384", "--salt-len", "40"];
    batchsig(d, &cat(&[&["sign", "--key", key], &pss, &opts, &files])).expect(0, "sign");
    let verify = |extra: &[&str]| {
        batchsig(
            d,
            &cat(&[&["verify", "--key", public.as_str()], &pss, extra, &files]),
        )
    };
    let out = verify(&opts).expect(0, "same parameters");
    assert!(out.stderr.contains("3 ok, 0 FAILED"), "{}", out.stderr);
    // any salt length, MGF1 as given
    verify(&["--mgf1", "sha384"]).expect(0, "any salt length");
    let out = verify(&[]).expect(1, "MGF1 defaulting to SHA-256");
    assert_eq!(
        out.stdout.matches(": FAILED: ").count(),
        3,
        "{}",
        out.stdout
    );
    verify(&["--mgf1", "sha384", "--salt-len", "32"]).expect(1, "another salt length");
}

#[test]
fn ecdsa_round_trips_every_curve() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = messages(d);
    for alg in ["p224", "p256", "p384", "p521"] {
        let (key, public) = ec_key(d, alg);
        let sign: Vec<&str> = cat(&[&["sign", "--key", key.as_str()], &files]);
        batchsig(d, &sign).expect(0, alg);
        let sig = std::fs::read(d.join("a.txt.sig")).unwrap();
        assert_eq!(sig[0], 0x30, "{alg}: a DER SEQUENCE");
        let verify: Vec<&str> = cat(&[&["verify", "--key", public.as_str()], &files]);
        let out = batchsig(d, &verify).expect(0, alg);
        assert_eq!(out.stdout.matches(": ok").count(), 3, "{}", out.stdout);
        // Another hash than the curve's: signs and verifies with it, fails without it.
        let sign: Vec<&str> = cat(&[&["sign", "--key", &key, "--hash", "sha512"], &files]);
        batchsig(d, &sign).expect(0, alg);
        let with: Vec<&str> = cat(&[&["verify", "--key", &public, "--hash", "sha512"], &files]);
        batchsig(d, &with).expect(0, alg);
        if alg != "p521" {
            let out = batchsig(d, &verify).expect(1, alg);
            assert_eq!(
                out.stdout.matches(": FAILED: ").count(),
                3,
                "{}",
                out.stdout
            );
        }
    }
}

/// Key, public key, batchsig options, `openssl dgst` hash, openssl `-sigopt`s.
type SignedByUs = (
    String,
    String,
    Vec<&'static str>,
    &'static str,
    Vec<&'static str>,
);

#[test]
fn openssl_verifies_what_batchsig_signs() {
    if !have_openssl("openssl_verifies_what_batchsig_signs") {
        return;
    }
    let (key, public) = rsa_key();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "m.txt", b"signed by batchsig, checked by openssl");
    let pss = [
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_pss_saltlen:digest",
    ];
    let mut cases: Vec<SignedByUs> = vec![
        (key.clone(), public.clone(), vec![], "-sha256", vec![]),
        (
            key.clone(),
            public.clone(),
            vec!["--scheme", "pkcs1-sha384"],
            "-sha384",
            vec![],
        ),
        (
            key.clone(),
            public.clone(),
            vec!["--scheme", "pss-sha256"],
            "-sha256",
            pss.to_vec(),
        ),
        (
            key.clone(),
            public.clone(),
            vec!["--scheme", "pss-sha512"],
            "-sha512",
            pss.to_vec(),
        ),
        // MGF1 with another hash (SHA-1 allowed there) and a salt length of our choosing.
        (
            key.clone(),
            public.clone(),
            vec![
                "--scheme",
                "pss-sha256",
                "--mgf1",
                "sha1",
                "--salt-len",
                "20",
            ],
            "-sha256",
            vec![
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:20",
                "-sigopt",
                "rsa_mgf1_md:sha1",
            ],
        ),
    ];
    for (alg, hash) in [
        ("p224", "-sha224"),
        ("p256", "-sha256"),
        ("p384", "-sha384"),
        ("p521", "-sha512"),
    ] {
        let (k, p) = ec_key(d, alg);
        cases.push((k.clone(), p.clone(), vec![], hash, vec![]));
        cases.push((k, p, vec!["--hash", "sha256"], "-sha256", vec![]));
    }
    for (k, p, opts, hash, sigopts) in cases {
        let sign: Vec<&str> = cat(&[&["sign", "--key", k.as_str()], &opts, &["m.txt"]]);
        batchsig(d, &sign).expect(0, &format!("{k} {opts:?}"));
        let args = cat(&[
            &[
                "dgst",
                hash,
                "-verify",
                p.as_str(),
                "-signature",
                "m.txt.sig",
            ],
            &sigopts,
            &["m.txt"],
        ]);
        let (ok, out) = openssl(d, &args);
        assert!(ok && out.contains("Verified OK"), "{k} {opts:?}: {out}");
    }
}

/// Key, public key, `openssl dgst` hash, openssl `-sigopt`s, batchsig options.
type SignedByOpenssl<'a> = (&'a str, &'a str, &'a str, Vec<&'a str>, Vec<&'a str>);

#[test]
fn batchsig_verifies_what_openssl_signs() {
    if !have_openssl("batchsig_verifies_what_openssl_signs") {
        return;
    }
    let (our_key, our_pub) = rsa_key();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "m.txt", b"signed by openssl, checked by batchsig");
    // openssl's own keys (and our PKCS#8 key read by openssl).
    let genpkey: [(&str, &[&str]); 5] = [
        (
            "rsa",
            &["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
        ),
        (
            "p224",
            &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-224"],
        ),
        (
            "p256",
            &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
        ),
        (
            "p384",
            &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
        ),
        (
            "p521",
            &["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"],
        ),
    ];
    for (name, opts) in genpkey {
        let k = format!("ossl-{name}.pem");
        let (ok, out) = openssl(d, &cat(&[&["genpkey"], opts, &["-out", &k]]));
        assert!(ok, "genpkey {name}: {out}");
        let p = format!("ossl-{name}.pub.pem");
        let (ok, out) = openssl(d, &["pkey", "-in", &k, "-pubout", "-out", &p]);
        assert!(ok, "pkey -pubout {name}: {out}");
    }
    // The same keys in the other encodings openssl writes: PKCS#1 RSA, SEC 1 EC, DER.
    let convert: [(&[&str], &str, &[u8]); 3] = [
        (
            &["rsa", "-in", "ossl-rsa.pem", "-traditional"],
            "ossl-rsa-pkcs1.pem",
            b"-----BEGIN RSA PRIVATE KEY-----",
        ),
        (
            &["ec", "-in", "ossl-p256.pem"],
            "ossl-p256-sec1.pem",
            b"-----BEGIN EC PRIVATE KEY-----",
        ),
        (
            &["pkey", "-in", "ossl-p384.pem", "-outform", "DER"],
            "ossl-p384.der",
            &[0x30],
        ),
    ];
    for (args, out, start) in convert {
        let (ok, text) = openssl(d, &cat(&[args, &["-out", out]]));
        assert!(ok, "{args:?}: {text}");
        assert!(
            std::fs::read(d.join(out)).unwrap().starts_with(start),
            "{out}"
        );
    }
    let pss_digest = [
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_pss_saltlen:digest",
    ];
    let pss_max = [
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_pss_saltlen:max",
    ];
    let cases: Vec<SignedByOpenssl<'_>> = vec![
        (
            "ossl-rsa.pem",
            "ossl-rsa.pub.pem",
            "-sha256",
            vec![],
            vec![],
        ),
        (
            "ossl-rsa.pem",
            "ossl-rsa.pub.pem",
            "-sha384",
            vec![
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:17",
                "-sigopt",
                "rsa_mgf1_md:sha512",
            ],
            vec![
                "--scheme",
                "pss-sha384",
                "--mgf1",
                "sha512",
                "--salt-len",
                "17",
            ],
        ),
        (
            "ossl-p224.pem",
            "ossl-p224.pub.pem",
            "-sha224",
            vec![],
            vec![],
        ),
        (
            "ossl-rsa.pem",
            "ossl-rsa.pub.pem",
            "-sha384",
            vec![],
            vec!["--scheme", "pkcs1-sha384"],
        ),
        (
            "ossl-rsa.pem",
            "ossl-rsa.pub.pem",
            "-sha256",
            pss_digest.to_vec(),
            vec!["--scheme", "pss-sha256"],
        ),
        (
            "ossl-rsa.pem",
            "ossl-rsa.pub.pem",
            "-sha256",
            pss_max.to_vec(),
            vec!["--scheme", "pss-sha256"],
        ),
        (our_key, our_pub, "-sha256", vec![], vec![]),
        (
            our_key,
            our_pub,
            "-sha512",
            pss_digest.to_vec(),
            vec!["--scheme", "pss-sha512"],
        ),
        (
            "ossl-p256.pem",
            "ossl-p256.pub.pem",
            "-sha256",
            vec![],
            vec![],
        ),
        (
            "ossl-p384.pem",
            "ossl-p384.pub.pem",
            "-sha384",
            vec![],
            vec![],
        ),
        (
            "ossl-p521.pem",
            "ossl-p521.pub.pem",
            "-sha512",
            vec![],
            vec![],
        ),
        (
            "ossl-p256.pem",
            "ossl-p256.pub.pem",
            "-sha384",
            vec![],
            vec!["--hash", "sha384"],
        ),
        (
            "ossl-rsa-pkcs1.pem",
            "ossl-rsa.pub.pem",
            "-sha256",
            vec![],
            vec![],
        ),
        (
            "ossl-p256-sec1.pem",
            "ossl-p256.pub.pem",
            "-sha256",
            vec![],
            vec![],
        ),
        (
            "ossl-p384.der",
            "ossl-p384.pub.pem",
            "-sha384",
            vec![],
            vec![],
        ),
    ];
    for (k, p, hash, sigopts, opts) in cases {
        let what = format!("{k} {hash} {sigopts:?}");
        let args: Vec<&str> = cat(&[
            &["dgst", hash, "-sign", k, "-out", "m.txt.sig"],
            &sigopts,
            &["m.txt"],
        ]);
        let (ok, out) = openssl(d, &args);
        assert!(ok, "{what}: {out}");
        let verify: Vec<&str> = cat(&[&["verify", "--key", p], &opts, &["m.txt"]]);
        let out = batchsig(d, &verify).expect(0, &what);
        assert!(out.stdout.contains("m.txt: ok"), "{what}: {}", out.stdout);
        // And batchsig signs with openssl's private key.
        let sign: Vec<&str> = cat(&[&["sign", "--key", k], &opts, &["m.txt"]]);
        batchsig(d, &sign).expect(0, &what);
        batchsig(d, &verify).expect(0, &what);
    }
}

/// The records of a JSON-lines file: (index, decoded signature).
fn records(text: &str) -> Vec<(u64, Vec<u8>)> {
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let sig = Base64::decode_vec(v["signature"].as_str().unwrap()).unwrap();
            (v["index"].as_u64().unwrap(), sig)
        })
        .collect()
}

#[test]
fn lines_round_trip() {
    let (key, public) = rsa_key();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Four messages: "alpha", "", "beta" (CRLF), "gamma" (no final newline).
    write(d, "msgs.txt", b"alpha\n\nbeta\r\ngamma");
    let (eckey, ecpub) = ec_key(d, "p256");
    for (k, p) in [(key.as_str(), public.as_str()), (&eckey, &ecpub)] {
        let sign = [
            "sign",
            "--key",
            k,
            "--lines",
            "msgs.txt",
            "--out",
            "sigs.jsonl",
            "--batch",
            "3",
        ];
        let out = batchsig(d, &sign).expect(0, k);
        assert!(out.stderr.contains("signed 4 items"), "{}", out.stderr);
        let text = std::fs::read_to_string(d.join("sigs.jsonl")).unwrap();
        let recs = records(&text);
        assert_eq!(
            recs.iter().map(|r| r.0).collect::<Vec<_>>(),
            [0, 1, 2, 3],
            "{text}"
        );
        assert!(
            text.starts_with("{\"index\": 0, \"signature\": \""),
            "{text}"
        );
        let verify = [
            "verify",
            "--key",
            p,
            "--lines",
            "msgs.txt",
            "--sigs",
            "sigs.jsonl",
            "--batch",
            "3",
        ];
        let out = batchsig(d, &verify).expect(0, k);
        for i in 0..4 {
            assert!(
                out.stdout.contains(&format!("index {i}: ok")),
                "{}",
                out.stdout
            );
        }
        // Record 2 signs "beta" without its line ending: check it as a file.
        write(d, "beta", b"beta");
        write(d, "beta.sig", &recs[2].1);
        batchsig(d, &["verify", "--key", p, "beta"]).expect(0, "line 2 as a file");
        // To stdout, the same records.
        let out = batchsig(d, &["sign", "--key", k, "--lines", "msgs.txt"]).expect(0, k);
        assert_eq!(records(&out.stdout).len(), 4);
        write(d, "stdout.jsonl", out.stdout.as_bytes());
        let verify = [
            "verify",
            "--key",
            p,
            "--lines",
            "msgs.txt",
            "--sigs",
            "stdout.jsonl",
        ];
        batchsig(d, &verify).expect(0, k);
    }
    // A tampered line fails alone.
    write(d, "msgs.txt", b"alpha\n\nBETA\r\ngamma");
    let verify = [
        "verify",
        "--key",
        &ecpub,
        "--lines",
        "msgs.txt",
        "--sigs",
        "sigs.jsonl",
    ];
    let out = batchsig(d, &verify).expect(1, "tampered line");
    assert!(out.stdout.contains("index 2: FAILED: "), "{}", out.stdout);
    assert_eq!(out.stdout.matches(": ok").count(), 3, "{}", out.stdout);
    // One line more than records, or a broken record: input errors.
    write(d, "msgs.txt", b"alpha\n\nbeta\r\ngamma\ndelta\n");
    let out = batchsig(d, &verify).expect(2, "more lines than records");
    assert!(out.stderr.contains("has more lines"), "{}", out.stderr);
    write(d, "msgs.txt", b"alpha\n");
    let out = batchsig(d, &verify).expect(2, "more records than lines");
    assert!(out.stderr.contains("more records"), "{}", out.stderr);
    write(d, "bad.jsonl", b"{\"index\": 0, \"signature\": \"***\"}\n");
    let bad = [
        "verify",
        "--key",
        &ecpub,
        "--lines",
        "msgs.txt",
        "--sigs",
        "bad.jsonl",
    ];
    let out = batchsig(d, &bad).expect(2, "bad base64");
    assert!(out.stderr.contains("base64"), "{}", out.stderr);
}

#[test]
fn tampered_files_fail_with_exit_1() {
    let (key, public) = rsa_key();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files = messages(d);
    let (eckey, ecpub) = ec_key(d, "p384");
    for (k, p) in [(key.as_str(), public.as_str()), (&eckey, &ecpub)] {
        let sign: Vec<&str> = cat(&[&["sign", "--key", k], &files]);
        batchsig(d, &sign).expect(0, k);
        write(d, "a.txt", b"first message, altered\n");
        let verify: Vec<&str> = cat(&[&["verify", "--key", p], &files]);
        let out = batchsig(d, &verify).expect(1, k);
        assert!(out.stdout.contains("a.txt: FAILED: "), "{}", out.stdout);
        assert!(out.stdout.contains("b.txt: ok"), "{}", out.stdout);
        assert!(out.stdout.contains("c.bin: ok"), "{}", out.stdout);
        assert!(out.stderr.contains("2 ok, 1 FAILED"), "{}", out.stderr);
        // A truncated signature file is a failed item, not a crash.
        let sig = std::fs::read(d.join("b.txt.sig")).unwrap();
        write(d, "b.txt.sig", &sig[..sig.len() - 1]);
        let out = batchsig(d, &verify).expect(1, k);
        assert!(out.stdout.contains("b.txt: FAILED: "), "{}", out.stdout);
        // --sig for one file.
        let out = batchsig(d, &["verify", "--key", p, "--sig", "c.bin.sig", "c.bin"]).expect(0, k);
        assert!(out.stdout.contains("c.bin: ok"), "{}", out.stdout);
        batchsig(d, &["verify", "--key", p, "--sig", "c.bin.sig", "b.txt"]).expect(1, k);
        messages(d);
    }
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let (key, public) = rsa_key();
    let (key, public) = (key.as_str(), public.as_str());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "a.txt", b"message");
    write(
        d,
        "garbage.pem",
        b"-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
    );
    write(d, "random.der", &[0x30, 0x82, 0xff, 0x01, 7, 7, 7]);
    let (eckey, ecpub) = ec_key(d, "p256");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["sign", "--key", "missing.pem", "a.txt"],
            "cannot read key missing.pem",
        ),
        (
            vec!["sign", "--key", "garbage.pem", "a.txt"],
            "not a usable RSA or EC private key",
        ),
        (
            vec!["sign", "--key", "random.der", "a.txt"],
            "not a usable RSA or EC private key",
        ),
        (
            vec!["verify", "--key", "garbage.pem", "a.txt"],
            "not a usable RSA or EC key",
        ),
        (vec!["sign", "--key", public, "a.txt"], "is a public key"),
        (
            vec!["sign", "--key", key, "--hash", "sha256", "a.txt"],
            "--hash is for ECDSA keys",
        ),
        (
            vec!["verify", "--key", public, "--hash", "sha384", "a.txt"],
            "--hash is for ECDSA keys",
        ),
        (
            vec!["sign", "--key", &eckey, "--scheme", "pss-sha256", "a.txt"],
            "is for RSA keys",
        ),
        (
            vec![
                "verify",
                "--key",
                &ecpub,
                "--scheme",
                "pkcs1-sha256",
                "a.txt",
            ],
            "is for RSA keys",
        ),
        (
            vec!["sign", "--key", key, "--mgf1", "sha1", "a.txt"],
            "--mgf1 and --salt-len are for RSA-PSS",
        ),
        (
            vec!["verify", "--key", &ecpub, "--salt-len", "32", "a.txt"],
            "--mgf1 and --salt-len are for RSA-PSS",
        ),
        (
            vec![
                "sign",
                "--key",
                key,
                "--scheme",
                "pss-sha256",
                "--mgf1",
                "md5",
                "a.txt",
            ],
            "unknown hash \"md5\"",
        ),
        (
            vec!["sign", "--key", key, "a.txt", "missing.txt"],
            "cannot read input file missing.txt",
        ),
        (
            vec!["verify", "--key", public, "a.txt"],
            "cannot read signature file a.txt.sig",
        ),
        (
            vec!["verify", "--key", public, "missing.txt"],
            "cannot read input file missing.txt",
        ),
        (
            vec!["sign", "--key", key, "--lines", "missing.txt"],
            "cannot read lines file",
        ),
        (
            vec!["sign", "--key", key, "--backend", "gpu9000", "a.txt"],
            "unknown backend",
        ),
        (
            vec!["sign", "--key", key, "--scheme", "pss-md5", "a.txt"],
            "invalid value",
        ),
        (vec!["sign", "--key", key], "required"),
        (
            vec!["sign", "--key", key, "--batch", "0", "a.txt"],
            "--batch",
        ),
        (vec!["keygen", "--alg", "p256", "--out", &eckey], "exists"),
    ];
    for (args, msg) in cases {
        let out = batchsig(d, &args).expect(2, &format!("{args:?}"));
        assert!(
            out.stderr.contains(msg),
            "{args:?}: want {msg:?} in:\n{}",
            out.stderr
        );
    }
    // The failed runs wrote nothing: no signature of a.txt, no temporary files.
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.ends_with(".sig") || n.ends_with(".tmp")),
        "{names:?}"
    );
}

#[test]
fn keygen_pubkey_and_run_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (key, public) = ec_key(d, "p256");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.join(&key))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "private key mode");
    }
    let pem = std::fs::read_to_string(d.join(&key)).unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"), "{pem}");
    batchsig(d, &["pubkey", "--key", &key, "--out", "again.pub.pem"]).expect(0, "pubkey");
    let (a, b) = (
        std::fs::read(d.join(&public)),
        std::fs::read(d.join("again.pub.pem")),
    );
    assert_eq!(a.unwrap(), b.unwrap());
    let out = batchsig(d, &["pubkey", "--key", &key]).expect(0, "pubkey to stdout");
    assert!(
        out.stdout.starts_with("-----BEGIN PUBLIC KEY-----"),
        "{}",
        out.stdout
    );
    batchsig(d, &["keygen", "--alg", "p384", "--out", &key, "--force"]).expect(0, "--force");
    let files = messages(d);
    let sign: Vec<&str> = cat(&[
        &[
            "sign",
            "--key",
            &key,
            "--backend",
            "scalar",
            "--threads",
            "1",
            "--batch",
            "1",
        ],
        &files,
    ]);
    let out = batchsig(d, &sign).expect(0, "scalar, 1 thread, batch 1");
    assert!(
        out.stderr.contains("signed 3 items") && out.stderr.contains("on backend scalar"),
        "{}",
        out.stderr
    );
    let verify: Vec<&str> = cat(&[&["verify", "--key", &key, "--batch", "2"], &files]);
    batchsig(d, &verify).expect(0, "verify, batch 2");
}

/// The interop tests never pass silently: without `openssl` on the PATH they print a SKIPPED
/// line, and under `CI=true` they fail. Runs this test binary again on one of them.
#[test]
fn missing_openssl_skips_loudly_and_fails_under_ci() {
    let inner = |ci: bool| {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args([
            "--exact",
            "openssl_verifies_what_batchsig_signs",
            "--nocapture",
        ])
        .env("PATH", "/nonexistent")
        .env_remove("BATCHSIG_REQUIRE_OPENSSL")
        .env_remove("CI");
        if ci {
            c.env("CI", "true");
        }
        let o = c.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.success(), text)
    };
    let (ok, text) = inner(false);
    assert!(
        ok && text.contains("SKIPPED openssl_verifies_what_batchsig_signs"),
        "{text}"
    );
    assert!(text.contains("1 passed"), "{text}");
    let (ok, text) = inner(true);
    assert!(
        !ok && text.contains("not installed (required under CI)"),
        "{text}"
    );
}

/// RSA-PSS keys from `openssl genpkey -algorithm RSA-PSS` (id-RSASSA-PSS, RFC 4055), without
/// and with parameters: batchsig signs with the key's parameters and openssl verifies, openssl
/// signs and batchsig verifies, and other schemes are refused (exit 2). One new hash each
/// way for RSA and ECDSA.
#[test]
fn rsa_pss_keys_and_new_hashes_with_openssl() {
    if !have_openssl("rsa_pss_keys_and_new_hashes_with_openssl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "m.txt",
        b"RSA-PSS keys and SHA-3 between batchsig and openssl",
    );
    let sig = d.join("m.txt.sig");
    let keygen: [(&str, &[&str]); 2] = [
        ("pss-any", &[]),
        (
            "pss-params",
            &[
                "-pkeyopt",
                "rsa_pss_keygen_md:sha256",
                "-pkeyopt",
                "rsa_pss_keygen_mgf1_md:sha256",
                "-pkeyopt",
                "rsa_pss_keygen_saltlen:32",
            ],
        ),
    ];
    let pss = ["-sigopt", "rsa_padding_mode:pss"];
    for (name, opts) in keygen {
        let (k, p) = (format!("{name}.pem"), format!("{name}.pub.pem"));
        let gen = cat(&[
            &["genpkey", "-algorithm", "RSA-PSS"],
            &["-pkeyopt", "rsa_keygen_bits:2048"],
            opts,
            &["-out", &k],
        ]);
        let (ok, out) = openssl(d, &gen);
        assert!(ok, "genpkey {name}: {out}");
        let (ok, out) = openssl(d, &["pkey", "-in", &k, "-pubout", "-out", &p]);
        assert!(ok, "pkey -pubout {name}: {out}");
        // batchsig → openssl, with the key's defaults.
        let _ = std::fs::remove_file(&sig);
        let out = batchsig(d, &["sign", "--key", &k, "m.txt"]).expect(0, name);
        assert!(
            out.stderr.contains("RSASSA-PSS/SHA-256/MGF1-SHA-256"),
            "{name}: {}",
            out.stderr
        );
        let verify = cat(&[
            &["dgst", "-sha256"],
            &pss,
            &["-verify", &p, "-signature", "m.txt.sig", "m.txt"],
        ]);
        let (ok, out) = openssl(d, &verify);
        assert!(ok && out.contains("Verified OK"), "{name}: openssl: {out}");
        // openssl → batchsig.
        let _ = std::fs::remove_file(&sig);
        let sign = cat(&[
            &["dgst", "-sha256"],
            &pss,
            &["-sign", &k, "-out", "m.txt.sig", "m.txt"],
        ]);
        let (ok, out) = openssl(d, &sign);
        assert!(ok, "{name}: openssl dgst -sign: {out}");
        batchsig(d, &["verify", "--key", &p, "m.txt"]).expect(0, name);
        // The signature fails under the wrong key type's scheme: exit 2, nothing signed.
        let out = batchsig(
            d,
            &["verify", "--key", &p, "--scheme", "pkcs1-sha256", "m.txt"],
        )
        .expect(2, name);
        assert!(
            out.stderr.contains("RSASSA-PSS only"),
            "{name}: {}",
            out.stderr
        );
        let _ = std::fs::remove_file(&sig);
        batchsig(
            d,
            &["sign", "--key", &k, "--scheme", "pkcs1-sha256", "m.txt"],
        )
        .expect(2, name);
        assert!(!sig.exists(), "{name}: a refused scheme wrote a signature");
    }
    // With parameters, another PSS hash is refused too; without, it is allowed.
    let out = batchsig(
        d,
        &[
            "sign",
            "--key",
            "pss-params.pem",
            "--scheme",
            "pss-sha384",
            "m.txt",
        ],
    )
    .expect(2, "pss-params with pss-sha384");
    assert!(
        out.stderr.contains("RSASSA-PSS parameters require"),
        "{}",
        out.stderr
    );
    let _ = std::fs::remove_file(&sig);
    batchsig(
        d,
        &[
            "sign",
            "--key",
            "pss-any.pem",
            "--scheme",
            "pss-sha3-256",
            "m.txt",
        ],
    )
    .expect(0, "pss-any with pss-sha3-256");
    let verify = cat(&[
        &["dgst", "-sha3-256"],
        &pss,
        &[
            "-verify",
            "pss-any.pub.pem",
            "-signature",
            "m.txt.sig",
            "m.txt",
        ],
    ]);
    let (ok, out) = openssl(d, &verify);
    assert!(
        ok && out.contains("Verified OK"),
        "pss-sha3-256: openssl: {out}"
    );

    // New hashes with ordinary keys: RSA PKCS#1 v1.5 SHA-512/224 and ECDSA P-384 SHA3-384,
    // batchsig → openssl and openssl → batchsig.
    let (rk, rp) = rsa_key();
    let (ek, ep) = ec_key(d, "p384");
    for (k, p, opts, dgst) in [
        (
            rk.as_str(),
            rp.as_str(),
            ["--scheme", "pkcs1-sha512-224"],
            "-sha512-224",
        ),
        (
            ek.as_str(),
            ep.as_str(),
            ["--hash", "sha3-384"],
            "-sha3-384",
        ),
    ] {
        let _ = std::fs::remove_file(&sig);
        batchsig(d, &cat(&[&["sign", "--key", k], &opts, &["m.txt"]])).expect(0, dgst);
        let (ok, out) = openssl(
            d,
            &[
                "dgst",
                dgst,
                "-verify",
                p,
                "-signature",
                "m.txt.sig",
                "m.txt",
            ],
        );
        assert!(ok && out.contains("Verified OK"), "{dgst}: openssl: {out}");
        let _ = std::fs::remove_file(&sig);
        let (ok, out) = openssl(d, &["dgst", dgst, "-sign", k, "-out", "m.txt.sig", "m.txt"]);
        assert!(ok, "{dgst}: openssl dgst -sign: {out}");
        batchsig(d, &cat(&[&["verify", "--key", p], &opts, &["m.txt"]])).expect(0, dgst);
        // And the other hash of the same size does not verify it (exit 1).
        let wrong = if dgst == "-sha512-224" {
            ["--scheme", "pkcs1-sha3-224"]
        } else {
            ["--hash", "sha384"]
        };
        batchsig(d, &cat(&[&["verify", "--key", p], &wrong, &["m.txt"]])).expect(1, dgst);
    }
}
