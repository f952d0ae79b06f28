//! Benchmarks of the dim algebra.

fn main() {
    divan::main();
}
