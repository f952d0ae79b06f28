//! Time the library in-process: `symdim::load` then `symdim::infer`, without the CLI,
//! and with `report` also the JSON report into memory. Prints one line per run, the
//! seconds those calls took together.
//!
//! `cargo run --release --example timing -- MODEL [RUNS] [report]` (used by
//! `scripts/compare_peers.py` as the `lib` peer, beside onnx's in-process inference,
//! and by `scripts/bench_capi.py` beside examples/c/timing.c, the same calls through
//! the C API).

// The allocator of the `symdim` executable and of the C API's library, so that the
// figures compare the calls, not allocators.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: timing MODEL [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let report = match args.next().as_deref() {
        None => false,
        Some("report") => true,
        Some(_) => {
            eprintln!("usage: timing MODEL [RUNS] [report]");
            std::process::exit(2);
        }
    };
    let facts = symdim::Facts::new();
    let mut bytes = 0;
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
        let mut json = Vec::new();
        if report {
            if let Err(e) = shapes.write_report(symdim::report::Format::Json, &mut json) {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
        let elapsed = start.elapsed();
        bytes += json.len();
        std::hint::black_box(&shapes);
        println!("{:.9}", elapsed.as_secs_f64());
    }
    // What the runs made, so that the work cannot be skipped.
    eprintln!("report bytes: {bytes}");
}
