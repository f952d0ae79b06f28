//! The dim algebra: symbolic dimensions in an e-graph.
