//! The hash chain: how one line names the line before it.

use sha2::{Digest, Sha256};

/// The `prev` of the first line of a log.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Hex SHA-256 of a line's bytes, without its trailing newline.
pub fn line_hash(line: &[u8]) -> String {
    hex(&Sha256::digest(line))
}

/// Lowercase hex of some bytes.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// The chain fields of a line, read without caring about the rest, so that lines
/// with fields added by later versions still verify.
#[derive(Debug, serde::Deserialize)]
pub struct ChainFields {
    pub seq: u64,
    pub prev: String,
    /// Set on `dropped` markers.
    #[serde(default)]
    pub dropped: Option<u64>,
}

/// Parses the chain fields of a line.
pub fn chain_fields(line: &[u8]) -> Result<ChainFields, serde_json::Error> {
    serde_json::from_slice(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_of_the_empty_line_is_the_sha256_of_nothing() {
        assert_eq!(
            line_hash(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(GENESIS.len(), 64);
    }
}
