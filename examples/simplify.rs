//! Simplify expressions given on the command line: `cargo run --example simplify -- 'floordiv(2*S, 2)'`.
fn main() {
    let mut alg = symdim::algebra::Algebra::default();
    for a in std::env::args().skip(1) {
        match alg.parse(&a) {
            Ok(d) => println!("{a} => {}", alg.simplify(d)),
            Err(e) => println!("{a} => error: {e}"),
        }
    }
}
