//! On-disk segment header for Lumen's storage engine.
//!
//! A segment starts with a 32-byte header: magic, format version, flags,
//! document count and a random 128-bit segment id.

use std::fmt;
use std::io::{self, Read, Write};

/// The four magic bytes every segment file starts with.
pub const MAGIC: [u8; 4] = *b"LMN1";
/// Current on-disk format version.
pub const FORMAT_VERSION: u16 = 7;

/// Compression applied to stored documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Lz4,
    Zstd { level: i32 },
}

/// Errors raised while decoding a segment.
#[derive(Debug)]
pub enum SegmentError {
    BadMagic([u8; 4]),
    UnsupportedVersion(u16),
    Io(io::Error),
}

impl fmt::Display for SegmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentError::BadMagic(m) => write!(f, "bad magic {:?}", m),
            SegmentError::UnsupportedVersion(v) => write!(f, "unsupported format version {}", v),
            SegmentError::Io(e) => write!(f, "i/o error: {}", e),
        }
    }
}

impl From<io::Error> for SegmentError {
    fn from(e: io::Error) -> Self {
        SegmentError::Io(e)
    }
}

/// Anything that can be written to and read back from a byte stream.
pub trait Codec: Sized {
    fn encode<W: Write>(&self, out: &mut W) -> io::Result<()>;
    fn decode<R: Read>(input: &mut R) -> Result<Self, SegmentError>;
}

/// The fixed-size header at offset 0 of `docs.bin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentHeader {
    pub version: u16,
    pub compressed: bool,
    pub doc_count: u64,
    pub segment_id: u128,
}

impl SegmentHeader {
    /// Creates a header for a new segment with the current format version.
    pub fn new(doc_count: u64, segment_id: u128, compression: Compression) -> Self {
        SegmentHeader {
            version: FORMAT_VERSION,
            compressed: compression != Compression::None,
            doc_count,
            segment_id,
        }
    }

    fn flags(&self) -> u16 {
        if self.compressed { 1 } else { 0 }
    }
}

impl Codec for SegmentHeader {
    fn encode<W: Write>(&self, out: &mut W) -> io::Result<()> {
        out.write_all(&MAGIC)?;
        out.write_all(&self.version.to_le_bytes())?;
        out.write_all(&self.flags().to_le_bytes())?;
        out.write_all(&self.doc_count.to_le_bytes())?;
        out.write_all(&self.segment_id.to_le_bytes())
    }

    fn decode<R: Read>(input: &mut R) -> Result<Self, SegmentError> {
        let mut buf = [0u8; 32];
        input.read_exact(&mut buf)?;
        let magic = [buf[0], buf[1], buf[2], buf[3]];
        if magic != MAGIC {
            return Err(SegmentError::BadMagic(magic));
        }
        let version = u16::from_le_bytes([buf[4], buf[5]]);
        if version > FORMAT_VERSION {
            return Err(SegmentError::UnsupportedVersion(version));
        }
        let flags = u16::from_le_bytes([buf[6], buf[7]]);
        Ok(SegmentHeader {
            version,
            compressed: flags & 1 == 1,
            doc_count: u64::from_le_bytes(buf[8..16].try_into().unwrap()),
            segment_id: u128::from_le_bytes(buf[16..32].try_into().unwrap()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_header_roundtrip() {
        let h = SegmentHeader::new(42, 0xdead_beef, Compression::Zstd { level: 3 });
        let mut bytes = Vec::new();
        h.encode(&mut bytes).unwrap();
        assert_eq!(bytes.len(), 32);
        assert_eq!(SegmentHeader::decode(&mut bytes.as_slice()).unwrap(), h);
    }

    #[test]
    fn test_bad_magic_is_rejected() {
        let bytes = [0u8; 32];
        assert!(matches!(SegmentHeader::decode(&mut &bytes[..]), Err(SegmentError::BadMagic(_))));
    }
}
