//! Time the library in-process: `symdim::load` then `symdim::infer`, without a report
//! or the CLI. Prints one line per run, the seconds the two took together.
//!
//! `cargo run --release --example timing -- MODEL [RUNS]` (used by
//! `scripts/compare_peers.py` as the `lib` peer, beside onnx's in-process inference).

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: timing MODEL [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let facts = symdim::Facts::new();
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let model = match symdim::load(std::path::Path::new(&path)) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        };
        let shapes = symdim::infer(&model, &facts);
        let elapsed = start.elapsed();
        std::hint::black_box(&shapes);
        println!("{:.9}", elapsed.as_secs_f64());
    }
}
