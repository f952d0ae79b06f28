//! Fills: a tensor whose every element is one value (`ConstantOfShape` over a
//! symbolic shape), read by NonZero through Cast, Equal, Sub, Where, Expand and
//! Reshape, and reduced by ReduceSum, ReduceProd and ReduceMax, against
//! onnxruntime's runtime shapes
//! (`tests/fixtures/fill/make_fill_models.py` writes the model and the shapes).

use std::path::Path;
use symdim::algebra::Rat;
use symdim::Facts;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fill")
        .join(name)
}

/// Every output dim symdim gives as a formula of `B` and `S` equals onnxruntime's
/// at each binding; the counts of a padded fill and of a float sum are the data's
/// (fresh symbols), never a formula.
#[test]
fn nonzero_of_fills_matches_onnxruntime() {
    let model = symdim::load(&fixture("fill.onnx")).unwrap();
    let shapes = symdim::infer(&model, &Facts::default());
    let ctx = shapes.context();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("fill_ort.json")).unwrap()).unwrap();
    let fresh = ["nz_pad", "nz_fadd", "nz_rmean"];
    let mut checked = 0;
    for run in doc["runs"].as_array().unwrap() {
        let bind: Vec<(String, i64)> = run["bind"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
            .collect();
        let env = |s: &str| bind.iter().find(|(k, _)| k == s).map(|(_, v)| Rat::int(*v));
        for (out, want) in run["shapes"].as_object().unwrap() {
            let want: Vec<i64> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            let shape = ctx.get(out).unwrap().shape.clone().unwrap();
            assert_eq!(shape.len(), want.len(), "{out}");
            for (axis, (d, w)) in shape.iter().zip(&want).enumerate() {
                let got = ctx.alg.eval(*d, &env);
                if fresh.contains(&out.as_str()) && axis == 1 {
                    assert_eq!(got, None, "{out}: {}", ctx.alg.render(*d));
                } else {
                    assert_eq!(got, Some(Rat::int(*w)), "{out}[{axis}] at {bind:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 80, "{checked}");
}

/// The formulas themselves, derived by hand from the ONNX spec: NonZero of a
/// tensor of shape `s` is `[rank(s), count]`, the count `prod(s)` for a non-zero
/// fill and 0 for a zero one; a reduction of a fill along axes of `n` elements
/// holds `n*v` (integer sum), `v` (maximum over a non-empty axis) or 1 (product of
/// ones) in every element.
#[test]
fn nonzero_of_fills_by_hand() {
    let model = symdim::load(&fixture("fill.onnx")).unwrap();
    let shapes = symdim::infer(&model, &Facts::default());
    let shape = |n: &str| {
        shapes
            .shape(n)
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    assert_eq!(shape("nz"), "1, B");
    assert_eq!(shape("nzt"), "B, 1");
    assert_eq!(shape("idx"), "B");
    assert_eq!(shape("nz_zero"), "2, 0");
    assert_eq!(shape("nz_cast1"), "2, B*S");
    assert_eq!(shape("nz_cast0"), "2, 0");
    assert_eq!(shape("nz_eq"), "2, B*S");
    assert_eq!(shape("nz_sub"), "2, 0");
    assert_eq!(shape("nz_where"), "2, 0");
    assert_eq!(shape("nz_expand"), "2, B*S");
    assert_eq!(shape("nz_reshape"), "1, B*S");
    assert_eq!(shape("nz_rsum"), "1, B");
    assert_eq!(shape("nz_rzero"), "1, 0");
    assert_eq!(shape("nz_rprod"), "2, S");
    assert_eq!(shape("nz_rmax"), "1, B");
    assert_eq!(shape("cs_sum"), "B*S");
    let ctx = shapes.context();
    let rsum = ctx.get("rsum").unwrap();
    assert_eq!(rsum.fill.map(|d| ctx.alg.render(d)), Some("S".to_string()));
    assert_eq!(shape("rsum"), "B");
}
