use super::*;

fn rows(input: &[u8], max: usize) -> Vec<Result<(String, Vec<String>, Vec<Option<String>>), String>> {
    let mut r = SqlReader::new(input, max);
    let mut out = Vec::new();
    for _ in 0..10_000 {
        match r.next() {
            Event::End => return out,
            Event::Row => out.push(Ok((r.table().to_string(), r.columns().to_vec(), (0..r.len()).map(|i| r.value(i).map(|v| String::from_utf8_lossy(v).into_owned())).collect()))),
            Event::TooLong(n) => out.push(Err(format!("too long {}", n))),
            Event::Bad(w, l) => out.push(Err(format!("{}:{}", l, w))),
        }
    }
    panic!("no end");
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

#[test]
fn mysqldump_extended_insert() {
    let dump = b"-- MySQL dump 10.13\n/*!40101 SET NAMES utf8mb4 */;\nDROP TABLE IF EXISTS `wp_users`;\nCREATE TABLE `wp_users` (\n  `ID` bigint(20) unsigned NOT NULL AUTO_INCREMENT,\n  `user_login` varchar(60) NOT NULL DEFAULT '',\n  `user_pass` varchar(255) NOT NULL DEFAULT '',\n  PRIMARY KEY (`ID`),\n  KEY `user_login_key` (`user_login`)\n) ENGINE=InnoDB;\nLOCK TABLES `wp_users` WRITE;\nINSERT INTO `wp_users` VALUES (1,'ad\\'min','it''s',NULL),(2,_binary 'x\\\\y',0x616263, -1.5e3);\nUNLOCK TABLES;\n";
    let r = rows(dump, 1 << 20);
    assert_eq!(r.len(), 2, "{:?}", r);
    let (t, c, v) = r[0].clone().unwrap();
    assert_eq!(t, "wp_users");
    assert_eq!(c, vec!["ID", "user_login", "user_pass"]);
    assert_eq!(v, vec![s("1"), s("ad'min"), s("it's"), None]);
    assert_eq!(r[1].clone().unwrap().2, vec![s("2"), s("x\\y"), s("abc"), s("-1.5e3")]);
}

#[test]
fn pg_dump_copy_and_insert() {
    let dump = b"--\n-- PostgreSQL database dump\n--\nSET standard_conforming_strings = on;\nCREATE TABLE public.users (\n    id integer NOT NULL,\n    email character varying(255),\n    pw text\n);\nCOPY public.users (id, email, pw) FROM stdin;\n1\ta@x.org\tp\\tw\n2\t\\N\tback\\\\slash\n\\.\nINSERT INTO public.users (id, email, pw) VALUES (3, 'c@x.org', 'a\\b'::text);\n";
    let r = rows(dump, 1 << 20);
    assert_eq!(r.len(), 3, "{:?}", r);
    assert_eq!(r[0].clone().unwrap().2, vec![s("1"), s("a@x.org"), s("p\tw")]);
    assert_eq!(r[1].clone().unwrap().2, vec![s("2"), None, s("back\\slash")]);
    let (t, c, v) = r[2].clone().unwrap();
    assert_eq!((t.as_str(), c.len()), ("users", 3));
    assert_eq!(v, vec![s("3"), s("c@x.org"), s("a\\b")]);
}

#[test]
fn pg_function_bodies_are_skipped_whole() {
    let dump = b"-- PostgreSQL database dump\nSET standard_conforming_strings = on;\nCREATE FUNCTION public.f() RETURNS trigger LANGUAGE plpgsql AS $_$\nBEGIN\n  INSERT INTO audit VALUES ('x'); RETURN NEW;\nEND;\n$_$;\nCREATE FUNCTION public.g() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\nCOPY public.t (a) FROM stdin;\nonly\n\\.\n";
    let r = rows(dump, 1 << 20);
    assert_eq!(r.len(), 1, "{:?}", r);
    assert_eq!(r[0].as_ref().unwrap().2, vec![s("only")]);
}

#[test]
fn bad_input_is_reported_not_fatal() {
    // An unterminated string swallows the rest of the input, reported once.
    let r = rows(b"INSERT INTO t (a) VALUES ('x),('y');\nINSERT INTO t (a) VALUES ('z", 1 << 20);
    assert!(!r.is_empty() && r.iter().all(|x| x.is_err()), "{:?}", r);
    let r = rows(b"INSERT INTO t (a) VALUES ('ok'),('never closed", 1 << 20);
    assert!(r[0].is_ok() && r[1].as_ref().is_err_and(|e| e.contains("unterminated")), "{:?}", r);
    // Garbage between statements.
    let mut g = b"\x00\xff\xfe garbage ; INSERT INTO t (a) VALUES ('ok');".to_vec();
    g.extend_from_slice(b"INSERT INTO t (a) VALUES ('x' y);INSERT INTO t (a) VALUES ('ok2');");
    let r = rows(&g, 1 << 20);
    let ok: Vec<_> = r.iter().filter_map(|x| x.as_ref().ok()).map(|x| x.2[0].clone().unwrap()).collect();
    assert_eq!(ok, vec!["ok", "ok2"], "{:?}", r);
    assert_eq!(r.iter().filter(|x| x.is_err()).count(), 2);
}

#[test]
fn huge_rows_are_skipped_with_bounded_memory() {
    let mut d = b"INSERT INTO t (a,b) VALUES ('small','x'),('".to_vec();
    d.extend(std::iter::repeat(b'A').take(3 << 20));
    d.extend_from_slice(b"','y'),('after','z');");
    let mut r = SqlReader::new(&d[..], 4096);
    assert_eq!(r.next(), Event::Row);
    assert!(matches!(r.next(), Event::TooLong(n) if n <= 4096));
    assert!(r.vals.capacity() <= 2 * 4096 + 64, "capacity {}", r.vals.capacity());
    assert_eq!(r.next(), Event::Row);
    assert_eq!(r.value(0), Some(&b"after"[..]));
    assert_eq!(r.next(), Event::End);
}

#[test]
fn random_bytes_never_panic() {
    let mut x = 0x2545F4914F6CDD1Du64;
    for round in 0..300 {
        let len = (round * 37) % 2000;
        let mut d = b"INSERT INTO t VALUES ('".to_vec();
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let alphabet = b"'(),;\\\"`-#/*\n\tNULL0x ab";
            d.push(alphabet[(x % alphabet.len() as u64) as usize]);
        }
        let mut r = SqlReader::new(&d[..], 64);
        let mut n = 0;
        while r.next() != Event::End {
            n += 1;
            assert!(n < 100_000);
        }
    }
}

#[test]
fn escaping_round_trips() {
    let mut x = 0x9E3779B97F4A7C15u64;
    let alphabet: Vec<char> = "ab'\"\\\n\r\t\0\u{1a}%_;,()é€ ".chars().collect();
    for _ in 0..500 {
        let mut v = String::new();
        for _ in 0..(x % 20) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(alphabet[(x % alphabet.len() as u64) as usize]);
        }
        // MySQL: \% and \_ keep their backslash, as MySQL does; the dump escapes neither.
        let my = format!("INSERT INTO t (a) VALUES ({});", quote_mysql(&v));
        let r = rows(my.as_bytes(), 1 << 20);
        assert_eq!(r[0].as_ref().unwrap().2[0].as_deref(), Some(v.as_str()), "{}", my);
        let pg = format!("COPY t (a) FROM stdin;\n{}\n\\.\n", quote_copy(&v));
        let r = rows(pg.as_bytes(), 1 << 20);
        assert_eq!(r[0].as_ref().unwrap().2[0].as_deref(), Some(v.as_str()), "{:?}", pg);
    }
}

#[test]
fn detects_dumps() {
    assert!(looks_like_sql(b"-- MySQL dump\nCREATE TABLE t (a int);"));
    assert!(looks_like_sql(b"INSERT INTO t VALUES (1);"));
    assert!(!looks_like_sql(b"email,password\na@b.c,x\n"));
    assert!(!looks_like_sql(b"{\"a\":1}\n"));
}
