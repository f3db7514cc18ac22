// The reference's acceptance rules (rules.md) expressed with real serde + serde_json, the
// parser the reference uses, built offline from Debian's crates. Prints "PATH\tVERDICT" per file:
// valid(N) or the reference error name (InvalidOffset(name) with its tensor).
use serde::Deserialize;
use std::collections::HashMap;

#[allow(non_camel_case_types)]
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dtype { BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64 }
impl Dtype {
    fn bitsize(&self) -> usize {
        use Dtype::*;
        match self { F4 => 4, F6_E2M3 | F6_E3M2 => 6, BOOL | U8 | I8 | F8_E5M2 | F8_E4M3 | F8_E8M0 | F8_E4M3FNUZ | F8_E5M2FNUZ => 8,
            I16 | U16 | F16 | BF16 => 16, I32 | U32 | F32 => 32, C64 | F64 | I64 | U64 => 64 }
    }
}
#[derive(Debug, Deserialize)]
struct TensorInfo { dtype: Dtype, shape: Vec<usize>, data_offsets: (usize, usize) }
#[derive(Deserialize)]
struct HashMetadata {
    #[serde(rename = "__metadata__")]
    metadata: Option<HashMap<String, String>>,
    #[serde(flatten)]
    tensors: HashMap<String, TensorInfo>,
}

fn verdict(buffer: &[u8]) -> String {
    let buffer_len = buffer.len();
    if buffer_len < 8 { return "HeaderTooSmall".into(); }
    let n = u64::from_le_bytes(buffer[..8].try_into().unwrap()) as usize;
    if n > 100_000_000 { return "HeaderTooLarge".into(); }
    let stop = match n.checked_add(8) { Some(s) => s, None => return "InvalidHeaderLength".into() };
    if stop > buffer_len { return "InvalidHeaderLength".into(); }
    let string = match std::str::from_utf8(&buffer[8..stop]) { Ok(s) => s, Err(_) => return "InvalidHeader".into() };
    let hm: HashMetadata = match serde_json::from_str(string) { Ok(m) => m, Err(_) => return "InvalidHeaderDeserialization".into() };
    let _ = hm.metadata;
    let mut tensors: Vec<_> = hm.tensors.into_iter().collect();
    tensors.sort_by(|(_, l), (_, r)| l.data_offsets.cmp(&r.data_offsets));
    let mut start = 0usize;
    for (name, info) in &tensors {
        let (s, e) = info.data_offsets;
        if s != start || e < s { return format!("InvalidOffset({})", name); }
        start = e;
        let nelements = match info.shape.iter().cloned().try_fold(1usize, usize::checked_mul) { Some(v) => v, None => return "ValidationOverflow".into() };
        let nbits = match nelements.checked_mul(info.dtype.bitsize()) { Some(v) => v, None => return "ValidationOverflow".into() };
        if nbits % 8 != 0 { return "MisalignedSlice".into(); }
        if e - s != nbits / 8 { return "TensorInvalidInfo".into(); }
    }
    if start.wrapping_add(8).wrapping_add(n) != buffer_len { return "MetadataIncompleteBuffer".into(); }
    format!("valid({})", tensors.len())
}

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap();
        println!("{}\t{}", path, verdict(&bytes));
    }
}
