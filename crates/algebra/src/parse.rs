//! The text form of dim expressions and facts.
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/' | '%') unary)*
//! unary   := '-' unary | primary
//! primary := integer | name | '`' quoted '`' | func '(' expr ',' expr ')' | '(' expr ')'
//! func    := floordiv | ceildiv | mod | min | max | broadcast
//! name    := [A-Za-z_][A-Za-z0-9_]*
//! fact    := expr ('==' | '=' | '!=' | '>=' | '<=' | '>' | '<') expr
//! ```
//! `/` is exact division; `%` is accepted on input as `mod` and printed as `mod(a, b)`.
//!
//! On input only, the spellings exporters write into `dim_param` (sympy, as printed
//! by torch.export) are also accepted: `Min(a, b, ...)`, `Max(a, b, ...)`,
//! `Mod`/`PythonMod`, `FloorDiv`, `CeilDiv`, `CleanDiv`/`IntTrueDiv` (exact `/`),
//! `floor(x)`/`ceiling(x)` (with `floor(a/b)` read as `floordiv(a, b)`), `a // b`, and
//! `a**k` for an integer `k` from 0 to 64. Output always uses the grammar above.
//! Inside backquotes, `\` escapes the next character. Nesting deeper than
//! [`MAX_NESTING`] is rejected, so no input can overflow the stack.
//!
//! [`Expr::eval`] is an independent reference evaluator of the grammar; the property
//! tests compare it with the e-graph's simplified forms.

use super::poly::{fold, OpKind};
use super::rational::Rat;
use std::fmt;

/// The deepest nesting of parentheses, unary minus and calls that parses.
pub const MAX_NESTING: usize = 200;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A constant.
    Num(Rat),
    /// A symbol.
    Sym(String),
    /// `-e`.
    Neg(Box<Expr>),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a - b`.
    Sub(Box<Expr>, Box<Expr>),
    /// `a * b`.
    Mul(Box<Expr>, Box<Expr>),
    /// Exact division `a / b`.
    Div(Box<Expr>, Box<Expr>),
    /// `floordiv`, `ceildiv`, `mod`, `min`, `max` or `broadcast`.
    Call(OpKind, Box<Expr>, Box<Expr>),
}

/// A comparison in a fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    /// `==` (or `=`).
    Eq,
    /// `!=`.
    Ne,
    /// `>=`.
    Ge,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `<`.
    Lt,
}

impl fmt::Display for Rel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rel::Eq => "==",
            Rel::Ne => "!=",
            Rel::Ge => ">=",
            Rel::Le => "<=",
            Rel::Gt => ">",
            Rel::Lt => "<",
        })
    }
}

/// A parsed fact `lhs REL rhs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// Left side.
    pub lhs: Expr,
    /// The comparison.
    pub rel: Rel,
    /// Right side.
    pub rhs: Expr,
}

/// Why text did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse `{text}` at byte {pos}: expected {expected}")]
pub struct ParseError {
    /// The whole input.
    pub text: String,
    /// Byte offset of the problem.
    pub pos: usize,
    /// What was expected there.
    pub expected: &'static str,
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, expected: &'static str) -> ParseError {
        ParseError {
            text: self.text.to_string(),
            pos: self.pos,
            expected,
        }
    }

    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with(|c: char| c.is_whitespace()) {
            self.pos += self.text[self.pos..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.text[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err("less nesting (the limit is 200 levels)"));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let mut lhs = self.term()?;
        loop {
            if self.eat("+") {
                lhs = Expr::Add(Box::new(lhs), Box::new(self.term()?));
            } else if self.peek() == Some('-') {
                self.pos += 1;
                lhs = Expr::Sub(Box::new(lhs), Box::new(self.term()?));
            } else {
                return Ok(lhs);
            }
        }
    }

    fn term(&mut self) -> Result<Expr, ParseError> {
        let mut lhs = self.unary()?;
        loop {
            if self.eat("*") {
                lhs = Expr::Mul(Box::new(lhs), Box::new(self.unary()?));
            } else if self.eat("//") {
                lhs = Expr::Call(OpKind::FloorDiv, Box::new(lhs), Box::new(self.unary()?));
            } else if self.eat("/") {
                lhs = Expr::Div(Box::new(lhs), Box::new(self.unary()?));
            } else if self.eat("%") {
                lhs = Expr::Call(OpKind::Mod, Box::new(lhs), Box::new(self.unary()?));
            } else {
                return Ok(lhs);
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if self.peek() == Some('-') && !self.text[self.pos..].starts_with("->") {
            self.pos += 1;
            self.enter()?;
            let e = self.unary()?;
            self.depth -= 1;
            return Ok(e.negated());
        }
        self.power()
    }

    /// `primary ('**' unary)?`: an integer power, expanded into a product.
    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.primary()?;
        if !self.eat("**") {
            return Ok(base);
        }
        self.enter()?;
        let e = self.unary()?;
        self.depth -= 1;
        let n = match &e {
            Expr::Num(r) => r.to_i64().filter(|n| (0..=64).contains(n)),
            _ => None,
        };
        let n = n.ok_or_else(|| self.err("an integer exponent from 0 to 64"))?;
        let mut acc = Expr::Num(Rat::one());
        for i in 0..n {
            acc = if i == 0 {
                base.clone()
            } else {
                Expr::Mul(Box::new(acc), Box::new(base.clone()))
            };
        }
        Ok(acc)
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.enter()?;
                let e = self.expr()?;
                self.depth -= 1;
                if !self.eat(")") {
                    return Err(self.err("`)`"));
                }
                Ok(e)
            }
            Some('`') => {
                self.pos += 1;
                let mut name = String::new();
                let mut chars = self.text[self.pos..].char_indices();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '`' => {
                            self.pos += i + 1;
                            return Ok(Expr::Sym(name));
                        }
                        '\\' => match chars.next() {
                            Some((_, n)) => name.push(n),
                            None => break,
                        },
                        c => name.push(c),
                    }
                }
                self.pos = self.text.len();
                Err(self.err("a closing backquote"))
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.text[self.pos..].starts_with(|c: char| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                self.text[start..self.pos]
                    .parse::<Rat>()
                    .map(Expr::Num)
                    .map_err(|_| self.err("an integer"))
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self.text[self.pos..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.pos += 1;
                }
                let name = &self.text[start..self.pos];
                if self.peek() != Some('(') {
                    return Ok(Expr::Sym(name.to_string()));
                }
                let kind = match name {
                    "floordiv" | "FloorDiv" => Some(OpKind::FloorDiv),
                    "ceildiv" | "CeilDiv" => Some(OpKind::CeilDiv),
                    "mod" | "Mod" | "PythonMod" => Some(OpKind::Mod),
                    "min" | "Min" => Some(OpKind::Min),
                    "max" | "Max" => Some(OpKind::Max),
                    "broadcast" => Some(OpKind::Broadcast),
                    "CleanDiv" | "IntTrueDiv" => Some(OpKind::Div),
                    _ => None,
                };
                let round = match name {
                    "floor" | "Floor" | "FloorToInt" => Some(OpKind::FloorDiv),
                    "ceil" | "ceiling" | "Ceiling" | "CeilToInt" => Some(OpKind::CeilDiv),
                    _ => None,
                };
                if kind.is_none() && round.is_none() {
                    return Ok(Expr::Sym(name.to_string()));
                }
                self.pos += 1;
                self.enter()?;
                let mut args = vec![self.expr()?];
                while self.eat(",") {
                    args.push(self.expr()?);
                }
                self.depth -= 1;
                if !self.eat(")") {
                    return Err(self.err("`)` or `,`"));
                }
                if let Some(k) = round {
                    // sympy's floor(x) / ceiling(x): floor(a/b) is floordiv(a, b).
                    let [x] = <[Expr; 1]>::try_from(args).map_err(|_| self.err("one argument"))?;
                    return Ok(match x {
                        Expr::Div(a, b) => Expr::Call(k, a, b),
                        x => Expr::Call(k, Box::new(x), Box::new(Expr::Num(Rat::one()))),
                    });
                }
                let k = kind.unwrap_or(OpKind::Min);
                let n_ary =
                    matches!(k, OpKind::Min | OpKind::Max) && name.starts_with(char::is_uppercase);
                if args.len() != 2 && !(n_ary && args.len() > 2) {
                    return Err(self.err("two arguments"));
                }
                let mut it = args.into_iter();
                let first = it.next().unwrap_or(Expr::Num(Rat::zero()));
                Ok(it.fold(first, |acc, b| match k {
                    OpKind::Div => Expr::Div(Box::new(acc), Box::new(b)),
                    k => Expr::Call(k, Box::new(acc), Box::new(b)),
                }))
            }
            _ => Err(self.err("a number, a name or `(`")),
        }
    }

    fn finish(&mut self) -> Result<(), ParseError> {
        if self.peek().is_some() {
            return Err(self.err("the end of the expression"));
        }
        Ok(())
    }
}

/// Parse an expression.
pub fn parse_expr(text: &str) -> Result<Expr, ParseError> {
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    let e = p.expr()?;
    p.finish()?;
    Ok(e)
}

/// Parse a fact such as `N >= 2`, `S % 8 == 0` or `N = 4`.
pub fn parse_fact(text: &str) -> Result<Fact, ParseError> {
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    let lhs = p.expr()?;
    let rel = [
        ("==", Rel::Eq),
        ("!=", Rel::Ne),
        (">=", Rel::Ge),
        ("<=", Rel::Le),
        ("=", Rel::Eq),
        (">", Rel::Gt),
        ("<", Rel::Lt),
    ]
    .into_iter()
    .find(|(s, _)| p.eat(s))
    .map(|(_, r)| r)
    .ok_or_else(|| p.err("a comparison (==, =, !=, >=, <=, >, <)"))?;
    let rhs = p.expr()?;
    p.finish()?;
    Ok(Fact { lhs, rel, rhs })
}

impl Expr {
    /// `-self` as the parser reads `-(...)`: the negation of a number is a number.
    pub fn negated(self) -> Expr {
        match self {
            Expr::Num(r) => Expr::Num(r.neg()),
            e => Expr::Neg(Box::new(e)),
        }
    }

    /// Evaluate with exact rationals; `None` where undefined (division by zero,
    /// an incompatible broadcast, an unassigned symbol).
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<Rat>) -> Option<Rat> {
        Some(match self {
            Expr::Num(r) => r.clone(),
            Expr::Sym(s) => env(s)?,
            Expr::Neg(e) => e.eval(env)?.neg(),
            Expr::Add(a, b) => a.eval(env)?.add(&b.eval(env)?),
            Expr::Sub(a, b) => a.eval(env)?.sub(&b.eval(env)?),
            Expr::Mul(a, b) => a.eval(env)?.mul(&b.eval(env)?),
            Expr::Div(a, b) => a.eval(env)?.div(&b.eval(env)?)?,
            Expr::Call(k, a, b) => fold(*k, &a.eval(env)?, &b.eval(env)?)?,
        })
    }

    /// The symbols of the expression, left to right, each as often as it stands.
    pub fn symbols(&self) -> Vec<&str> {
        // The parser bounds nesting (200 levels); a work list keeps this off the
        // stack anyway.
        let mut out = Vec::new();
        let mut todo = vec![self];
        while let Some(e) = todo.pop() {
            match e {
                Expr::Num(_) => {}
                Expr::Sym(s) => out.push(s.as_str()),
                Expr::Neg(a) => todo.push(a),
                Expr::Add(a, b)
                | Expr::Sub(a, b)
                | Expr::Mul(a, b)
                | Expr::Div(a, b)
                | Expr::Call(_, a, b) => {
                    todo.push(b);
                    todo.push(a);
                }
            }
        }
        out
    }
}

impl fmt::Display for Expr {
    /// Fully parenthesised, for tests and messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(r) if r.is_negative() => write!(f, "({r})"),
            Expr::Num(r) => write!(f, "{r}"),
            Expr::Sym(s) => f.write_str(&super::poly::render_symbol(s)),
            Expr::Neg(e) => write!(f, "(-{e})"),
            Expr::Add(a, b) => write!(f, "({a} + {b})"),
            Expr::Sub(a, b) => write!(f, "({a} - {b})"),
            Expr::Mul(a, b) => write!(f, "({a}*{b})"),
            Expr::Div(a, b) => write!(f, "({a}/{b})"),
            Expr::Call(k, a, b) => write!(f, "{}({a}, {b})", k.name()),
        }
    }
}

impl fmt::Display for Fact {
    /// The sides as [`Expr`] prints them, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.lhs, self.rel, self.rhs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(parse_expr("1 + 2*3").unwrap().to_string(), "(1 + (2*3))");
        assert_eq!(
            parse_expr("a - b - c").unwrap().to_string(),
            "((a - b) - c)"
        );
        assert_eq!(parse_expr("48*A/F").unwrap().to_string(), "((48*A)/F)");
        assert_eq!(parse_expr("-2*A").unwrap().to_string(), "((-2)*A)");
        assert_eq!(parse_expr("-(A)").unwrap().to_string(), "(-A)");
        assert_eq!(parse_expr("S % 8").unwrap().to_string(), "mod(S, 8)");
        assert_eq!(
            parse_expr("floordiv(A + 1, 2)").unwrap().to_string(),
            "floordiv((A + 1), 2)"
        );
        assert_eq!(
            parse_expr("`past_sequence_length + 1` + 1")
                .unwrap()
                .to_string(),
            "(`past_sequence_length + 1` + 1)"
        );
        assert_eq!(parse_expr("min").unwrap(), Expr::Sym("min".into()));
    }

    #[test]
    fn errors_name_the_position() {
        let e = parse_expr("A + ").unwrap_err();
        assert_eq!((e.pos, e.expected), (4, "a number, a name or `(`"));
        assert_eq!(parse_expr("(A").unwrap_err().expected, "`)`");
        assert_eq!(
            parse_expr("A B").unwrap_err().expected,
            "the end of the expression"
        );
        assert_eq!(
            parse_expr("`abc").unwrap_err().expected,
            "a closing backquote"
        );
        assert!(parse_expr("").is_err());
        let deep = "(".repeat(10_000) + "1" + &")".repeat(10_000);
        assert!(parse_expr(&deep)
            .unwrap_err()
            .expected
            .starts_with("less nesting"));
        let neg = "-".repeat(10_000) + "1";
        assert!(parse_expr(&neg).is_err());
    }

    #[test]
    fn sympy_spellings_on_input() {
        let p = |t: &str| parse_expr(t).unwrap().to_string();
        assert_eq!(p("Min(512, sequence)"), "min(512, sequence)");
        assert_eq!(p("Max(1, a, b)"), "max(max(1, a), b)");
        assert_eq!(p("floor(s/2) + 1"), "(floordiv(s, 2) + 1)");
        assert_eq!(p("ceiling(s/4)"), "ceildiv(s, 4)");
        assert_eq!(p("floor(s)"), "floordiv(s, 1)");
        assert_eq!(p("s // 2"), "floordiv(s, 2)");
        assert_eq!(p("PythonMod(s, 8)"), "mod(s, 8)");
        assert_eq!(p("CleanDiv(s, 8)"), "(s/8)");
        assert_eq!(p("2*s**2"), "(2*(s*s))");
        assert_eq!(p("-s**2"), "(-(s*s))");
        assert_eq!(p("Min"), "Min");
        assert!(parse_expr("s**100").is_err());
        assert!(parse_expr("s**t").is_err());
        assert!(
            parse_expr("min(1, 2, 3)").is_err(),
            "our own min takes two arguments"
        );
        assert!(parse_expr("floor(1, 2)").is_err());
    }

    #[test]
    fn facts() {
        let f = parse_fact("S % 8 == 0").unwrap();
        assert_eq!(
            (f.lhs.to_string(), f.rel, f.rhs.to_string()),
            ("mod(S, 8)".into(), Rel::Eq, "0".into())
        );
        assert_eq!(parse_fact("N >= 2").unwrap().rel, Rel::Ge);
        assert_eq!(parse_fact("N = 4").unwrap().rel, Rel::Eq);
        assert_eq!(parse_fact("N != 4").unwrap().rel, Rel::Ne);
        assert!(parse_fact("N").is_err());
    }

    #[test]
    fn reference_evaluation() {
        let env = |s: &str| match s {
            "A" => Some(Rat::int(7)),
            _ => None,
        };
        assert_eq!(
            parse_expr("floordiv(A, 2) + mod(-A, 3)")
                .unwrap()
                .eval(&env),
            Some(Rat::int(5))
        );
        assert_eq!(parse_expr("A / 2").unwrap().eval(&env), Rat::frac(7, 2));
        assert_eq!(parse_expr("A / 0").unwrap().eval(&env), None);
        assert_eq!(parse_expr("broadcast(A, 3)").unwrap().eval(&env), None);
        assert_eq!(parse_expr("B").unwrap().eval(&env), None);
    }
}
