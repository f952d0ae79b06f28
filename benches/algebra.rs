//! Benchmarks of the dim algebra (divan).
//!
//! Inputs come from a small xorshift generator with fixed seeds, so every run
//! measures the same expressions and reshapes.
//!
//! ```text
//! cargo bench --bench algebra
//! ```

use divan::{black_box, Bencher};
use symdim::algebra::parse::parse_fact;
use symdim::algebra::{Algebra, Dim, Fact, FactItem, FreshKey};

fn main() {
    divan::main();
}

/// xorshift64: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const SYMS: &[&str] = &["B", "S", "H", "W", "N"];

/// A random dim expression of depth at most `depth`, in the flavour of shape
/// inference: sums and products of symbols and constants, exact divisions by
/// constants, conv-style floordiv/ceildiv/mod, min, max and broadcast.
fn expr(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.below(4) == 0 {
        return if rng.below(3) == 0 {
            (1 + rng.below(64)).to_string()
        } else {
            rng.pick(SYMS).to_string()
        };
    }
    let a = expr(rng, depth - 1);
    match rng.below(10) {
        0 | 1 => format!("({a} + {})", expr(rng, depth - 1)),
        2 => format!("({a} - {})", expr(rng, depth - 1)),
        3 | 4 => format!("{a}*{}", expr(rng, depth - 1)),
        5 => format!("({a})/{}", 1 + rng.below(8)),
        6 => format!(
            "{}({a} + {}, {}) + 1",
            rng.pick(&["floordiv", "ceildiv"]),
            rng.below(4),
            1 + rng.below(4)
        ),
        7 => format!("mod({a}, {})", rng.pick(&["2", "8", "S", "64"])),
        8 => format!(
            "{}({a}, {})",
            rng.pick(&["min", "max"]),
            expr(rng, depth - 1)
        ),
        _ => format!("broadcast({a}, {})", rng.pick(&["1", "B", "S"])),
    }
}

fn expressions(n: usize) -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..n).map(|_| expr(&mut rng, 4)).collect()
}

/// Simplify 10,000 random expressions in one algebra (classes and rules are
/// shared as they accumulate).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn simplify_10k(bencher: Bencher) {
    bencher
        .with_inputs(|| expressions(10_000))
        .bench_values(|exprs| {
            let mut alg = Algebra::default();
            for e in &exprs {
                let d = alg.parse(e).expect("generated text parses");
                black_box(alg.simplify(d));
            }
            alg
        });
}

/// Simplify the same 10,000 expressions, each in a fresh algebra.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn simplify_10k_fresh_algebra(bencher: Bencher) {
    bencher
        .with_inputs(|| expressions(10_000))
        .bench_values(|exprs| {
            for e in &exprs {
                let mut alg = Algebra::default();
                let d = alg.parse(e).expect("generated text parses");
                black_box(alg.simplify(d));
            }
        });
}

fn shape_dim(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => (1 + rng.below(16)).to_string(),
        1 => rng.pick(&["B", "S", "H"]).to_string(),
        _ => format!("{}*{}", 2 + rng.below(3), rng.pick(&["B", "S", "H"])),
    }
}

/// A reshape: the input dims and the known dims of the target.
type Reshape = (Vec<Dim>, Vec<Dim>);

/// 10,000 reshapes in one algebra: the input dims and the known dims of the
/// target (input dims copied, constants), parsed up front.
fn reshapes(n: usize) -> (Algebra, Vec<Reshape>) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut alg = Algebra::default();
    let cases = (0..n)
        .map(|_| {
            let input: Vec<Dim> = (0..1 + rng.below(4))
                .map(|_| {
                    let t = shape_dim(&mut rng);
                    alg.parse(&t).expect("shape dim")
                })
                .collect();
            let mut known: Vec<Dim> = input
                .iter()
                .filter(|_| rng.below(2) == 0)
                .copied()
                .collect();
            for _ in 0..rng.below(3) {
                let c = alg.constant(1 + rng.below(16) as i64);
                known.push(c);
            }
            (input, known)
        })
        .collect();
    (alg, cases)
}

/// Solve Reshape's -1 for 10,000 random reshapes.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn solve_reshape_10k(bencher: Bencher) {
    bencher
        .with_inputs(|| reshapes(10_000))
        .bench_values(|(mut alg, cases)| {
            for (i, (input, known)) in cases.iter().enumerate() {
                let key = FreshKey {
                    node: "Reshape".to_string(),
                    output: 0,
                    axis: i,
                };
                let _ = black_box(alg.solve_minus_one(input, known, key));
            }
            alg
        });
}

/// A typical transformer dim: the output length of a strided convolution
/// feeding attention heads.
const TYPICAL: &str = "(floordiv(S + 2*P - K, 2) + 1)*B*768/(12*64)";

/// Parse the text alone (the grammar, no e-graph).
#[divan::bench]
fn parse_text() -> symdim::algebra::Expr {
    symdim::algebra::parse::parse_expr(black_box(TYPICAL)).expect("parses")
}

/// Parse into a fresh algebra (e-graph insertion and saturation included).
#[divan::bench]
fn parse_fresh_algebra() -> Dim {
    let mut alg = Algebra::default();
    alg.parse(black_box(TYPICAL)).expect("parses")
}

/// Parse again into an algebra that already holds the dim (hash-consing path).
#[divan::bench]
fn parse_warm_algebra(bencher: Bencher) {
    let mut alg = Algebra::default();
    alg.parse(TYPICAL).expect("parses");
    bencher.bench_local(|| alg.parse(black_box(TYPICAL)).expect("parses"));
}

#[divan::bench]
fn render(bencher: Bencher) {
    let mut alg = Algebra::default();
    let d = alg.parse(TYPICAL).expect("parses");
    bencher.bench_local(|| alg.render(black_box(d)));
}

/// `equal` on a pair it disproves by bounds (`S + B` vs `S`).
#[divan::bench]
fn equal_disproven(bencher: Bencher) {
    let mut alg = Algebra::default();
    let a = alg.parse("B*S*64 + B").expect("parses");
    let b = alg.parse("B*S*64").expect("parses");
    bencher.bench_local(|| alg.equal(black_box(a), black_box(b)));
}

/// `equal` on a pair it cannot decide (`B*S` vs `S`): the slowest path.
#[divan::bench]
fn equal_unknown(bencher: Bencher) {
    let mut alg = Algebra::default();
    let a = alg.parse(TYPICAL).expect("parses");
    let b = alg.parse("B*S*64").expect("parses");
    bencher.bench_local(|| alg.equal(black_box(a), black_box(b)));
}

/// `equal` on two spellings of one dim (one class after hash-consing).
#[divan::bench]
fn equal_same_class(bencher: Bencher) {
    let mut alg = Algebra::default();
    let a = alg.parse(TYPICAL).expect("parses");
    let b = alg
        .parse("B*(1 + floordiv(S - K + 2*P, 2))*64/64")
        .expect("parses");
    bencher.bench_local(|| alg.equal(black_box(a), black_box(b)));
}

/// 1,000 random expressions in one algebra and `le` between consecutive pairs:
/// a query on pairs whose difference is not yet in the e-graph.
fn le_pairs() -> (Algebra, Vec<Dim>) {
    let mut alg = Algebra::default();
    let dims = expressions(1_000)
        .iter()
        .map(|e| alg.parse(e).expect("generated text parses"))
        .collect();
    (alg, dims)
}

/// `le` on 1,000 pairs of random expressions.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn le_1k(bencher: Bencher) {
    bencher.with_inputs(le_pairs).bench_values(|(alg, dims)| {
        for w in dims.windows(2) {
            black_box(alg.le(w[0], w[1]));
        }
        alg
    });
}

/// `le` on a pair it proves by bounds (`S <= S*B + 1`).
#[divan::bench]
fn le_proven(bencher: Bencher) {
    let mut alg = Algebra::default();
    let a = alg.parse("S").expect("parses");
    let b = alg.parse("S*B + 1").expect("parses");
    bencher.bench_local(|| alg.le(black_box(a), black_box(b)));
}

/// Fact counts of the fact benchmarks, up to `MAX_FACTS` (10,000).
const FACT_COUNTS: [usize; 3] = [1_000, 4_000, 10_000];

/// K binds `S_i = i + 1` of distinct symbols, in one batch, then the sum of them
/// all (as a Concat of their dims builds it).
#[divan::bench(args = FACT_COUNTS, sample_count = 5, sample_size = 1)]
fn bind_distinct_symbols(bencher: Bencher, k: usize) {
    let names: Vec<String> = (0..k).map(|i| format!("S{i}")).collect();
    bencher.bench_local(|| {
        let mut alg = Algebra::default();
        let items: Vec<FactItem<'_>> = names
            .iter()
            .enumerate()
            .map(|(i, n)| FactItem::Bind(n, i as i64 + 1))
            .collect();
        black_box(alg.apply_facts(&items));
        let dims: Vec<Dim> = names.iter().map(|n| alg.input(n)).collect();
        black_box(alg.sum(&dims))
    });
}

/// K facts `batch >= i` on one symbol, in one batch, with expressions of it built
/// before.
#[divan::bench(args = FACT_COUNTS, sample_count = 5, sample_size = 1)]
fn bounds_on_one_symbol(bencher: Bencher, k: usize) {
    let facts: Vec<Fact> = (1..=k)
        .map(|i| parse_fact(&format!("batch >= {i}")).expect("parses"))
        .collect();
    bencher.bench_local(|| {
        let mut alg = Algebra::default();
        for e in ["batch // 8", "max(batch, 4) * S", "batch * S + 1"] {
            alg.parse(e).expect("parses");
        }
        let items: Vec<FactItem<'_>> = facts.iter().map(FactItem::Assume).collect();
        black_box(alg.apply_facts(&items))
    });
}

/// K facts `N != 2*i` on one symbol, in one batch.
#[divan::bench(args = FACT_COUNTS, sample_count = 5, sample_size = 1)]
fn disequalities_on_one_symbol(bencher: Bencher, k: usize) {
    let facts: Vec<Fact> = (1..=k)
        .map(|i| parse_fact(&format!("N != {}", 2 * i)).expect("parses"))
        .collect();
    bencher.bench_local(|| {
        let mut alg = Algebra::default();
        let items: Vec<FactItem<'_>> = facts.iter().map(FactItem::Assume).collect();
        black_box(alg.apply_facts(&items))
    });
}
