//! Load a model, infer it with a symbolic batch, read dims as expressions, and bind
//! a symbol without losing the symbolic answer.
//!
//! `cargo run --example shapes [MODEL]` (default: the bundled `examples/attention.onnx`,
//! an attention block whose input `x` is `[batch, sequence, 64]`).

use symdim::{DimExpr, Facts, SymbolValues};

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/examples/attention.onnx").into());
    let model = match symdim::load(std::path::Path::new(&path)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let Some(input) = model.graph.inputs.first() else {
        eprintln!("{path}: the model has no inputs");
        std::process::exit(2);
    };

    // Axis 0 of the first input is the symbol `N`, whatever the file declares.
    let facts = Facts::new().input_dim(&input.name, 0, "N");
    let shapes = symdim::infer(&model, &facts);
    for (name, t) in shapes.tensors() {
        let dims = match &t.dims {
            Some(d) => d
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            None => "unknown rank".to_string(),
        };
        println!("{name}: [{dims}]");
    }

    // A dim is an owned expression: print it, compute with it, evaluate it.
    for out in shapes.outputs() {
        let Some(dims) = shapes.shape(&out) else {
            continue;
        };
        let elements: DimExpr = dims.iter().product();
        println!("{out} has {elements} elements");
        let at = SymbolValues::new().with("N", 4).with("sequence", 10);
        match elements.eval(&at) {
            Ok(v) => println!("  at N = 4, sequence = 10: {v}"),
            Err(e) => println!("  at N = 4, sequence = 10: {e}"),
        }
    }

    // Binding N infers again; `shapes` keeps its symbolic answer. A name the model
    // does not have is refused.
    let four = match shapes.concretize(&[("N", 4)]) {
        Ok(four) => four,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Some(out) = shapes.outputs().first() {
        let show = |d: Option<Vec<DimExpr>>| {
            d.map(|d| {
                d.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
        };
        println!("{out} with N = 4: [{}]", show(four.shape(out)));
        println!("{out} still:      [{}]", show(shapes.shape(out)));
    }
}
