//! Shared key-encoding helpers.

use crate::Error;

/// Decodes PEM (returning its label) or passes DER through unchanged.
pub fn pem_or_der(input: &[u8]) -> Result<(Option<String>, Vec<u8>), Error> {
    let trimmed = input.trim_ascii_start();
    if trimmed.starts_with(b"-----BEGIN") {
        let (label, der) =
            der::pem::decode_vec(trimmed).map_err(|e| Error::InvalidKey(format!("PEM: {e}")))?;
        Ok((Some(label.to_string()), der))
    } else {
        Ok((None, input.to_vec()))
    }
}
