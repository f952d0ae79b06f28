//! The expression parser and printer: parse, simplify, print, parse again; the
//! second print must equal the first (canonical forms are stable) unless a product
//! was too large to expand.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
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
    let mut again = symdim::algebra::Algebra::default();
    let d2 = again.parse(&first).expect("a printed form parses");
    assert_eq!(again.simplify(d2), first, "printing is canonical for {text:?}");
});
