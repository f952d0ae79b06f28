//! What a caller tells inference beyond the model: symbol values, facts about the
//! symbols, the algebra's configuration, and input dims to override.
//!
//! ```
//! use symdim::Facts;
//! let facts = Facts::new()
//!     .input_dim("input_ids", 0, "batch") // make axis 0 of `input_ids` the symbol `batch`
//!     .assume("batch <= 64")
//!     .bind("sequence", 128);
//! assert_eq!(facts.binds, [("sequence".to_string(), 128)]);
//! ```

use crate::algebra::Config;
use crate::graph::DeclDim;

/// Facts for one inference. The default holds none: every input dim is as the
/// model declares it, and input symbols are at least 1.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// `NAME=INT` bindings, applied before inference (`--bind`).
    pub binds: Vec<(String, i64)>,
    /// Facts in the expression grammar, such as `N >= 2` or `S % 8 == 0` (`--assume`).
    pub assumes: Vec<String>,
    /// The algebra's configuration: the lower bound of input symbols and other dims,
    /// and the saturation limits.
    pub config: Config,
    /// Input dims that replace what the model declares, in order.
    pub inputs: Vec<InputDim>,
}

/// One graph input dim set by the caller instead of the model's declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputDim {
    /// The graph input's name.
    pub tensor: String,
    /// The axis.
    pub axis: usize,
    /// The dim: a constant, or a symbol name or expression of the grammar (as an
    /// ONNX `dim_param` is read).
    pub dim: DeclDim,
}

impl Facts {
    /// No facts.
    pub fn new() -> Facts {
        Facts::default()
    }

    /// Bind a symbol to a value.
    pub fn bind(mut self, name: &str, value: i64) -> Facts {
        self.binds.push((name.to_string(), value));
        self
    }

    /// Assume a fact, such as `N >= 2` or `S % 8 == 0`.
    pub fn assume(mut self, fact: &str) -> Facts {
        self.assumes.push(fact.to_string());
        self
    }

    /// Set axis `axis` of graph input `tensor` to `dim`: an integer, a symbol name or
    /// an expression of the grammar (`batch`, `2*S`), without changing the model.
    pub fn input_dim(mut self, tensor: &str, axis: usize, dim: &str) -> Facts {
        let dim = match dim.trim().parse::<i64>() {
            Ok(v) if v >= 0 => DeclDim::Value(v),
            _ => DeclDim::Param(dim.to_string()),
        };
        self.inputs.push(InputDim {
            tensor: tensor.to_string(),
            axis,
            dim,
        });
        self
    }

    /// Use another algebra configuration (for example input symbols that may be 0:
    /// `input_lower` 0).
    pub fn with_config(mut self, config: Config) -> Facts {
        self.config = config;
        self
    }
}
