//! A batch of facts ([`Algebra::apply_facts`], one resaturation at its end) gives
//! what applying the same facts one by one gives: the same result per fact, the same
//! symbol table, the same classes (canonical form and bounds), the same answers to
//! queries, the same warnings and contradictions. And batches of thousands of facts
//! (ladders of doubling counts) give the bounds a hand derivation gives. No test
//! measures time. (Past 16 tightenings of one class, `analysis::MAX_REFINEMENTS`, one
//! by one stops tightening where a batch, refining once from the final bounds, may not,
//! so bounds may differ (both enclose every value); the comparisons below stay under
//! that cap.)

use symdim_algebra::parse::parse_fact;
use symdim_algebra::{Algebra, Fact, FactItem};

/// A fact as the batch takes it: a bind or an assumed fact.
enum Given {
    Bind(String, i64),
    Assume(Fact),
}

fn bind(name: &str, value: i64) -> Given {
    Given::Bind(name.to_string(), value)
}

fn assume(text: &str) -> Given {
    Given::Assume(parse_fact(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

/// Everything a caller can observe of `alg`, after building `probes`.
fn fingerprint(alg: &mut Algebra, probes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for p in probes {
        let d = alg.parse(p).unwrap();
        out.push(format!(
            "{p}: {} in {:?}, simplified {}",
            alg.render(d),
            alg.bounds(d),
            alg.simplify(d)
        ));
        let z = alg.constant(0);
        let eight = alg.constant(8);
        out.push(format!(
            "{p}: == 0 {:?}, <= 8 {:?}, 8 | {:?}",
            alg.equal(d, z),
            alg.le(d, eight),
            alg.divides(eight, d)
        ));
    }
    for (name, e) in alg.symbols() {
        out.push(format!("symbol {name}: {e:?}"));
    }
    let mut classes: Vec<String> = alg
        .egraph()
        .classes()
        .map(|c| format!("class {:?} in {:?}", c.data.canon, c.data.bounds))
        .collect();
    classes.sort();
    classes.dedup();
    out.extend(classes);
    out.extend(alg.warnings().iter().map(|w| format!("warning {w:?}")));
    out.extend(alg.contradictions().map(|c| format!("contradiction {c:?}")));
    out
}

/// Apply `facts` to two algebras that hold `before` (built first): one by one, and
/// in one batch; both must be observably the same.
fn same_both_ways(before: &[&str], facts: &[Given], probes: &[&str]) {
    let mut one = Algebra::default();
    let mut batch = Algebra::default();
    for b in before {
        one.parse(b).unwrap();
        batch.parse(b).unwrap();
    }
    let singly: Vec<String> = facts
        .iter()
        .map(|f| match f {
            Given::Bind(n, v) => one.bind(n, *v),
            Given::Assume(f) => one.assume_fact(f),
        })
        .map(|r| format!("{r:?}"))
        .collect();
    let items: Vec<FactItem<'_>> = facts
        .iter()
        .map(|f| match f {
            Given::Bind(n, v) => FactItem::Bind(n, *v),
            Given::Assume(f) => FactItem::Assume(f),
        })
        .collect();
    let together: Vec<String> = batch
        .apply_facts(&items)
        .into_iter()
        .map(|r| format!("{r:?}"))
        .collect();
    assert_eq!(singly, together, "results per fact");
    assert_eq!(
        fingerprint(&mut one, probes),
        fingerprint(&mut batch, probes)
    );
}

const BEFORE: &[&str] = &[
    "batch // 8",
    "max(batch, 4) * S",
    "(S + 7) // 8 * 8",
    "min(S, 512) + ceildiv(N, 2)",
    "S % 8",
    "floordiv(M, K) * K",
    "max(0, N - 3)",
];

const PROBES: &[&str] = &[
    "batch // 8",
    "(S + 7) // 8 * 8",
    "max(batch, 4)",
    "min(S, 512)",
    "S % 8",
    "ceildiv(N, 2)",
    "max(0, N - 3)",
    "floordiv(M, K) * K",
    "M - 2 * K",
];

#[test]
fn bounds_on_one_symbol_batch_as_one_by_one() {
    let facts: Vec<Given> = (1..=12).map(|i| assume(&format!("batch >= {i}"))).collect();
    same_both_ways(BEFORE, &facts, PROBES);
    let facts: Vec<Given> = (0..12)
        .map(|i| assume(&format!("S <= {}", 4096 - i)))
        .chain([assume("S >= 600"), assume("S % 8 == 0")])
        .collect();
    same_both_ways(BEFORE, &facts, PROBES);
}

#[test]
fn binds_batch_as_one_by_one() {
    let facts = vec![
        bind("N", 7),
        bind("batch", 16),
        bind("S", 1000),
        bind("K", 3),
    ];
    same_both_ways(BEFORE, &facts, PROBES);
    same_both_ways(&[], &facts, PROBES);
}

#[test]
fn mixed_facts_batch_as_one_by_one() {
    // Symbol-table facts, then facts that read the e-graph (an equality, a bound of
    // an expression, a disequality), then symbol-table facts on a symbol equated with
    // an expression, then a bind.
    let facts = vec![
        assume("batch >= 2"),
        assume("S % 8 == 0"),
        assume("M == 2 * K"),
        assume("K >= 3"),
        assume("batch * S <= 100000"),
        assume("M >= 10"),
        assume("N != 5"),
        assume("S - batch >= 1"),
        assume("M <= 64"),
        bind("N", 9),
        assume("K <= 40"),
        assume("S >= 16"),
    ];
    same_both_ways(BEFORE, &facts, PROBES);
    same_both_ways(&[], &facts, PROBES);
}

#[test]
fn contradictions_batch_as_one_by_one() {
    // A bound emptying a symbol's interval, a bind out of bounds, an equality the
    // earlier facts refute, a disequality they prove false: each is refused the same
    // way in a batch.
    let facts = vec![
        assume("batch >= 4"),
        assume("batch <= 2"),
        assume("S <= 10"),
        bind("S", 11),
        assume("M == K + 1"),
        assume("M == K"),
        bind("N", 4),
        assume("N != 4"),
        assume("ceildiv(N, 2) >= 3"),
        assume("K >= 1"),
    ];
    same_both_ways(BEFORE, &facts, PROBES);
}

#[test]
fn owed_refreshes_are_not_blamed_on_a_later_bind() {
    // `A >= 4` and `B >= 2` make `A*B` at least 8 where `A*B == 6`: one by one, the
    // contradiction is recorded when `B >= 2` propagates (and that fact is accepted,
    // as a bound of a symbol is). In a batch the two bounds are owed; the bind of
    // `C`, whose class has parents, propagates, and must not return the
    // contradiction the owed bounds find.
    let before = ["A*B", "C + A", "C * B", "N + 3"];
    let facts = vec![
        assume("A*B == 6"),
        assume("A >= 4"),
        assume("B >= 2"),
        bind("C", 3),
        bind("K", 3),
        assume("N == 5"),
        assume("M == 3"),
    ];
    same_both_ways(&before, &facts, &["A*B", "C + A", "N + 3", "K + M"]);
}

#[test]
fn binds_of_fresh_symbols_batch_as_one_by_one() {
    // Symbols no expression uses yet, bound to constants that some expressions use
    // (their union propagates nothing) and that none do, and equalities of the same
    // shape; then a bind of a symbol expressions use.
    let before = ["S * 2", "N + 3", "max(N, 4)"];
    let facts = vec![
        bind("K", 3),
        bind("M", 2),
        bind("P", 1000),
        assume("Q == 2"),
        assume("7 == R"),
        assume("K <= 3"),
        assume("M >= 2"),
        bind("N", 9),
        assume("T == K"),
    ];
    let probes = ["S * 2", "N + 3", "max(N, 4)", "K + M + P + Q + R", "T"];
    same_both_ways(&before, &facts, &probes);
    same_both_ways(&[], &facts, &probes);
}

/// Powers of two from 1,024 to 16,384: the ladder of fact counts.
fn ladder() -> impl Iterator<Item = usize> {
    (10..=14).map(|e| 1usize << e)
}

#[test]
fn thousands_of_bounds_on_one_symbol_meet_in_one_interval() {
    for k in ladder() {
        let mut alg = Algebra::default();
        let d = alg.parse("batch // 8").unwrap();
        let facts: Vec<Fact> = (1..=k)
            .map(|i| parse_fact(&format!("batch >= {i}")).unwrap())
            .collect();
        let items: Vec<FactItem<'_>> = facts.iter().map(FactItem::Assume).collect();
        assert!(alg.apply_facts(&items).iter().all(Result::is_ok), "k = {k}");
        // batch >= k, so batch // 8 >= floor(k / 8) = k / 8 (k is a power of two).
        let b = alg.parse("batch").unwrap();
        assert_eq!(
            alg.bounds(b).lo().map(|r| r.to_string()),
            Some(k.to_string())
        );
        assert_eq!(
            alg.bounds(d).lo().map(|r| r.to_string()),
            Some((k / 8).to_string()),
            "k = {k}"
        );
    }
}

#[test]
fn thousands_of_binds_each_fix_their_symbol() {
    for k in ladder() {
        let mut alg = Algebra::default();
        let names: Vec<String> = (0..k).map(|i| format!("S{i}")).collect();
        let items: Vec<FactItem<'_>> = names
            .iter()
            .enumerate()
            .map(|(i, n)| FactItem::Bind(n, i as i64 + 1))
            .collect();
        assert!(alg.apply_facts(&items).iter().all(Result::is_ok), "k = {k}");
        // S0 + S{k-1} = 1 + k.
        let d = alg.parse(&format!("S0 + S{}", k - 1)).unwrap();
        assert_eq!(alg.render(d), (k + 1).to_string(), "k = {k}");
    }
}

#[test]
fn thousands_of_equalities_each_fix_their_symbol() {
    // `S_i == i + 1` as assumed facts (as a contract's scratch algebra takes binds),
    // then the sum of every S_i, as a Concat of them builds it: 1 + 2 + ... + k.
    for k in ladder() {
        let mut alg = Algebra::default();
        let facts: Vec<Fact> = (0..k)
            .map(|i| parse_fact(&format!("S{i} == {}", i + 1)).unwrap())
            .collect();
        let items: Vec<FactItem<'_>> = facts.iter().map(FactItem::Assume).collect();
        assert!(alg.apply_facts(&items).iter().all(Result::is_ok), "k = {k}");
        let dims: Vec<_> = (0..k).map(|i| alg.input(&format!("S{i}"))).collect();
        let sum = alg.sum(&dims);
        assert_eq!(alg.render(sum), (k * (k + 1) / 2).to_string(), "k = {k}");
    }
}

#[test]
fn thousands_of_disequalities_hold_across_unions() {
    use symdim_algebra::Truth;
    for k in ladder().take(2) {
        let mut alg = Algebra::default();
        let facts: Vec<Fact> = (1..=k)
            .map(|i| parse_fact(&format!("N != {}", 2 * i)).unwrap())
            .collect();
        let items: Vec<FactItem<'_>> = facts.iter().map(FactItem::Assume).collect();
        assert!(alg.apply_facts(&items).iter().all(Result::is_ok), "k = {k}");
        let n = alg.input("N");
        for i in [1, 2, 3, k, 2 * k, 2 * k + 2] {
            let c = alg.constant(i as i64);
            let expected = if i % 2 == 0 && i <= 2 * k {
                Truth::False
            } else {
                Truth::Unknown
            };
            assert_eq!(alg.equal(n, c), expected, "N == {i}, k = {k}");
            assert_eq!(alg.equal(c, n), expected, "{i} == N, k = {k}");
        }
        // A union after them: `P` joins the class of `N`, which every disequality
        // still excludes from its constant; one more disequality after the union.
        alg.assume("P == N").unwrap();
        alg.assume(&format!("N != {}", 2 * k + 2)).unwrap();
        let p = alg.input("P");
        for i in [2, k, 2 * k + 2] {
            let c = alg.constant(i as i64);
            assert_eq!(alg.equal(p, c), Truth::False, "P == {i}, k = {k}");
        }
        let odd = alg.constant(2 * k as i64 + 1);
        assert_eq!(alg.equal(p, odd), Truth::Unknown);
        assert!(alg.assume(&format!("P == {k}")).is_err(), "k = {k}");
    }
}
