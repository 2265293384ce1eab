//! Postings: the sorted document numbers of one term, delta-encoded as LEB128 varints.

pub fn encode(docs: &[u32], out: &mut Vec<u8>) {
    let mut prev = 0u32;
    for (i, &d) in docs.iter().enumerate() {
        let mut delta = if i == 0 { d } else { d - prev };
        prev = d;
        loop {
            let b = (delta & 0x7f) as u8;
            delta >>= 7;
            if delta == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        }
    }
}

pub fn decode_into(mut bytes: &[u8], out: &mut Vec<u32>) {
    let mut prev = 0u32;
    let mut first = true;
    while !bytes.is_empty() {
        let mut v = 0u32;
        let mut shift = 0;
        loop {
            let b = bytes[0];
            bytes = &bytes[1..];
            v |= ((b & 0x7f) as u32) << shift;
            shift += 7;
            if b & 0x80 == 0 || bytes.is_empty() {
                break;
            }
        }
        let d = if first { v } else { prev + v };
        first = false;
        prev = d;
        out.push(d);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn roundtrip() {
        let docs = vec![0, 1, 5, 127, 128, 300, 70000, 4_000_000_000];
        let mut buf = Vec::new();
        super::encode(&docs, &mut buf);
        let mut out = Vec::new();
        super::decode_into(&buf, &mut out);
        assert_eq!(out, docs);
    }
}
