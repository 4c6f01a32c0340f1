//! The bytes a simulated handshake puts on the wire, and the parsers each side runs on what it
//! receives.
//!
//! Handshake messages follow RFC 8446 §4 framing (`type ‖ u24 length ‖ body`) closely enough
//! that a byte flipped in flight lands where it would in a real handshake (a key share, a
//! certificate, a signature); certificates are X.509 DER ([`crate::x509`]). Parsers are
//! total: any input, corrupted or truncated, gives `Err`, never a panic.

/// RFC 8446 §4.4.3: 64 spaces, the context string, a zero byte, then the transcript hash.
pub const CERTIFICATE_VERIFY_PAD: [u8; 64] = [0x20; 64];
/// RFC 8446 §4.4.3 context string for a server's CertificateVerify.
pub const SERVER_CONTEXT: &[u8] = b"TLS 1.3, server CertificateVerify";

/// Handshake message types (RFC 8446 §4).
const CLIENT_HELLO: u8 = 1;
const SERVER_HELLO: u8 = 2;
const ENCRYPTED_EXTENSIONS: u8 = 8;
const CERTIFICATE: u8 = 11;
const CERTIFICATE_VERIFY: u8 = 15;

/// Extension code points (RFC 8446 §4.2).
const EXT_SUPPORTED_GROUPS: u16 = 0x000a;
const EXT_SIGNATURE_ALGORITHMS: u16 = 0x000d;
const EXT_SUPPORTED_VERSIONS: u16 = 0x002b;
const EXT_SIGNATURE_ALGORITHMS_CERT: u16 = 0x0032;
const EXT_KEY_SHARE: u16 = 0x0033;

/// The content a server signs in CertificateVerify (RFC 8446 §4.4.3).
pub fn certificate_verify_content(transcript_hash: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + SERVER_CONTEXT.len() + 1 + transcript_hash.len());
    out.extend_from_slice(&CERTIFICATE_VERIFY_PAD);
    out.extend_from_slice(SERVER_CONTEXT);
    out.push(0);
    out.extend_from_slice(transcript_hash);
    out
}

fn put_u16(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u16).to_be_bytes());
}

fn put_u24(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u32).to_be_bytes()[1..]);
}

fn handshake(msg_type: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + body.len());
    out.push(msg_type);
    put_u24(&mut out, body.len());
    out.extend_from_slice(body);
    out
}

fn extension(out: &mut Vec<u8>, ext: u16, data: &[u8]) {
    put_u16(out, ext as usize);
    put_u16(out, data.len());
    out.extend_from_slice(data);
}

/// `KeyShareEntry` (RFC 8446 §4.2.8): group, then the share with its u16 length.
fn key_share_entry(group: u16, share: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + share.len());
    put_u16(&mut out, group as usize);
    put_u16(&mut out, share.len());
    out.extend_from_slice(share);
    out
}

fn scheme_list(schemes: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + 2 * schemes.len());
    put_u16(&mut out, 2 * schemes.len());
    for &s in schemes {
        put_u16(&mut out, s as usize);
    }
    out
}

/// ClientHello offering one cipher suite, one group, one CertificateVerify signature scheme
/// (`signature_algorithms`) and the schemes it accepts in certificates
/// (`signature_algorithms_cert`, RFC 8446 §4.2.3); the key share is the last extension, so
/// the message's last byte is the share's last byte.
pub fn client_hello(
    random: &[u8; 32],
    cipher_suite: u16,
    group: u16,
    sig_scheme: u16,
    cert_schemes: &[u16],
    share: &[u8],
) -> Vec<u8> {
    let mut body = Vec::with_capacity(128 + share.len());
    body.extend_from_slice(&[0x03, 0x03]);
    body.extend_from_slice(random);
    body.push(0); // legacy_session_id
    put_u16(&mut body, 2);
    put_u16(&mut body, cipher_suite as usize);
    body.extend_from_slice(&[1, 0]); // legacy_compression_methods: null
    let mut exts = Vec::new();
    extension(&mut exts, EXT_SUPPORTED_VERSIONS, &[2, 0x03, 0x04]);
    extension(
        &mut exts,
        EXT_SUPPORTED_GROUPS,
        &[0, 2, (group >> 8) as u8, group as u8],
    );
    extension(
        &mut exts,
        EXT_SIGNATURE_ALGORITHMS,
        &scheme_list(&[sig_scheme]),
    );
    extension(
        &mut exts,
        EXT_SIGNATURE_ALGORITHMS_CERT,
        &scheme_list(cert_schemes),
    );
    let entry = key_share_entry(group, share);
    let mut ks = Vec::with_capacity(2 + entry.len());
    put_u16(&mut ks, entry.len()); // client_shares list
    ks.extend_from_slice(&entry);
    extension(&mut exts, EXT_KEY_SHARE, &ks);
    put_u16(&mut body, exts.len());
    body.extend_from_slice(&exts);
    handshake(CLIENT_HELLO, &body)
}

/// ServerHello; the key share is the last extension, as in [`client_hello`].
pub fn server_hello(random: &[u8; 32], cipher_suite: u16, group: u16, share: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(96 + share.len());
    body.extend_from_slice(&[0x03, 0x03]);
    body.extend_from_slice(random);
    body.push(0); // legacy_session_id_echo
    put_u16(&mut body, cipher_suite as usize);
    body.push(0);
    let mut exts = Vec::new();
    extension(&mut exts, EXT_SUPPORTED_VERSIONS, &[0x03, 0x04]);
    extension(&mut exts, EXT_KEY_SHARE, &key_share_entry(group, share));
    put_u16(&mut body, exts.len());
    body.extend_from_slice(&exts);
    handshake(SERVER_HELLO, &body)
}

/// An empty EncryptedExtensions message.
pub fn encrypted_extensions() -> Vec<u8> {
    handshake(ENCRYPTED_EXTENSIONS, &[0, 0])
}

/// Certificate message (RFC 8446 §4.4.2 framing): empty request context, then each DER
/// certificate as `u24 len ‖ cert_data ‖ u16 extensions (empty)`. Returns the message and the
/// offset of each certificate within it.
pub fn certificate(certs: &[Vec<u8>]) -> (Vec<u8>, Vec<usize>) {
    let mut list = Vec::new();
    let mut offsets = Vec::with_capacity(certs.len());
    // header 4, context 1, list length 3, then per certificate its u24 length
    let start = 4 + 1 + 3;
    for c in certs {
        put_u24(&mut list, c.len());
        offsets.push(start + list.len());
        list.extend_from_slice(c);
        put_u16(&mut list, 0);
    }
    let mut body = Vec::with_capacity(4 + list.len());
    body.push(0);
    put_u24(&mut body, list.len());
    body.extend_from_slice(&list);
    (handshake(CERTIFICATE, &body), offsets)
}

/// The certificates (DER, not parsed) of a Certificate message, borrowing from it.
pub fn parse_certificate(msg: &[u8]) -> Result<Vec<&[u8]>, &'static str> {
    let body = parse_handshake(msg, CERTIFICATE)?;
    let mut r = Reader(body);
    let ctx = r.take(1)?[0] as usize;
    r.take(ctx)?;
    let n = r.u24()?;
    let mut list = Reader(r.take(n)?);
    r.end()?;
    let mut out = Vec::new();
    while !list.0.is_empty() {
        let n = list.u24()?;
        out.push(list.take(n)?);
        let n = list.u16()?;
        list.take(n)?;
    }
    Ok(out)
}

/// CertificateVerify: `u16 scheme ‖ u16 len ‖ signature`.
pub fn certificate_verify(sig_scheme: u16, signature: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(4 + signature.len());
    put_u16(&mut body, sig_scheme as usize);
    put_u16(&mut body, signature.len());
    body.extend_from_slice(signature);
    handshake(CERTIFICATE_VERIFY, &body)
}

/// Offset of the signature's first byte in a CertificateVerify message.
pub const CERTIFICATE_VERIFY_SIG_OFFSET: usize = 8;

/// Parses a CertificateVerify message: `(scheme, signature)`.
pub fn parse_certificate_verify(msg: &[u8]) -> Result<(u16, &[u8]), &'static str> {
    let mut r = Reader(parse_handshake(msg, CERTIFICATE_VERIFY)?);
    let scheme = r.u16()? as u16;
    let n = r.u16()?;
    let sig = r.take(n)?;
    r.end()?;
    Ok((scheme, sig))
}

/// The body of extension `ext` of a ClientHello.
fn client_hello_extension(msg: &[u8], ext: u16) -> Result<&[u8], &'static str> {
    let mut r = Reader(parse_handshake(msg, CLIENT_HELLO)?);
    r.take(2 + 32)?;
    let n = r.take(1)?[0] as usize;
    r.take(n)?;
    let n = r.u16()?;
    r.take(n)?;
    let n = r.take(1)?[0] as usize;
    r.take(n)?;
    find_extension(&mut r, ext)
}

/// The schemes of a ClientHello's `signature_algorithms` (`cert: false`) or
/// `signature_algorithms_cert` (`cert: true`) extension.
pub fn client_hello_schemes(msg: &[u8], cert: bool) -> Result<Vec<u16>, &'static str> {
    let ext = if cert {
        EXT_SIGNATURE_ALGORITHMS_CERT
    } else {
        EXT_SIGNATURE_ALGORITHMS
    };
    let mut r = Reader(client_hello_extension(msg, ext)?);
    let n = r.u16()?;
    let mut list = Reader(r.take(n)?);
    r.end()?;
    if n == 0 || n % 2 != 0 {
        return Err("malformed signature scheme list");
    }
    let mut out = Vec::with_capacity(n / 2);
    while !list.0.is_empty() {
        out.push(list.u16()? as u16);
    }
    Ok(out)
}

/// The key share of a ClientHello for `group` (RFC 8446 §4.2.8).
pub fn client_hello_share(msg: &[u8], group: u16) -> Result<&[u8], &'static str> {
    let data = client_hello_extension(msg, EXT_KEY_SHARE)?;
    let mut ks = Reader(data);
    let n = ks.u16()?;
    let list = Reader(ks.take(n)?);
    ks.end()?;
    find_entry(list, group, "no key share for the group")
}

/// The key share of a ServerHello; the group must be `group`.
pub fn server_hello_share(msg: &[u8], group: u16) -> Result<&[u8], &'static str> {
    let mut r = Reader(parse_handshake(msg, SERVER_HELLO)?);
    r.take(2 + 32)?;
    let n = r.take(1)?[0] as usize;
    r.take(n)?;
    r.take(3)?; // cipher suite, compression
    let data = find_extension(&mut r, EXT_KEY_SHARE)?;
    let mut ks = Reader(data);
    if ks.u16()? as u16 != group {
        return Err("key share for another group");
    }
    let n = ks.u16()?;
    let share = ks.take(n)?;
    ks.end()?;
    Ok(share)
}

fn find_extension<'a>(r: &mut Reader<'a>, ext: u16) -> Result<&'a [u8], &'static str> {
    let n = r.u16()?;
    let exts = Reader(r.take(n)?);
    r.end()?;
    find_entry(exts, ext, "extension missing")
}

/// The body of the first `tag(u16) ‖ length(u16) ‖ body` entry of `list` with this tag
/// (extensions, key-share entries); `missing` when none has it.
fn find_entry<'a>(
    mut list: Reader<'a>,
    tag: u16,
    missing: &'static str,
) -> Result<&'a [u8], &'static str> {
    while !list.0.is_empty() {
        let t = list.u16()?;
        let n = list.u16()?;
        let body = list.take(n)?;
        if t == usize::from(tag) {
            return Ok(body);
        }
    }
    Err(missing)
}

fn parse_handshake(msg: &[u8], msg_type: u8) -> Result<&[u8], &'static str> {
    let mut r = Reader(msg);
    if r.take(1)?[0] != msg_type {
        return Err("unexpected handshake message type");
    }
    let n = r.u24()?;
    let body = r.take(n)?;
    r.end()?;
    Ok(body)
}

/// A bounds-checked cursor.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        if n > self.0.len() {
            return Err("truncated message");
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    fn u16(&mut self) -> Result<usize, &'static str> {
        let b = self.take(2)?;
        Ok(usize::from(b[0]) << 8 | usize::from(b[1]))
    }

    fn u24(&mut self) -> Result<usize, &'static str> {
        let b = self.take(3)?;
        Ok(usize::from(b[0]) << 16 | usize::from(b[1]) << 8 | usize::from(b[2]))
    }

    fn end(&self) -> Result<(), &'static str> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err("trailing bytes")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_verify_content_layout() {
        let h = [0xabu8; 32];
        let c = certificate_verify_content(&h);
        assert_eq!(c.len(), 64 + 33 + 1 + 32);
        assert!(c[..64].iter().all(|&b| b == 0x20));
        assert_eq!(&c[64..97], b"TLS 1.3, server CertificateVerify");
        assert_eq!(c[97], 0);
        assert_eq!(&c[98..], &h);
    }

    const CERT_SCHEMES: [u16; 2] = [0x0401, 0x0503];

    #[test]
    fn hellos_round_trip_and_share_is_last() {
        let share = [4u8, 1, 2, 3, 4];
        let ch = client_hello(&[7; 32], 0x1301, 0x0017, 0x0403, &CERT_SCHEMES, &share);
        assert_eq!(client_hello_share(&ch, 0x0017).unwrap(), &share);
        assert!(client_hello_share(&ch, 0x0018).is_err());
        assert_eq!(client_hello_schemes(&ch, false).unwrap(), vec![0x0403]);
        assert_eq!(
            client_hello_schemes(&ch, true).unwrap(),
            CERT_SCHEMES.to_vec()
        );
        assert_eq!(ch.last(), share.last());
        let sh = server_hello(&[9; 32], 0x1301, 0x0017, &share);
        assert_eq!(server_hello_share(&sh, 0x0017).unwrap(), &share);
        assert!(server_hello_share(&sh, 0x0018).is_err());
        assert_eq!(sh.last(), share.last());
    }

    #[test]
    fn certificate_and_certificate_verify_round_trip() {
        let certs = vec![vec![0x30, 3, 1, 2, 3], vec![0x30; 300]];
        let (msg, offsets) = certificate(&certs);
        for (c, &o) in certs.iter().zip(&offsets) {
            assert_eq!(&msg[o..o + c.len()], &c[..]);
        }
        let parsed = parse_certificate(&msg).unwrap();
        assert_eq!(parsed, vec![&certs[0][..], &certs[1][..]]);
        let cv = certificate_verify(0x0804, &[5; 256]);
        assert_eq!(
            parse_certificate_verify(&cv).unwrap(),
            (0x0804, &[5u8; 256][..])
        );
        assert_eq!(cv[CERTIFICATE_VERIFY_SIG_OFFSET], 5);
    }

    #[test]
    fn parsers_reject_every_truncation_without_panicking() {
        let share = [4u8; 65];
        let ch = client_hello(&[7; 32], 0x1301, 0x0017, 0x0403, &CERT_SCHEMES, &share);
        let sh = server_hello(&[9; 32], 0x1301, 0x0017, &share);
        let (cert, _) = certificate(&[vec![0x30, 1, 0]]);
        let cv = certificate_verify(0x0804, &[5; 16]);
        for n in 0..ch.len() {
            assert!(client_hello_share(&ch[..n], 0x0017).is_err());
            assert!(client_hello_schemes(&ch[..n], true).is_err());
        }
        for n in 0..sh.len() {
            assert!(server_hello_share(&sh[..n], 0x0017).is_err());
        }
        for n in 0..cert.len() {
            assert!(parse_certificate(&cert[..n]).is_err());
        }
        for n in 0..cv.len() {
            assert!(parse_certificate_verify(&cv[..n]).is_err());
        }
    }
}
