//! Readers of the values the JSON fixtures hold: hex-encoded model bytes, integer
//! lists and a run's binding of symbols.

use serde_json::Value;
use std::collections::HashMap;

/// The bytes a hex string spells (a fixture's serialized model).
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A JSON file's value.
pub fn read_json(p: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A JSON array of integers.
pub fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect()
}

/// A JSON object of symbol values (a run's `bind`).
pub fn binding(v: &Value) -> HashMap<String, i64> {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
        .collect()
}
