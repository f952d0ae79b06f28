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
//! `a**k` for an integer `k` from 0 to [`MAX_EXPONENT`] (read as `k` copies of `a`
//! multiplied). Output uses the grammar above, and `a**k` for a factor repeated
//! more than [`POWER_ABOVE`](crate::poly::POWER_ABOVE) times.
//! Inside backquotes, `\` escapes the next character. Nesting deeper than
//! [`MAX_NESTING`] is rejected, and so is an expression of more than
//! [`MAX_EXPR_NODES`] nodes or an integer of more than [`MAX_CONST_BITS`] bits, so
//! no input can overflow the stack or make work that follows a value rather than
//! the text's length. A chain of `+` and `-` (or of `*` and `/`) is as deep as it
//! is long, so everything that walks an [`Expr`] does so without recursion.
//!
//! [`Expr::eval`] is an independent reference evaluator of the grammar; the property
//! tests compare it with the e-graph's simplified forms.

use super::poly::{fold, OpKind, MAX_EXPONENT};
use super::rational::{Rat, MAX_CONST_BITS};
use std::fmt;

/// The deepest nesting of parentheses, unary minus and calls that parses.
pub const MAX_NESTING: usize = 200;

/// The most nodes ([`Expr`] values: numbers, names, operators) one text may parse
/// into, counting the copies `a**k` makes of `a`; past it the text is a parse
/// error. It bounds the work one text can ask of the algebra: a flat sum of 65,535
/// terms fits.
pub const MAX_EXPR_NODES: usize = 1 << 17;

/// What a text past [`MAX_EXPR_NODES`] is told it should be.
const TOO_MANY_NODES: &str =
    "a shorter expression (at most 131072 nodes, MAX_EXPR_NODES; `a**k` counts k copies of `a`)";

/// What a literal past [`MAX_CONST_BITS`] is told it should be.
const CONST_TOO_LARGE: &str = "an integer of at most 4096 bits (MAX_CONST_BITS)";

/// What an exponent outside `0..=MAX_EXPONENT` is told it should be.
const EXPONENT_RANGE: &str = "an integer exponent from 0 to 4096 (MAX_EXPONENT)";

/// A literal of more decimal digits (after leading zeros) is past
/// [`MAX_CONST_BITS`]: `floor(bits * log10(2)) + 1`, rounded up.
const MAX_CONST_DIGITS: usize = (MAX_CONST_BITS as usize * 30_103) / 100_000 + 1;

/// A parsed expression.
///
/// Dropping, evaluating and printing one walk it without recursion: a flat chain
/// `a + a + ...` is a left-deep tree as deep as it is long.
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
    /// Nodes made so far (see [`MAX_EXPR_NODES`]).
    nodes: usize,
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

    /// Count `n` more nodes against [`MAX_EXPR_NODES`].
    fn count(&mut self, n: usize) -> Result<(), ParseError> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_EXPR_NODES {
            return Err(self.err(TOO_MANY_NODES));
        }
        Ok(())
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
            self.count(1)?;
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
            self.count(1)?;
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

    /// `primary ('**' unary)?`: an integer power, read as a product of copies.
    fn power(&mut self) -> Result<Expr, ParseError> {
        let before = self.nodes;
        let base = self.primary()?;
        if !self.eat("**") {
            return Ok(base);
        }
        let base_nodes = self.nodes - before;
        self.enter()?;
        let e = self.unary()?;
        self.depth -= 1;
        let n = match &e {
            Expr::Num(r) => r
                .to_i64()
                .filter(|n| (0..=i64::from(MAX_EXPONENT)).contains(n)),
            _ => None,
        };
        let n = n.ok_or_else(|| self.err(EXPONENT_RANGE))? as usize;
        // The copies past the first, and a `*` joining each.
        self.count(n.saturating_sub(1).saturating_mul(base_nodes + 1))?;
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
            Some('`') => self.quoted(),
            Some(c) if c.is_ascii_digit() => self.number(),
            Some(c) if c.is_ascii_alphabetic() || c == '_' => self.name_or_call(),
            _ => Err(self.err("a number, a name or `(`")),
        }
    }

    // The arms of `primary` are functions of their own, kept out of line, so
    // that the frames of the recursion through `(` stay small (`MAX_NESTING`
    // levels of it must fit a thread's stack in a debug build too).

    /// A backquoted name.
    #[inline(never)]
    fn quoted(&mut self) -> Result<Expr, ParseError> {
        self.pos += 1;
        let mut name = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '`' => {
                    self.pos += i + 1;
                    self.count(1)?;
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

    /// An integer literal of at most [`MAX_CONST_BITS`] bits.
    #[inline(never)]
    fn number(&mut self) -> Result<Expr, ParseError> {
        let start = self.pos;
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.count(1)?;
        let digits = self.text[start..self.pos].trim_start_matches('0');
        // 10^k has more than 3.32*k bits: a longer literal is past the limit
        // without being converted.
        if digits.len() > MAX_CONST_DIGITS {
            self.pos = start;
            return Err(self.err(CONST_TOO_LARGE));
        }
        let r = self.text[start..self.pos]
            .parse::<Rat>()
            .map_err(|_| self.err("an integer"))?;
        if r.bits() > MAX_CONST_BITS {
            self.pos = start;
            return Err(self.err(CONST_TOO_LARGE));
        }
        Ok(Expr::Num(r))
    }

    /// A name, or a call of a function of the grammar.
    #[inline(never)]
    fn name_or_call(&mut self) -> Result<Expr, ParseError> {
        let start = self.pos;
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        let name = &self.text[start..self.pos];
        self.count(1)?;
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
            let [mut x] = <[Expr; 1]>::try_from(args).map_err(|_| self.err("one argument"))?;
            if let Expr::Div(a, b) = &mut x {
                let (a, b) = (std::mem::take(a), std::mem::take(b));
                return Ok(Expr::Call(k, a, b));
            }
            return Ok(Expr::Call(k, Box::new(x), Box::new(Expr::Num(Rat::one()))));
        }
        let k = kind.unwrap_or(OpKind::Min);
        let n_ary = matches!(k, OpKind::Min | OpKind::Max) && name.starts_with(char::is_uppercase);
        if args.len() != 2 && !(n_ary && args.len() > 2) {
            return Err(self.err("two arguments"));
        }
        // The name counted as the first call; one more per further argument.
        self.count(args.len() - 2)?;
        let mut it = args.into_iter();
        let first = it.next().unwrap_or(Expr::Num(Rat::zero()));
        Ok(it.fold(first, |acc, b| match k {
            OpKind::Div => Expr::Div(Box::new(acc), Box::new(b)),
            k => Expr::Call(k, Box::new(acc), Box::new(b)),
        }))
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
        nodes: 0,
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
        nodes: 0,
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
        if let Expr::Num(r) = &self {
            return Expr::Num(r.neg());
        }
        Expr::Neg(Box::new(self))
    }

    /// Evaluate with exact rationals; `None` where undefined (division by zero,
    /// an incompatible broadcast, an unassigned symbol).
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<Rat>) -> Option<Rat> {
        enum Step<'a> {
            Visit(&'a Expr),
            Apply(&'a Expr),
        }
        let mut todo = vec![Step::Visit(self)];
        let mut values: Vec<Rat> = Vec::new();
        while let Some(step) = todo.pop() {
            match step {
                Step::Visit(e) => match e {
                    Expr::Num(r) => values.push(r.clone()),
                    Expr::Sym(s) => values.push(env(s)?),
                    Expr::Neg(a) => {
                        todo.push(Step::Apply(e));
                        todo.push(Step::Visit(a));
                    }
                    Expr::Add(a, b)
                    | Expr::Sub(a, b)
                    | Expr::Mul(a, b)
                    | Expr::Div(a, b)
                    | Expr::Call(_, a, b) => {
                        todo.push(Step::Apply(e));
                        todo.push(Step::Visit(b));
                        todo.push(Step::Visit(a));
                    }
                },
                Step::Apply(e) => {
                    let y = values.pop()?;
                    let v = match e {
                        Expr::Neg(_) => y.neg(),
                        _ => {
                            let x = values.pop()?;
                            match e {
                                Expr::Add(..) => x.add(&y),
                                Expr::Sub(..) => x.sub(&y),
                                Expr::Mul(..) => x.mul(&y),
                                Expr::Div(..) => x.div(&y)?,
                                Expr::Call(k, ..) => fold(*k, &x, &y)?,
                                Expr::Num(_) | Expr::Sym(_) | Expr::Neg(_) => {
                                    unreachable!("leaves and `-e` are applied above")
                                }
                            }
                        }
                    };
                    values.push(v);
                }
            }
        }
        values.pop()
    }

    /// The symbols of the expression, left to right, each as often as it stands.
    pub fn symbols(&self) -> Vec<&str> {
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

    /// True for an operator (a node with operands).
    fn has_operands(&self) -> bool {
        !matches!(self, Expr::Num(_) | Expr::Sym(_))
    }

    /// Move the operands that have operands themselves onto `out`, leaving `0` in
    /// their place (for [`Drop`]).
    fn take_operands(&mut self, out: &mut Vec<Expr>) {
        let mut take = |e: &mut Expr| {
            if e.has_operands() {
                out.push(std::mem::take(e));
            }
        };
        match self {
            Expr::Num(_) | Expr::Sym(_) => {}
            Expr::Neg(a) => take(a),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Call(_, a, b) => {
                take(a);
                take(b);
            }
        }
    }
}

impl Default for Expr {
    /// The constant `0`.
    fn default() -> Expr {
        Expr::Num(Rat::zero())
    }
}

impl Drop for Expr {
    /// Without recursion: operands with operands of their own are moved to a work
    /// list first, so no drop goes deeper than one level.
    fn drop(&mut self) {
        let mut todo = Vec::new();
        self.take_operands(&mut todo);
        while let Some(mut e) = todo.pop() {
            e.take_operands(&mut todo);
        }
    }
}

impl fmt::Display for Expr {
    /// Fully parenthesised, for tests and messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        enum Piece<'a> {
            Expr(&'a Expr),
            Text(&'static str),
        }
        let mut todo = vec![Piece::Expr(self)];
        while let Some(piece) = todo.pop() {
            let e = match piece {
                Piece::Text(t) => {
                    f.write_str(t)?;
                    continue;
                }
                Piece::Expr(e) => e,
            };
            let (a, op, b) = match e {
                Expr::Num(r) if r.is_negative() => {
                    write!(f, "({r})")?;
                    continue;
                }
                Expr::Num(r) => {
                    write!(f, "{r}")?;
                    continue;
                }
                Expr::Sym(s) => {
                    f.write_str(&super::poly::render_symbol(s))?;
                    continue;
                }
                Expr::Neg(a) => {
                    f.write_str("(-")?;
                    todo.push(Piece::Text(")"));
                    todo.push(Piece::Expr(a));
                    continue;
                }
                Expr::Call(k, a, b) => {
                    f.write_str(k.name())?;
                    (a, ", ", b)
                }
                Expr::Add(a, b) => (a, " + ", b),
                Expr::Sub(a, b) => (a, " - ", b),
                Expr::Mul(a, b) => (a, "*", b),
                Expr::Div(a, b) => (a, "/", b),
            };
            f.write_str("(")?;
            todo.push(Piece::Text(")"));
            todo.push(Piece::Expr(b));
            todo.push(Piece::Text(op));
            todo.push(Piece::Expr(a));
        }
        Ok(())
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
        assert!(parse_expr("s**5000").is_err());
        assert_eq!(parse_expr("s**100").unwrap().symbols().len(), 100);
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
