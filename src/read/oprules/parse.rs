//! Reading the text of an `--op-rules` file: one `op` line per rule, then its
//! `attr`, `require` and `output` lines, each field checked and any error naming
//! its line ([`Problem`]).

use super::{
    AttrValue, DTypeSpec, DeclaredRule, Item, Location, OpRulesError, OutputSpec, Problem, Ref,
    Requirement, RuleExpr, ShapeSpec, MAX_RULES_BYTES,
};
use crate::algebra::parse::{parse_expr, ParseError};
use crate::algebra::Rel;
use crate::graph::DType;

/// Parse the rules of `text`, in order (overlaps and the count are checked by the
/// caller).
pub(super) fn parse_rules(text: &str, origin: &str) -> Result<Vec<DeclaredRule>, OpRulesError> {
    let at = |line: usize| Location {
        origin: origin.to_string(),
        line,
    };
    if text.len() > MAX_RULES_BYTES {
        return Err(OpRulesError::Syntax {
            at: at(1),
            problem: Problem::TooLarge { bytes: text.len() },
        });
    }
    let mut rules: Vec<DeclaredRule> = Vec::new();
    let finish = |r: &DeclaredRule| -> Result<(), OpRulesError> {
        if r.outputs.is_empty() {
            return Err(OpRulesError::Syntax {
                at: r.at.clone(),
                problem: Problem::NoOutputs { op: r.op_name() },
            });
        }
        Ok(())
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |problem: Problem| OpRulesError::Syntax {
            at: at(line),
            problem,
        };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let (word, rest) = match content.find(char::is_whitespace) {
            Some(p) => (&content[..p], content[p..].trim()),
            None => (content, ""),
        };
        if word == "op" {
            if let Some(prev) = rules.last() {
                finish(prev)?;
            }
            let (domain, op_type, since, until) = parse_op(rest).map_err(err)?;
            rules.push(DeclaredRule {
                at: at(line),
                domain,
                op_type,
                since,
                until,
                defaults: Vec::new(),
                requires: Vec::new(),
                outputs: Vec::new(),
            });
            continue;
        }
        let keyword = match word {
            "attr" => "attr",
            "require" => "require",
            "output" => "output",
            _ => {
                return Err(err(Problem::UnknownKeyword {
                    word: word.to_string(),
                }))
            }
        };
        let Some(rule) = rules.last_mut() else {
            return Err(err(Problem::OutsideRule { keyword }));
        };
        match keyword {
            "attr" => rule.defaults.push(parse_attr(rest).map_err(err)?),
            "require" => rule.requires.push(parse_require(rest, line).map_err(err)?),
            _ => rule.outputs.push(parse_output(rest, line).map_err(err)?),
        }
    }
    if let Some(last) = rules.last() {
        finish(last)?;
    }
    Ok(rules)
}

type OpHead = (String, String, i64, Option<i64>);

/// `[DOMAIN:]OP_TYPE [version A[..[B]]]`.
fn parse_op(rest: &str) -> Result<OpHead, Problem> {
    let bad = || Problem::BadOp {
        text: rest.to_string(),
    };
    let mut words = rest.split_whitespace();
    let name = words.next().ok_or_else(bad)?;
    let (domain, op_type) = match name.rsplit_once(':') {
        Some((d, t)) => (d, t),
        None => ("", name),
    };
    let ok_char = |c: char| c.is_ascii_alphanumeric() || "_.-".contains(c);
    if op_type.is_empty() || !op_type.chars().all(ok_char) || !domain.chars().all(ok_char) {
        return Err(bad());
    }
    let domain = crate::graph::canonical_domain(domain).to_string();
    let (since, until) = match (words.next(), words.next(), words.next()) {
        (None, _, _) => (1, None),
        (Some("version"), Some(range), None) => parse_versions(range)?,
        _ => return Err(bad()),
    };
    Ok((domain, op_type.to_string(), since, until))
}

/// `A`, `A..` or `A..B`.
fn parse_versions(range: &str) -> Result<(i64, Option<i64>), Problem> {
    let bad = || Problem::BadVersion {
        text: range.to_string(),
    };
    let num = |s: &str| s.trim().parse::<i64>().ok().filter(|v| *v >= 0);
    match range.split_once("..") {
        None => {
            let v = num(range).ok_or_else(bad)?;
            Ok((v, Some(v)))
        }
        Some((a, "")) => Ok((num(a).ok_or_else(bad)?, None)),
        Some((a, b)) => {
            let (a, b) = (num(a).ok_or_else(bad)?, num(b).ok_or_else(bad)?);
            if a > b {
                return Err(bad());
            }
            Ok((a, Some(b)))
        }
    }
}

/// `NAME = INT` or `NAME = [INT, ...]`.
fn parse_attr(rest: &str) -> Result<(String, AttrValue), Problem> {
    let bad = || Problem::BadAttr {
        text: rest.to_string(),
    };
    let (name, value) = rest.split_once('=').ok_or_else(bad)?;
    let (name, value) = (name.trim(), value.trim());
    if !is_ident(name) {
        return Err(bad());
    }
    let int = |s: &str| s.trim().parse::<i64>().ok();
    let value = if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        let list = list.trim();
        if list.is_empty() {
            AttrValue::Ints(Vec::new())
        } else {
            AttrValue::Ints(
                list.split(',')
                    .map(int)
                    .collect::<Option<_>>()
                    .ok_or_else(bad)?,
            )
        }
    } else {
        AttrValue::Int(int(value).ok_or_else(bad)?)
    };
    Ok((name.to_string(), value))
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `EXPR REL EXPR`.
fn parse_require(rest: &str, line: usize) -> Result<Requirement, Problem> {
    let bad = || Problem::BadRequire {
        text: rest.to_string(),
    };
    // The first comparison operator outside brackets (`==`, `!=`, `>=`, `<=`, `=`,
    // `>`, `<`).
    let bytes = rest.as_bytes();
    let mut depth = 0i32;
    let mut found = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' | b'!' | b'<' | b'>' if depth == 0 => {
                let two = bytes.get(i + 1) == Some(&b'=');
                let (rel, len) = match (b, two) {
                    (b'=', true) => (Rel::Eq, 2),
                    (b'=', false) => (Rel::Eq, 1),
                    (b'!', true) => (Rel::Ne, 2),
                    (b'!', false) => return Err(bad()),
                    (b'<', true) => (Rel::Le, 2),
                    (b'<', false) => (Rel::Lt, 1),
                    (b'>', true) => (Rel::Ge, 2),
                    (_, _) => (Rel::Gt, 1),
                };
                found = Some((i, rel, len));
                break;
            }
            _ => {}
        }
    }
    let (pos, rel, len) = found.ok_or_else(bad)?;
    let (l, r) = (rest[..pos].trim(), rest[pos + len..].trim());
    if l.is_empty() || r.is_empty() {
        return Err(bad());
    }
    Ok(Requirement {
        line,
        text: rest.to_string(),
        lhs: parse_rule_expr(l)?,
        rel,
        rhs: parse_rule_expr(r)?,
    })
}

/// `[dtype=T] shape=S [value=V]`, fields in any order.
fn parse_output(rest: &str, line: usize) -> Result<OutputSpec, Problem> {
    let mut dtype = None;
    let mut shape = None;
    let mut value = None;
    for field in split_fields(rest) {
        let (key, val) = match field.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (field, ""),
        };
        let unknown = || Problem::UnknownField {
            field: field.to_string(),
        };
        match key {
            "dtype" => {
                if dtype.is_some() {
                    return Err(Problem::RepeatedField { field: "dtype" });
                }
                dtype = Some(parse_dtype(val)?);
            }
            "shape" => {
                if shape.is_some() {
                    return Err(Problem::RepeatedField { field: "shape" });
                }
                shape = Some(match input_index(val, "in") {
                    Some(i) => ShapeSpec::SameAs(i),
                    None => ShapeSpec::Dims(parse_list(val, "shape")?),
                });
            }
            "value" => {
                if value.is_some() {
                    return Err(Problem::RepeatedField { field: "value" });
                }
                value = Some(parse_list(val, "value")?);
            }
            _ => return Err(unknown()),
        }
    }
    Ok(OutputSpec {
        line,
        dtype: dtype.unwrap_or(DTypeSpec::SameAs(0)),
        shape: shape.ok_or(Problem::NoShape)?,
        value,
    })
}

/// The fields of an `output` line: split at whitespace outside brackets, a field
/// running on while the next word has no `=` (`shape=[a, b]` holds spaces).
fn split_fields(rest: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = None;
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            _ => {}
        }
        if b.is_ascii_whitespace() {
            if depth <= 0 {
                if let Some(s) = start.take() {
                    out.push(&rest[s..i]);
                }
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&rest[s..]);
    }
    out
}

/// `f32`, `i64`, `float`, `int64`, `FLOAT`, or `inN`.
fn parse_dtype(text: &str) -> Result<DTypeSpec, Problem> {
    if let Some(i) = input_index(text, "in") {
        return Ok(DTypeSpec::SameAs(i));
    }
    let lower = text.to_ascii_lowercase();
    if let Some(t) = DType::from_short_name(&lower) {
        if !matches!(t, DType::Undefined) {
            return Ok(DTypeSpec::Fixed(t));
        }
    }
    (0..=28)
        .map(DType::from_i32)
        .find(|t| {
            !matches!(t, DType::Undefined)
                && t.onnx_name().is_some_and(|n| n.eq_ignore_ascii_case(text))
        })
        .map(DTypeSpec::Fixed)
        .ok_or_else(|| Problem::BadDType {
            text: text.to_string(),
        })
}

/// `N` of `inN` (`prefix` `in` or `val`), for a whole word.
fn input_index(text: &str, prefix: &str) -> Option<usize> {
    let digits = text.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 6 {
        return None;
    }
    digits.parse().ok()
}

/// `[ITEM, ...]`.
fn parse_list(text: &str, field: &'static str) -> Result<Vec<Item>, Problem> {
    let bad = || Problem::BadList {
        field,
        text: text.to_string(),
    };
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(bad)?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    // Split at commas outside brackets.
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, b) in inner.bytes().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(bad());
        }
    }
    items.push(&inner[start..]);
    items.into_iter().map(|s| parse_item(s.trim())).collect()
}

/// A slice `inN[A:B]` / `valN[A:B]`, or an expression.
fn parse_item(text: &str) -> Result<Item, Problem> {
    if text == "?" {
        return Ok(Item::Unknown);
    }
    if let Some(open) = text.find('[') {
        let (head, tail) = (&text[..open], &text[open + 1..]);
        let (is_in, is_val) = (
            input_index(head, "in").is_some(),
            input_index(head, "val").is_some(),
        );
        if let Some(inner) = tail.strip_suffix(']').filter(|i| i.contains(':')) {
            if (is_in || is_val) && !inner.contains('[') {
                let bad = || Problem::BadSlice {
                    text: text.to_string(),
                };
                let input = input_index(head, if is_in { "in" } else { "val" }).ok_or_else(bad)?;
                let (a, b) = inner.split_once(':').ok_or_else(bad)?;
                let bound = |s: &str| -> Result<Option<i64>, Problem> {
                    let s = s.trim();
                    if s.is_empty() {
                        Ok(None)
                    } else {
                        s.parse().map(Some).map_err(|_| bad())
                    }
                };
                return Ok(Item::Slice {
                    input,
                    start: bound(a)?,
                    end: bound(b)?,
                    value: is_val,
                });
            }
        }
    }
    if text.is_empty() {
        return Err(Problem::BadExpr(ParseError {
            text: String::new(),
            pos: 0,
            expected: "an expression",
        }));
    }
    Ok(Item::Dim(parse_rule_expr(text)?))
}

/// Parse an expression of the grammar whose names are references: each reference is
/// replaced by a placeholder symbol, the result parsed by the grammar's parser.
pub fn parse_rule_expr(text: &str) -> Result<RuleExpr, Problem> {
    let bad_ref = |r: &str| Problem::BadReference {
        text: r.to_string(),
        expr: text.to_string(),
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    // (offset in `out`, offset in `text`) at each replacement, to map parse errors.
    let mut marks: Vec<(usize, usize)> = Vec::new();
    let mut refs: Vec<Ref> = Vec::new();
    let mut i = 0;
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'`' {
            return Err(Problem::NotAReference {
                name: text[i..].to_string(),
                expr: text.to_string(),
            });
        }
        let word_start = i == 0 || !ident(bytes[i - 1]);
        let rest = &text[i..];
        let (reference, len) = if b == b'@' {
            let name_len = rest[1..].bytes().take_while(|&c| ident(c)).count();
            let name = &rest[1..1 + name_len];
            if !is_ident(name) {
                return Err(bad_ref(&rest[..(1 + name_len).max(1)]));
            }
            let after = &rest[1 + name_len..];
            match bracket_int(after) {
                Some((index, blen)) => (
                    Ref::AttrElem {
                        name: name.to_string(),
                        index,
                    },
                    1 + name_len + blen,
                ),
                None if after.starts_with('[') => {
                    let end = after.find(']').map_or(after.len(), |c| c + 1);
                    return Err(bad_ref(&rest[..1 + name_len + end]));
                }
                None => (
                    Ref::Attr {
                        name: name.to_string(),
                    },
                    1 + name_len,
                ),
            }
        } else if word_start && b.is_ascii_alphabetic() {
            let wlen = rest.bytes().take_while(|&c| ident(c)).count();
            let word = &rest[..wlen];
            let after = &rest[wlen..];
            if let Some(input) = input_index(word, "in").or_else(|| input_index(word, "val")) {
                let Some((index, blen)) = bracket_int(after) else {
                    return Err(bad_ref(word));
                };
                let r = if word.starts_with("in") {
                    Ref::Dim { input, axis: index }
                } else {
                    Ref::Value { input, index }
                };
                (r, wlen + blen)
            } else if word == "rank" {
                // rank(inN)
                let inner = after.strip_prefix('(').and_then(|a| {
                    let close = a.find(')')?;
                    Some((a[..close].trim(), close + 2))
                });
                let Some((arg, alen)) = inner else {
                    return Err(bad_ref(word));
                };
                let input = input_index(arg, "in").ok_or_else(|| bad_ref(&rest[..wlen + alen]))?;
                (Ref::Rank { input }, wlen + alen)
            } else {
                out.push_str(word);
                i += wlen;
                continue;
            }
        } else {
            // One character (whole UTF-8 sequence) copied as is.
            let clen = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[..clen]);
            i += clen;
            continue;
        };
        let n = refs
            .iter()
            .position(|r| *r == reference)
            .unwrap_or_else(|| {
                refs.push(reference);
                refs.len() - 1
            });
        marks.push((out.len(), i));
        out.push('`');
        out.push_str(&RuleExpr::placeholder(n));
        out.push('`');
        marks.push((out.len(), i + len));
        i += len;
    }
    let expr = parse_expr(&out).map_err(|e: ParseError| {
        // The position in `text`: from the last mark at or before the error.
        let pos = marks
            .iter()
            .rev()
            .find(|(o, _)| *o <= e.pos)
            .map_or(e.pos, |(o, t)| t + (e.pos - o))
            .min(text.len());
        Problem::BadExpr(ParseError {
            text: text.to_string(),
            pos,
            expected: e.expected,
        })
    })?;
    // Every name must be a placeholder; the message names the rightmost that is not.
    let not_a_ref = expr.symbols().into_iter().rev().find(|s| {
        !s.strip_prefix('#')
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n < refs.len())
    });
    if let Some(s) = not_a_ref {
        return Err(Problem::NotAReference {
            name: s.to_string(),
            expr: text.to_string(),
        });
    }
    Ok(RuleExpr {
        text: text.to_string(),
        expr,
        refs,
    })
}

/// `[K]` at the start of `s` with an integer `K` (optionally negative): `K` and the
/// length read.
fn bracket_int(s: &str) -> Option<(i64, usize)> {
    let inner = s.strip_prefix('[')?;
    let close = inner.find(']')?;
    let k = inner[..close].trim().parse::<i64>().ok()?;
    Some((k, close + 2))
}
