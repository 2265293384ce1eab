//! Input line formats. A `LineContext` (format, CSV header and delimiter, key mapping) is
//! kept in segment.json for every input file, and the store keeps only the original line:
//! fields and the raw record are parsed from it again when a record is displayed, so the
//! values are not stored twice.
//!
//! A context has a `rules` version, kept with it: the rules a line is parsed with must stay
//! those it was ingested with (its dedup key is computed again from it). Version 1 is the
//! original behaviour; version 2 adds the wider column alias table
//! (`alias`), password values that are recognisable hashes stored as `hashed_password`
//! (`fields::looks_hashed`), stealer-log URLs, `|` separators and a stricter email test in
//! combolists (`combo_parts`); version 3 adds LDAP hashes (`{SSHA}…`, `{CRYPT}…`:
//! `fields::looks_ldap_hashed`) to the password values moved (`hashed_under`).
//!
//! Every record, whatever its reader (lines, JSON array elements, SQL rows) and whatever
//! its rules, ends with `finish_record`: a field's values are kept once (`keep_once`,
//! `fields::same_value`). That never changes a dedup key (it hashes the distinct
//! normalised values), so it holds for the records of every rules version alike.

use crate::fields::{field_index, looks_hashed, looks_ldap_hashed, normalize, same_value, EMAIL, FIELDS, FIELD_COUNT, HASHED_PASSWORD, PASSWORD, URL, USERNAME};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Auto,
    Jsonl,
    Csv,
    Combo,
    /// Rows of a SQL dump, each stored as a JSON object of its table's columns.
    Sql,
    /// The objects of a file that is one JSON array, each stored as a compact JSON object.
    JsonArray,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Combo => "combo",
            Format::Sql => "sql",
            Format::JsonArray => "json-array",
        }
    }
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "auto" => Format::Auto,
            "jsonl" | "json" => Format::Jsonl,
            "csv" | "tsv" => Format::Csv,
            "combo" => Format::Combo,
            "sql" => Format::Sql,
            "json-array" => Format::JsonArray,
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

/// The rules version of new contexts (see the module comment).
pub const RULES: u8 = 3;

/// Column or JSON key name -> field, with the rules of new contexts.
pub fn alias(col: &str) -> Option<usize> {
    alias_with(col, RULES)
}

/// Column or JSON key name -> field under rules `rules`.
pub fn alias_with(col: &str, rules: u8) -> Option<usize> {
    if rules < 2 {
        alias_v1(col)
    } else {
        alias_v2(col)
    }
}

/// The alias table of version 1 contexts, unchanged.
fn alias_v1(col: &str) -> Option<usize> {
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

/// A column name reduced for the alias table: camelCase split (`emailAddress` ->
/// `email_address`), lower case, common accents dropped (`contraseña` -> `contrasena`,
/// `Straße` -> `strasse`), every run of other characters (spaces, `-`, `.`, quotes) one `_`.
pub fn alias_key(col: &str) -> String {
    let mut out = String::with_capacity(col.len() + 4);
    let mut prev_lower = false;
    for c in col.trim().chars() {
        if c.is_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        for l in c.to_lowercase() {
            let folded = match l {
                'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
                'ç' => "c",
                'è' | 'é' | 'ê' | 'ë' => "e",
                'ì' | 'í' | 'î' | 'ï' => "i",
                'ñ' => "n",
                'ò' | 'ó' | 'ô' | 'õ' | 'ö' => "o",
                'ù' | 'ú' | 'û' | 'ü' => "u",
                'ß' => "ss",
                'ё' => "е",
                _ => {
                    if l.is_alphanumeric() {
                        out.push(l);
                    } else if !out.is_empty() && !out.ends_with('_') {
                        out.push('_');
                    }
                    continue;
                }
            };
            out.push_str(folded);
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// Prefixes that platforms put before a column's own name (`user_pass`, `member_ip`,
/// `customer_email`, `members_display_name`), tried off when the whole name is unknown.
const COLUMN_PREFIXES: [&str; 15] = ["user_", "users_", "member_", "members_", "customer_", "customers_", "client_", "account_", "contact_", "usr_", "u_", "cust_", "billing_", "profile_", "author_"];

/// The one alias table: column and key names as dumps spell them (platform tables, people's
/// spreadsheets, several languages), after `alias_key`.
fn alias_v2(col: &str) -> Option<usize> {
    let k = alias_key(col);
    if let Some(f) = alias_name(&k) {
        return Some(f);
    }
    for p in COLUMN_PREFIXES {
        if let Some(rest) = k.strip_prefix(p) {
            if let Some(f) = alias_name(rest) {
                return Some(f);
            }
        }
    }
    None
}

fn alias_name(k: &str) -> Option<usize> {
    if let Some(i) = field_index(k) {
        return Some(i);
    }
    let f = match k {
        // English and platform columns (wp_users, phpBB, vBulletin, SMF, MyBB, Invision,
        // XenForo, Joomla, Drupal, Magento, PrestaShop, OpenCart).
        "mail" | "e_mail" | "email_address" | "emailaddress" | "mail_address" | "email_addr" | "init"
        // German, French, Spanish, Portuguese, Italian, Russian
        | "email_adresse" | "emailadresse" | "mailadresse" | "courriel" | "adresse_email" | "adresse_mail" | "adresse_e_mail" | "correo" | "correo_electronico"
        | "correio_eletronico" | "endereco_email" | "endereco_de_email" | "posta_elettronica" | "indirizzo_email" | "indirizzo_e_mail" | "почта" | "эл_почта"
        | "электронная_почта" | "емейл" | "емэйл" | "имейл" | "мейл" => "email",
        "user" | "user_name" | "login" | "nick" | "nickname" | "screen_name" | "handle" | "uname" | "account" | "nicename" | "username_clean" | "login_name"
        | "loginname" | "member_name" | "membername" | "benutzername" | "benutzer" | "nutzername" | "nom_utilisateur" | "nom_d_utilisateur" | "identifiant"
        | "pseudo" | "usuario" | "nombre_usuario" | "nombre_de_usuario" | "utilizador" | "nome_usuario" | "nome_de_usuario" | "nome_utente" | "utente"
        | "логин" | "ник" | "никнейм" | "пользователь" | "имя_пользователя" => "username",
        "pass" | "passwd" | "pwd" | "plaintext" | "plain_password" | "password_plain" | "pw" | "passwort" | "kennwort" | "mot_de_passe" | "motdepasse" | "mdp"
        | "contrasena" | "clave" | "senha" | "palavra_passe" | "palavra_chave" | "parola_chiave" | "parola_d_ordine" | "пароль" => "password",
        "hash" | "password_hash" | "passwordhash" | "pass_hash" | "passhash" | "hashed" | "md5" | "sha1" | "sha256" | "sha512" | "bcrypt" | "pwd_hash"
        | "hash_password" | "password_digest" | "crypted_password" | "encrypted_password" | "passwort_hash" | "хеш" | "хэш" | "хеш_пароля" => "hashed_password",
        "ip" | "ipaddress" | "ip_addr" | "last_ip" | "reg_ip" | "regip" | "lastip" | "ipv4" | "ipv6" | "ip2" | "registration_ip" | "register_ip" | "signup_ip"
        | "login_ip" | "last_login_ip" | "ip_adresse" | "adresse_ip" | "direccion_ip" | "endereco_ip" | "indirizzo_ip" | "ip_адрес" | "айпи" => "ip_address",
        "full_name" | "fullname" | "first_name" | "last_name" | "firstname" | "lastname" | "surname" | "display_name" | "displayname" | "real_name"
        | "realname" | "middlename" | "middle_name" | "given_name" | "family_name" | "vorname" | "nachname" | "nom" | "prenom" | "nom_complet" | "nombre"
        | "apellido" | "apellidos" | "nome" | "sobrenome" | "nome_completo" | "cognome" | "имя" | "фамилия" | "отчество" | "фио" => "name",
        "birthdate" | "birth_date" | "date_of_birth" | "birthday" | "dateofbirth" | "bday" | "geburtsdatum" | "geburtstag" | "date_de_naissance"
        | "date_naissance" | "fecha_nacimiento" | "fecha_de_nacimiento" | "data_nascimento" | "data_de_nascimento" | "data_di_nascita" | "дата_рождения"
        | "день_рождения" => "dob",
        "plate" | "licence_plate" | "licenseplate" | "registration" | "kennzeichen" | "immatriculation" | "matricula" | "targa" => "license_plate",
        "vin_number" | "vehicle_vin" => "vin",
        "street" | "street_address" | "addr" | "address1" | "address2" | "address_1" | "address_2" | "address_line" | "city" | "zip" | "zipcode" | "postcode"
        | "postal_code" | "adresse" | "strasse" | "ort" | "stadt" | "plz" | "rue" | "ville" | "code_postal" | "direccion" | "calle" | "ciudad" | "codigo_postal"
        | "endereco" | "rua" | "cidade" | "cep" | "indirizzo" | "citta" | "адрес" | "город" | "улица" => "address",
        "phone_number" | "phonenumber" | "mobile" | "tel" | "telephone" | "cell" | "cellphone" | "msisdn" | "mobile_phone" | "telefon" | "telefonnummer"
        | "handy" | "mobil" | "portable" | "telefono" | "celular" | "movil" | "telefone" | "cellulare" | "телефон" | "мобильный" | "тел" => "phone",
        "organization" | "organisation" | "employer" | "company_name" | "firma" | "unternehmen" | "societe" | "entreprise" | "empresa" | "azienda" | "компания"
        | "организация" => "company",
        "website" | "site" | "link" | "homepage" | "website_url" | "webseite" | "site_web" | "sitio_web" | "sitio" | "sito" | "сайт" => "url",
        "facebook" | "twitter" | "linkedin" | "instagram" | "social_media" => "social",
        "wallet" | "btc" | "btc_address" | "eth_address" | "crypto" | "crypto_address" | "bitcoin" => "cryptocurrency_address",
        "hostname" | "host" => "domain",
        _ => return None,
    };
    field_index(f)
}

/// Whether `s` looks like an email address: one `@` with something before it, a dotted
/// domain after it, no spaces (`@handle` and `user@host` are usernames).
pub fn is_email(s: &str) -> bool {
    let s = s.trim();
    match s.rfind('@') {
        Some(at) if at > 0 => {
            let d = &s[at + 1..];
            !s[..at].contains('@') && d.len() >= 3 && d.contains('.') && !d.starts_with('.') && !d.ends_with('.') && !s.contains(char::is_whitespace)
        }
        _ => false,
    }
}

/// Byte ranges of a combolist or stealer-log line under rules 2: the URL (when the line
/// starts with `scheme://`), the login and the password.
pub struct ComboParts {
    pub url: Option<(usize, usize)>,
    pub login: (usize, usize),
    pub pass: (usize, usize),
}

const COMBO_SEPS: [u8; 4] = [b':', b';', b'|', b'\t'];

/// Splits `URL:login:password` (the URL may hold colons: a port, `android://…@app/`) and
/// `login<sep>password` (`:`, `;`, `|` or a tab: the first one found).
pub fn combo_parts(text: &str) -> Option<ComboParts> {
    let b = text.as_bytes();
    let mut url = None;
    let mut rest = 0usize;
    if let Some(end) = url_end(b) {
        url = Some((0, end));
        rest = end + 1;
    }
    let p = rest + b[rest..].iter().position(|c| COMBO_SEPS.contains(c))?;
    let (mut ls, mut le) = (rest, p);
    while ls < le && b[ls].is_ascii_whitespace() {
        ls += 1;
    }
    while le > ls && b[le - 1].is_ascii_whitespace() {
        le -= 1;
    }
    if ls == le || p + 1 >= b.len() || text[p + 1..].trim().is_empty() {
        return None;
    }
    Some(ComboParts { url, login: (ls, le), pass: (p + 1, b.len()) })
}

/// Where the URL at the start of a stealer-log line ends (the separator after it), or None
/// when the line does not start with `scheme://`. A colon followed by digits inside the
/// authority is a port, not the separator, when a login and password still follow it.
fn url_end(b: &[u8]) -> Option<usize> {
    let scheme = b.iter().take(32).position(|&c| c == b':')?;
    if scheme == 0 || !b[0].is_ascii_alphabetic() || !b[..scheme].iter().all(|c| c.is_ascii_alphanumeric() || b"+.-".contains(c)) || !b[scheme..].starts_with(b"://") {
        return None;
    }
    let mut i = scheme + 3;
    let mut in_authority = true;
    while i < b.len() {
        let c = b[i];
        if c == b'/' {
            in_authority = false;
        } else if COMBO_SEPS.contains(&c) {
            if c == b':' && in_authority {
                let digits = b[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
                let after = i + 1 + digits;
                let port = digits > 0 && digits <= 5 && (b.get(after) == Some(&b'/') || (b.get(after) == Some(&b':') && b[after + 1..].iter().any(|c| COMBO_SEPS.contains(c))));
                if port {
                    i = after;
                    continue;
                }
            }
            return Some(i);
        }
        i += 1;
    }
    None
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

/// Whether a password value is a hash under rules `rules` (2 and later; rules 1 moves
/// none): `fields::looks_hashed`, and from rules 3 `fields::looks_ldap_hashed`.
#[inline]
pub fn hashed_under(rules: u8, v: &str) -> bool {
    looks_hashed(v) || (rules >= 3 && looks_ldap_hashed(v))
}

/// Password values that are recognisable hashes under `rules` become `hashed_password`
/// values (after the record's own hashes, in their order): a hash is never shown or checked
/// as a password.
pub fn move_hashes(rec: &mut SourceRecord, rules: u8) {
    if rec.fields[PASSWORD].iter().any(|v| hashed_under(rules, v)) {
        let (hashes, plain): (Vec<String>, Vec<String>) = std::mem::take(&mut rec.fields[PASSWORD]).into_iter().partition(|v| hashed_under(rules, v));
        rec.fields[PASSWORD] = plain;
        rec.fields[HASHED_PASSWORD].extend(hashes);
    }
}

/// Each field's values kept once, the first spelling of each in its place (a value shown
/// twice reads as data ingested wrongly, and dumps hold many: a `wp_users` row's
/// `user_login` and `user_nicename` are both `username`, phpBB's `username` and
/// `username_clean` differ only in case): values are one when
/// `fields::same_value` says so (the same normalised value). A field rarely holds more than
/// a few values: each is compared with the kept ones before it, nothing allocated.
pub fn keep_once(rec: &mut SourceRecord) {
    for (f, vals) in rec.fields.iter_mut().enumerate() {
        if vals.len() < 2 {
            continue;
        }
        let mut kept = 1;
        for i in 1..vals.len() {
            if !vals[..kept].iter().any(|k| same_value(f, k, &vals[i])) {
                vals.swap(kept, i);
                kept += 1;
            }
        }
        vals.truncate(kept);
    }
}

/// The last steps of every record, from any reader and when a stored line is parsed again:
/// password values that are hashes moved (rules 2 and later), then each field's values kept
/// once.
pub fn finish_record(rec: &mut SourceRecord, rules: u8) {
    if rules >= 2 {
        move_hashes(rec, rules);
    }
    keep_once(rec);
}

/// Appends `s` as a JSON string (what serde_json reads back as `s`).
pub fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    // The bytes to escape are ASCII: never inside another char's UTF-8 bytes.
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{:04x}", b));
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
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
    /// The parsing rules the context's lines were ingested with (module comment).
    pub rules: u8,
    colmap: Vec<Option<usize>>,
}

impl LineContext {
    pub fn new(format: Format, header: Vec<String>, delim: char, map: HashMap<String, usize>) -> LineContext {
        Self::with_rules(format, header, delim, map, RULES)
    }

    pub fn with_rules(format: Format, header: Vec<String>, delim: char, map: HashMap<String, usize>, rules: u8) -> LineContext {
        let colmap = header.iter().map(|h| map.get(&norm_col(h)).copied().or_else(|| alias_with(h, rules))).collect();
        LineContext { format, header, delim, map, rules, colmap }
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
        self.map.get(&norm_col(k)).copied().or_else(|| alias_with(k, self.rules))
    }

    pub fn to_json(&self) -> Value {
        let map: Map<String, Value> = self.map.iter().map(|(k, v)| (k.clone(), json!(FIELDS[*v]))).collect();
        let mut v = json!({ "format": self.format.name(), "header": self.header, "delimiter": self.delim.to_string(), "map": map });
        if self.rules >= 2 {
            v["rules"] = json!(self.rules);
        }
        v
    }

    pub fn from_json(v: &Value) -> Option<LineContext> {
        let format = Format::parse(v["format"].as_str()?)?;
        let header = v["header"].as_array()?.iter().filter_map(|x| x.as_str().map(String::from)).collect();
        let delim = v["delimiter"].as_str()?.chars().next().unwrap_or(',');
        let mut map = HashMap::new();
        for (k, f) in v["map"].as_object()? {
            map.insert(k.clone(), field_index(f.as_str()?)?);
        }
        // A context written before rules existed keeps the rules of version 1.
        let rules = v["rules"].as_u64().map(|r| r.min(RULES as u64) as u8).unwrap_or(1);
        Some(LineContext::with_rules(format, header, delim, map, rules))
    }

    /// The record of one line (fields + raw record), or why the line is bad.
    pub fn parse(&self, text: &str) -> std::result::Result<SourceRecord, String> {
        self.parse_with(text, true)
    }

    /// `with_raw = false` skips building `raw` (the ingest stores the line itself).
    pub fn parse_with(&self, text: &str, with_raw: bool) -> std::result::Result<SourceRecord, String> {
        let mut rec = SourceRecord::default();
        match self.format {
            Format::Jsonl | Format::Sql | Format::JsonArray => {
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
            Format::Combo if self.rules >= 2 => {
                let c = combo_parts(text).ok_or("no ':', ';', '|' or tab separator between a login and a password")?;
                if let Some((s, e)) = c.url {
                    rec.fields[URL].push(text[s..e].to_string());
                }
                let login = &text[c.login.0..c.login.1];
                rec.fields[if is_email(login) { EMAIL } else { USERNAME }].push(login.to_string());
                rec.fields[PASSWORD].push(text[c.pass.0..c.pass.1].to_string());
                if with_raw {
                    rec.raw = text.to_string();
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
        finish_record(&mut rec, self.rules);
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

    fn key(rec: &SourceRecord) -> u64 {
        crate::keys::dedup_key(&normalize_record(rec))
    }

    /// `keep_once` keeps each field's first spelling of a value, in order,
    /// and never changes the dedup key (it hashes the distinct normalised values already).
    #[test]
    fn keep_once_keeps_first_spellings_and_the_dedup_key() {
        let mut rec = SourceRecord::default();
        rec.fields[USERNAME] = vec!["jdoe".into(), "jdoe".into()];
        rec.fields[EMAIL] = vec!["J@X.org".into(), "b@x.org".into(), "j@x.org".into(), " b@x.org ".into()];
        rec.fields[PASSWORD] = vec!["Pw".into(), "pw".into(), "Pw".into()];
        let phone = field_index("phone").unwrap();
        rec.fields[phone] = vec!["+1 555-0100".into(), "15550100".into(), "n/a".into(), "none".into()];
        let before = key(&rec);
        keep_once(&mut rec);
        assert_eq!(rec.fields[USERNAME], vec!["jdoe"]);
        assert_eq!(rec.fields[EMAIL], vec!["J@X.org", "b@x.org"]);
        assert_eq!(rec.fields[PASSWORD], vec!["Pw", "pw"]);
        assert_eq!(rec.fields[phone], vec!["+1 555-0100", "n/a", "none"]);
        assert_eq!(key(&rec), before);
        let mut once = SourceRecord::default();
        once.fields[USERNAME] = vec!["jdoe".into()];
        let mut twice = SourceRecord::default();
        twice.fields[USERNAME] = vec!["jdoe".into(), "JDOE".into()];
        assert_eq!(key(&once), key(&twice), "{{username:[jdoe,JDOE]}} and {{username:[jdoe]}} are one record");
    }

    /// Every line format parses into values kept once (a wp_users-like JSON
    /// object, two CSV columns of one field, a JSON array holding a value twice).
    #[test]
    fn every_line_format_keeps_a_fields_values_once() {
        let json = LineContext::new(Format::Sql, vec![], ',', HashMap::new());
        let r = json.parse(r#"{"ID":"1","user_email":"jdoe@x.org","user_login":"jdoe","user_nicename":"jdoe","user_pass":"pw"}"#).unwrap();
        assert_eq!(r.fields[USERNAME], vec!["jdoe"]);
        let r = LineContext::new(Format::Jsonl, vec![], ',', HashMap::new()).parse(r#"{"email":["A@x.org","a@x.org"],"password":["p","p"]}"#).unwrap();
        assert_eq!((r.fields[EMAIL].clone(), r.fields[PASSWORD].clone()), (vec!["A@x.org".to_string()], vec!["p".to_string()]));
        let csv = LineContext::new(Format::Csv, vec!["email".into(), "mail".into(), "login".into(), "username".into()], ',', HashMap::new());
        let r = csv.parse("a@x.org,A@X.ORG,u1,u1").unwrap();
        assert_eq!((r.fields[EMAIL].clone(), r.fields[USERNAME].clone()), (vec!["a@x.org".to_string()], vec!["u1".to_string()]));
        let combo = LineContext::new(Format::Combo, vec![], ',', HashMap::new());
        let r = combo.parse("https://x.org/:a@x.org:pw").unwrap();
        assert!(r.fields.iter().all(|v| v.len() <= 1));
    }

    /// An LDAP hash in a password column is a `hashed_password` under the
    /// rules of new contexts (3) and stays a password under rules 2, the rules of records
    /// ingested before: their dedup keys, computed again from their lines, do not change.
    #[test]
    fn ldap_hashes_move_under_rules_3_only() {
        let line = "u@x.org:{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=";
        let new = LineContext::new(Format::Combo, vec![], ',', HashMap::new());
        assert_eq!(new.rules, 3);
        let r = new.parse(line).unwrap();
        assert_eq!((r.fields[PASSWORD].len(), r.fields[HASHED_PASSWORD].clone()), (0, vec!["{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=".to_string()]));
        assert_eq!(LineContext::from_json(&new.to_json()).unwrap().rules, 3);
        let old = LineContext::from_json(&json!({ "format": "combo", "header": [], "delimiter": ",", "map": {}, "rules": 2 })).unwrap();
        let r = old.parse(line).unwrap();
        assert_eq!((r.fields[PASSWORD].clone(), r.fields[HASHED_PASSWORD].len()), (vec!["{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=".to_string()], 0));
        let r = new.parse("u@x.org:{hello}").unwrap();
        assert_eq!(r.fields[PASSWORD], vec!["{hello}"]);
    }
}
