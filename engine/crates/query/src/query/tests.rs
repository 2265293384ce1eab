use super::*;

fn code(q: &str, m: Mode) -> &'static str {
    parse(q, m, None).unwrap_err().code()
}

/// Without a subscription, a count of a combined query would be an oracle on hidden values;
/// only one exact term is admitted.
#[test]
fn a_count_without_subscription_holds_one_exact_term() {
    let one = |q: &str, m: Mode| parse_one_term(q, m, None).map(|_| ()).map_err(|e| e.code());
    assert_eq!(one("email:someone@example.org", Mode::Exact), Ok(()));
    assert_eq!(one("\"John Smith\"", Mode::Exact), Ok(()));
    assert_eq!(one("password:guess1", Mode::Wildcard), Ok(()), "no wildcard character: an exact term");
    for (q, m) in [
        ("email:\"someone@example.org\" AND password:\"guess\"", Mode::Exact),
        ("email:someone@example.org password:guess", Mode::Exact),
        ("email:someone@example.org OR email:other@example.org", Mode::Exact),
        ("(email:someone@example.org)&database_name=Example", Mode::Exact),
        ("email:someone@example.org&database_name=Example", Mode::Exact),
        ("password:a*", Mode::Wildcard),
        ("password:/^[a-m]/", Mode::Regex),
        ("password:/^[a-m]/&regex", Mode::Exact),
        ("email:/[\\w\\W]{1000}[\\w\\W]{1000}/", Mode::Regex),
    ] {
        assert_eq!(one(q, m), Err("subscription_required"), "{q}");
    }
    // A query that is wrong in itself is answered as such.
    assert_eq!(one("ab", Mode::Exact), Err("too_short"));
}

#[test]
fn rejections_are_typed() {
    assert_eq!(code("", Mode::Exact), "empty");
    assert_eq!(code("abc", Mode::Exact), "too_short");
    assert_eq!(code(&"a".repeat(201), Mode::Exact), "too_long");
    assert_eq!(code("*john", Mode::Wildcard), "wildcard_start");
    assert_eq!(code("john*", Mode::Wildcard), "field_required");
    assert_eq!(code("username:/(a)\\1/", Mode::Regex), "regex_unsupported");
    assert_eq!(code("username:/a(?=b)/", Mode::Regex), "regex_unsupported");
    assert_eq!(code("username:/a{1000}{1000}/", Mode::Regex), "regex_too_big");
    assert_eq!(code("john&regex&wildcard", Mode::Exact), "mixed_modes");
    assert_eq!(code("&database_name=Foo", Mode::Exact), "database_name_alone");
    assert_eq!(code("database_name=Foo", Mode::Exact), "database_name_alone");
    assert_eq!(code("email:\"abc", Mode::Exact), "syntax");
    assert_eq!(code("(email:abcd", Mode::Exact), "syntax");
    assert_eq!(code("email:abcd OR", Mode::Exact), "syntax");
    assert_eq!(code("usernme:abcd", Mode::Exact), "unknown_field");
    assert_eq!(code("john", Mode::Regex), "field_required");
}

#[test]
fn accepts_client_forms() {
    let q = parse("email:\"a@b.com\" & username:x OR (domain:example.com AND john)&database_name=Foo", Mode::Exact, None);
    assert!(q.is_err()); // database_name with OR
    let q = parse("email:\"a@b.com\"&database_name=Foo", Mode::Exact, None).unwrap();
    assert_eq!(q.sources, vec!["foo"]);
    let q = parse("username:x OR (domain:example.com AND john)", Mode::Exact, None).unwrap();
    assert!(matches!(q.root, Node::Or(_)));
    let q = parse("username:/j.hn(a|b)/", Mode::Regex, None).unwrap();
    match q.root {
        Node::Term(Term { pattern: Pattern::Regex(s), .. }) => assert_eq!(s, "j.hn(a|b)"),
        other => panic!("{:?}", other),
    }
    let q = parse("email:john\\*x*", Mode::Wildcard, None).unwrap();
    match q.root {
        Node::Term(Term { pattern: Pattern::Wildcard(p), .. }) => {
            assert_eq!(p[4], WildPiece::Lit('*'));
            assert_eq!(p[6], WildPiece::Many);
        }
        other => panic!("{:?}", other),
    }
    assert!(parse("http://example.com", Mode::Exact, None).is_ok());
    assert!(parse("email:a@b.com&wildcard", Mode::Exact, None).unwrap().mode == Mode::Wildcard);
    assert!(parse("email:a@b.com &WildCard &wildcard ", Mode::Wildcard, None).unwrap().mode == Mode::Wildcard);
}

#[test]
fn a_mode_suffix_does_not_count_toward_the_length() {
    assert_eq!(code("abc&wildcard", Mode::Exact), "too_short");
    assert_eq!(code("abc &REGEX ", Mode::Exact), "too_short");
    assert_eq!(code("&regex", Mode::Exact), "empty");
    let at_limit = format!("username:{}*&wildcard", "a".repeat(190));
    assert!(parse(&at_limit, Mode::Exact, None).is_ok());
    assert_eq!(code(&format!("username:{}*&wildcard", "a".repeat(191)), Mode::Exact), "too_long");
}

/// Patterns like `[\w\W]{1000}[\w\W]{1000}` cost heavy compiling (each compilation
/// case-folds the class again) only to be refused as too large, so they are refused from
/// their syntax tree, before any compilation starts (counted on this thread by
/// `build_regex`).
#[test]
fn costly_regex_is_refused_before_compiling() {
    let costly = [
        r"[\w\W]{1000}[\w\W]{1000}",
        r"[\w\W]{1000}[\w\W]{999}",
        r"[\W\w]{2000}",
        r"(?:[\w\W]{100}){100}",
        r"(\w{100}){100}",
        r"\w{500}\w{500}",
        r"\pL{20}",
        r"[^\w]{20}",
        r"a{1000}{1000}",
        r".{1000}.{1000}",
        r"(?i)[\w\W]{2000}",
    ];
    for src in costly {
        let builds = REGEX_BUILDS.with(|n| n.get());
        let refused = parse(&format!("email:/{src}/"), Mode::Regex, None).unwrap_err();
        assert_eq!(refused.code(), "regex_too_big", "{src}");
        assert_eq!(REGEX_BUILDS.with(|n| n.get()), builds, "{src} was compiled before its refusal");
        assert!(compile_sized(src, false).is_err(), "{src}");
        assert_eq!(REGEX_BUILDS.with(|n| n.get()), builds, "{src} was compiled before its refusal");
    }
    // What the estimate lets through is compiled once, with the limit as the exact check.
    for src in [r"j.hn[0-9]+", r"[a-z0-9._%+-]{1,64}@example\.com", r"[^@]{1,64}@", r"\d{3}-\d{4}", r"\w{9}", r"(?-u:\w){200}"] {
        let builds = REGEX_BUILDS.with(|n| n.get());
        parse(&format!("username:/{src}/"), Mode::Regex, None).unwrap_or_else(|e| panic!("{src}: {e:?}"));
        assert!(REGEX_BUILDS.with(|n| n.get()) <= builds + 1, "{src} compiled more than once");
    }
    let builds = REGEX_BUILDS.with(|n| n.get());
    assert_eq!(parse(r"email:/\w{10}/", Mode::Regex, None).unwrap_err().code(), "regex_too_big");
    assert_eq!(REGEX_BUILDS.with(|n| n.get()), builds + 1, "past the estimate, one compilation decides");
}

#[test]
fn many_mode_suffixes_are_read_in_linear_time() {
    let q = format!("username:john{}", "&regex".repeat(200_000));
    let started = std::time::Instant::now();
    assert_eq!(parse(&q, Mode::Exact, None).unwrap().mode, Mode::Regex);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}
