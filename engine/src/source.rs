//! Input line formats. A `LineContext` (format, CSV header and delimiter, key mapping) is
//! kept in segment.json for every input file, and the store keeps only the original line:
//! fields and the raw record are parsed from it again when a record is displayed, so the
//! values are not stored twice.

use crate::fields::{field_index, normalize, FIELDS, FIELD_COUNT};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Auto,
    Jsonl,
    Csv,
    Combo,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Combo => "combo",
        }
    }
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "auto" => Format::Auto,
            "jsonl" | "json" => Format::Jsonl,
            "csv" | "tsv" => Format::Csv,
            "combo" => Format::Combo,
            _ => return None,
        })
    }
}

/// A record as parsed from the input, before normalisation.
#[derive(Debug, Default, Clone)]
pub struct SourceRecord {
    pub fields: [Vec<String>; FIELD_COUNT],
    pub raw: String,
}

pub fn normalize_record(rec: &SourceRecord) -> [Vec<String>; FIELD_COUNT] {
    let mut out: [Vec<String>; FIELD_COUNT] = Default::default();
    for (i, vals) in rec.fields.iter().enumerate() {
        for v in vals {
            if let Some(n) = normalize(i, v) {
                out[i].push(n);
            }
        }
    }
    out
}

pub fn norm_col(c: &str) -> String {
    c.trim().trim_matches('"').trim().to_lowercase().replace([' ', '-', '.'], "_")
}

/// Column or JSON key name -> field, for the common spellings found in dumps.
pub fn alias(col: &str) -> Option<usize> {
    let c = norm_col(col);
    if let Some(i) = field_index(&c) {
        return Some(i);
    }
    let f = match c.as_str() {
        "mail" | "e_mail" | "email_address" | "emailaddress" | "mail_address" | "user_email" => "email",
        "user" | "user_name" | "login" | "nick" | "nickname" | "screen_name" | "handle" | "uname" | "account" => "username",
        "pass" | "passwd" | "pwd" | "plaintext" | "plain_password" | "password_plain" | "pw" => "password",
        "hash" | "password_hash" | "passwordhash" | "pass_hash" | "hashed" | "md5" | "sha1" | "sha256" | "sha512" | "bcrypt" | "passhash" => "hashed_password",
        "ip" | "ipaddress" | "ip_addr" | "last_ip" | "reg_ip" | "regip" | "lastip" | "ipv4" | "ipv6" => "ip_address",
        "full_name" | "fullname" | "first_name" | "last_name" | "firstname" | "lastname" | "surname" | "display_name" => "name",
        "birthdate" | "birth_date" | "date_of_birth" | "birthday" | "dateofbirth" => "dob",
        "plate" | "licence_plate" | "licenseplate" | "registration" => "license_plate",
        "vin_number" | "vehicle_vin" => "vin",
        "street" | "street_address" | "addr" | "address1" | "address_line" | "city" | "zip" | "postcode" | "postal_code" => "address",
        "phone_number" | "phonenumber" | "mobile" | "tel" | "telephone" | "cell" | "cellphone" | "msisdn" => "phone",
        "organization" | "organisation" | "employer" | "company_name" => "company",
        "website" | "site" | "link" | "homepage" => "url",
        "facebook" | "twitter" | "linkedin" | "instagram" | "social_media" => "social",
        "wallet" | "btc" | "btc_address" | "eth_address" | "crypto" | "crypto_address" | "bitcoin" => "cryptocurrency_address",
        "hostname" | "host" => "domain",
        _ => return None,
    };
    field_index(f)
}

pub fn split_delimited(line: &str, delim: char) -> std::result::Result<Vec<String>, &'static str> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut in_q = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if in_q {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    in_q = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && at_start {
            in_q = true;
            at_start = false;
        } else if c == delim {
            out.push(std::mem::take(&mut cur));
            at_start = true;
        } else {
            cur.push(c);
            at_start = false;
        }
    }
    if in_q {
        return Err("unterminated quoted field");
    }
    out.push(cur);
    Ok(out)
}

pub fn detect_delimiter(header: &str) -> char {
    let cands = [',', '\t', ';', '|'];
    *cands.iter().max_by_key(|d| header.matches(**d).count()).unwrap()
}

fn json_scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[derive(Clone, Debug)]
pub struct LineContext {
    pub format: Format,
    pub header: Vec<String>,
    pub delim: char,
    /// The operator's `--map` (normalised column name -> field).
    pub map: HashMap<String, usize>,
    colmap: Vec<Option<usize>>,
}

impl LineContext {
    pub fn new(format: Format, header: Vec<String>, delim: char, map: HashMap<String, usize>) -> LineContext {
        let colmap = header.iter().map(|h| map.get(&norm_col(h)).copied().or_else(|| alias(h))).collect();
        LineContext { format, header, delim, map, colmap }
    }

    /// The field of each CSV column (`--map` first, then the header aliases), or None.
    pub fn columns(&self) -> &[Option<usize>] {
        &self.colmap
    }

    pub fn maps_any_column(&self) -> bool {
        self.colmap.iter().any(|m| m.is_some())
    }

    /// The field of a JSON key (`--map` first, then the aliases), or None.
    pub fn key(&self, k: &str) -> Option<usize> {
        self.map.get(&norm_col(k)).copied().or_else(|| alias(k))
    }

    pub fn to_json(&self) -> Value {
        let map: Map<String, Value> = self.map.iter().map(|(k, v)| (k.clone(), json!(FIELDS[*v]))).collect();
        json!({ "format": self.format.name(), "header": self.header, "delimiter": self.delim.to_string(), "map": map })
    }

    pub fn from_json(v: &Value) -> Option<LineContext> {
        let format = Format::parse(v["format"].as_str()?)?;
        let header = v["header"].as_array()?.iter().filter_map(|x| x.as_str().map(String::from)).collect();
        let delim = v["delimiter"].as_str()?.chars().next().unwrap_or(',');
        let mut map = HashMap::new();
        for (k, f) in v["map"].as_object()? {
            map.insert(k.clone(), field_index(f.as_str()?)?);
        }
        Some(LineContext::new(format, header, delim, map))
    }

    /// The record of one line (fields + raw record), or why the line is bad.
    pub fn parse(&self, text: &str) -> std::result::Result<SourceRecord, String> {
        self.parse_with(text, true)
    }

    /// `with_raw = false` skips building `raw` (the ingest stores the line itself).
    pub fn parse_with(&self, text: &str, with_raw: bool) -> std::result::Result<SourceRecord, String> {
        let mut rec = SourceRecord::default();
        match self.format {
            Format::Jsonl => {
                let v: Value = serde_json::from_str(text.trim()).map_err(|e| format!("invalid JSON ({})", e))?;
                let obj = v.as_object().ok_or("not a JSON object")?;
                for (k, val) in obj {
                    if let Some(f) = self.key(k) {
                        match val {
                            Value::Array(a) => rec.fields[f].extend(a.iter().filter_map(json_scalar)),
                            other => rec.fields[f].extend(json_scalar(other)),
                        }
                    }
                }
                if with_raw {
                    rec.raw = text.trim().to_string();
                }
            }
            Format::Combo => {
                let p = text.find([':', ';', '\t']).ok_or("no ':', ';' or tab separator")?;
                let (left, right) = (text[..p].trim(), &text[p + 1..]);
                if left.is_empty() || right.is_empty() {
                    return Err("empty identifier or password".into());
                }
                let f = if left.contains('@') { 0 } else { 1 };
                rec.fields[f].push(left.to_string());
                rec.fields[2].push(right.to_string());
                if with_raw {
                    rec.raw = text.to_string();
                }
            }
            Format::Csv => {
                let vals = split_delimited(text, self.delim)?;
                if vals.len() != self.header.len() {
                    return Err(format!("{} columns where the header has {}", vals.len(), self.header.len()));
                }
                let mut raw = Map::new();
                for ((c, m), v) in self.header.iter().zip(self.colmap.iter()).zip(vals.into_iter()) {
                    if with_raw {
                        raw.insert(c.clone(), Value::String(v.clone()));
                    }
                    if let Some(f) = m {
                        if !v.trim().is_empty() {
                            rec.fields[*f].push(v);
                        }
                    }
                }
                if with_raw {
                    rec.raw = Value::Object(raw).to_string();
                }
            }
            Format::Auto => return Err("format not detected".into()),
        }
        for vals in rec.fields.iter_mut() {
            vals.retain(|v| !v.trim().is_empty());
        }
        if rec.fields.iter().all(|v| v.is_empty()) {
            return Err("no value for any field".into());
        }
        Ok(rec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_split_handles_quotes() {
        assert_eq!(split_delimited("a,\"b,c\",\"d\"\"e\"", ',').unwrap(), vec!["a", "b,c", "d\"e"]);
        assert!(split_delimited("a,\"b", ',').is_err());
    }

    #[test]
    fn aliases_map() {
        assert_eq!(alias("E-Mail"), field_index("email"));
        assert_eq!(alias("phone_number"), field_index("phone"));
        assert_eq!(alias("pass"), field_index("password"));
        assert_eq!(alias("whatever"), None);
    }

    #[test]
    fn contexts_roundtrip() {
        let mut m = HashMap::new();
        m.insert("customcol".to_string(), field_index("vin").unwrap());
        let c = LineContext::new(Format::Csv, vec!["Mail".into(), "CustomCol".into()], ';', m);
        let c2 = LineContext::from_json(&c.to_json()).unwrap();
        let r = c2.parse("a@b.c;V1").unwrap();
        assert_eq!(r.fields[0], vec!["a@b.c"]);
        assert_eq!(r.fields[8], vec!["V1"]);
    }
}
