//! The expression parser and printer: parse, simplify, print, parse again; the
//! second print must equal the first (canonical forms are stable) unless a product
//! was too large to expand or a size limit put a placeholder (`big0`) in place of
//! a value.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.len() > 4096 {
        return;
    }
    let mut alg = symdim::algebra::Algebra::default();
    let Ok(d) = alg.parse(text) else { return };
    let first = alg.simplify(d);
    if alg.canon(d).has_opaque_product() {
        // Past the expansion limit the form is sound but not canonical (a warning says so).
        return;
    }
    if alg.warnings().iter().any(|w| w.placeholder().is_some()) {
        // A value past a size limit (a constant of more than MAX_CONST_BITS bits, a
        // form past the node or depth limit) became a fresh data-dependent symbol,
        // named in a warning; printed, it reads back as an input symbol of that name,
        // which is another expression.
        return;
    }
    let mut again = symdim::algebra::Algebra::default();
    let d2 = again.parse(&first).expect("a printed form parses");
    assert_eq!(
        again.simplify(d2),
        first,
        "printing is canonical for {text:?}"
    );
});
