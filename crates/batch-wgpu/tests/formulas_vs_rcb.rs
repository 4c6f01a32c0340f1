//! The point formulas in the composed EC shader against the one description of the point
//! formulas, `batch_core::rcb`. The shader's `pt_add`, `pt_add_affine` and `pt_dbl` are
//! generated from the macros (`ecc/formulas.rs`); this test does not trust the generator: it
//! reads the three functions back out of the shader text every curve and product path gets
//! (`shaders::ec_source`), evaluates their statements over the hash-consed expression field
//! [`symbolic::Exprs`], and requires the very same `(X3, Y3, Z3)` nodes as [`symbolic::add`],
//! [`symbolic::add_mixed`] and [`symbolic::double`]. Plain `cargo test`, no GPU.
//!
//! A function may contain only `let vN = fe_mul|fe_sqr|fe_add|fe_sub(…);` lines and one
//! `return Pt(…);`: anything else, an unknown name, a redefined value or a missing function
//! fails. Mutation checks show the comparison can fail: any one operation changed to another
//! kind, or any subtraction with its operands swapped, changes the result.

use std::collections::HashMap;

use batch_core::rcb::symbolic::{self, Exprs, Sym};
use batch_core::Curve;
use batch_wgpu::shaders::{ec_source, Arith};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Mul,
    Sqr,
    Add,
    Sub,
}

const KINDS: [(&str, Kind); 4] = [
    ("fe_mul", Kind::Mul),
    ("fe_sqr", Kind::Sqr),
    ("fe_add", Kind::Add),
    ("fe_sub", Kind::Sub),
];

/// One statement: `let dst = kind(args);`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Op {
    dst: String,
    kind: Kind,
    args: Vec<String>,
}

/// A generated function: its parameters' names for the inputs, its statements, its result.
#[derive(Clone, Debug)]
struct Func {
    ops: Vec<Op>,
    ret: [String; 3],
}

/// `(function, header, inputs in symbolic::INPUTS order (X1 Y1 Z1 X2 Y2 Z2 b), reference)`.
type Case = (
    &'static str,
    &'static str,
    [Option<&'static str>; 7],
    fn(&Exprs) -> (Sym, Sym, Sym),
);

const B: Option<&str> = Some("CURVE_B");
const CASES: [Case; 3] = [
    (
        "pt_add",
        "fn pt_add(p1: Pt, p2: Pt) -> Pt {",
        [
            Some("p1.x"),
            Some("p1.y"),
            Some("p1.z"),
            Some("p2.x"),
            Some("p2.y"),
            Some("p2.z"),
            B,
        ],
        symbolic::add,
    ),
    (
        "pt_add_affine",
        "fn pt_add_affine(p1: Pt, x2: Fe, y2: Fe) -> Pt {",
        [
            Some("p1.x"),
            Some("p1.y"),
            Some("p1.z"),
            Some("x2"),
            Some("y2"),
            None,
            B,
        ],
        symbolic::add_mixed,
    ),
    (
        "pt_dbl",
        "fn pt_dbl(p1: Pt) -> Pt {",
        [
            Some("p1.x"),
            Some("p1.y"),
            Some("p1.z"),
            None,
            None,
            None,
            B,
        ],
        symbolic::double,
    ),
];

fn parse_op(line: &str) -> Result<Op, String> {
    let rest = line
        .strip_prefix("let ")
        .and_then(|r| r.strip_suffix(");"))
        .ok_or_else(|| format!("{line:?} is not `let v = fe_…(…);`"))?;
    let (dst, call) = rest
        .split_once(" = ")
        .ok_or_else(|| format!("{line:?}: no ` = `"))?;
    let (name, args) = call
        .split_once('(')
        .ok_or_else(|| format!("{line:?}: no call"))?;
    let kind = KINDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
        .ok_or_else(|| format!("{line:?}: {name:?} is not a field operation"))?;
    let args: Vec<String> = args.split(", ").map(str::to_owned).collect();
    let want = if kind == Kind::Sqr { 1 } else { 2 };
    if args.len() != want {
        return Err(format!("{line:?}: {} arguments", args.len()));
    }
    Ok(Op {
        dst: dst.to_owned(),
        kind,
        args,
    })
}

/// The function starting with `header` in `src`, up to its closing `}`.
fn parse_func(src: &str, header: &str) -> Result<Func, String> {
    let mut found = src.match_indices(header);
    let (at, _) = found
        .next()
        .ok_or_else(|| format!("no `{header}` in the shader"))?;
    if found.next().is_some() {
        return Err(format!("`{header}` twice"));
    }
    let mut ops = Vec::new();
    for line in src[at + header.len()..].lines().skip(1) {
        let line = line.trim();
        if let Some(r) = line
            .strip_prefix("return Pt(")
            .and_then(|r| r.strip_suffix(");"))
        {
            let parts: Vec<String> = r.split(", ").map(str::to_owned).collect();
            let ret: [String; 3] = parts
                .try_into()
                .map_err(|p| format!("{header}: returns {p:?}"))?;
            return Ok(Func { ops, ret });
        }
        ops.push(parse_op(line).map_err(|e| format!("{header}: {e}"))?);
    }
    Err(format!("{header}: no `return Pt(…);`"))
}

/// Runs `f` over symbols, the names in `inputs` bound to the leaves.
fn run(e: &Exprs, f: &Func, inputs: &[Option<&str>; 7]) -> Result<(Sym, Sym, Sym), String> {
    let mut env: HashMap<String, Sym> = HashMap::new();
    for (i, name) in inputs.iter().enumerate() {
        if let Some(n) = name {
            env.insert((*n).to_owned(), e.input(i as u32));
        }
    }
    let read = |env: &HashMap<String, Sym>, v: &str| {
        env.get(v)
            .copied()
            .ok_or_else(|| format!("{v:?} read before it is defined"))
    };
    for op in &f.ops {
        let a = read(&env, &op.args[0])?;
        let v = match op.kind {
            Kind::Sqr => e.square(&a),
            Kind::Mul => e.mul(&a, &read(&env, &op.args[1])?),
            Kind::Add => e.add(&a, &read(&env, &op.args[1])?),
            Kind::Sub => e.sub(&a, &read(&env, &op.args[1])?),
        };
        if env.insert(op.dst.clone(), v).is_some() {
            return Err(format!("{:?} defined twice", op.dst));
        }
    }
    Ok((
        read(&env, &f.ret[0])?,
        read(&env, &f.ret[1])?,
        read(&env, &f.ret[2])?,
    ))
}

fn sources() -> Vec<(String, String)> {
    Curve::ALL
        .into_iter()
        .flat_map(|c| Arith::BOTH.map(|a| (format!("{c} {a:?}"), ec_source(c, a))))
        .collect()
}

#[test]
fn every_shaders_formulas_are_rcb() {
    for (what, src) in sources() {
        for (name, header, inputs, reference) in CASES {
            let f = parse_func(&src, header).unwrap_or_else(|m| panic!("{what}: {m}"));
            let e = Exprs::default();
            let got = run(&e, &f, &inputs).unwrap_or_else(|m| panic!("{what} {name}: {m}"));
            assert_eq!(got, reference(&e), "{what}: {name} is not rcb's");
            // straight-line: exactly the paper's operation count (products incl. squarings)
            let products = f
                .ops
                .iter()
                .filter(|o| matches!(o.kind, Kind::Mul | Kind::Sqr))
                .count();
            let (m, _) = e.cost(&[got.0, got.1, got.2]);
            assert_eq!(products, m, "{what} {name}: dead or repeated products");
        }
    }
}

/// The comparison is not vacuous: any one operation with another kind (squarings become a
/// product of the operand with itself, and back where both operands agree), and any
/// subtraction with its operands swapped, gives a different result.
#[test]
fn every_mutated_operation_is_caught() {
    let src = ec_source(Curve::P256, Arith::Int64);
    for (name, header, inputs, reference) in CASES {
        let f = parse_func(&src, header).unwrap();
        let e = Exprs::default();
        let want = Ok(reference(&e));
        let mut mutants = 0;
        for i in 0..f.ops.len() {
            let op = &f.ops[i];
            let two = if op.kind == Kind::Sqr {
                vec![op.args[0].clone(), op.args[0].clone()]
            } else {
                op.args.clone()
            };
            let mut variants: Vec<Op> = [Kind::Mul, Kind::Add, Kind::Sub]
                .into_iter()
                .filter(|&k| k != op.kind && !(op.kind == Kind::Sqr && k == Kind::Mul))
                .map(|kind| Op {
                    kind,
                    args: two.clone(),
                    ..op.clone()
                })
                .collect();
            if op.kind == Kind::Sub && op.args[0] != op.args[1] {
                variants.push(Op {
                    args: vec![op.args[1].clone(), op.args[0].clone()],
                    ..op.clone()
                });
            }
            for v in variants {
                let mut m = f.clone();
                m.ops[i] = v.clone();
                assert_ne!(
                    run(&e, &m, &inputs),
                    want,
                    "{name}: {v:?} still matches rcb"
                );
                mutants += 1;
            }
        }
        assert!(mutants > 2 * f.ops.len(), "{name}: only {mutants} mutants");
    }
}

#[test]
fn malformed_functions_are_rejected() {
    for line in [
        "let v1 = fe_div(p1.x, p2.x);",
        "let v1 = fe_mul(p1.x);",
        "let v1 = fe_sqr(p1.x, p1.y);",
        "var v1 = fe_mul(p1.x, p2.x);",
        "let v1 = fe_mul(p1.x, p2.x)",
        "v1 = fe_add(p1.x, p2.x);",
    ] {
        assert!(parse_op(line).is_err(), "{line:?} parsed");
    }
    let f = |body: &str| format!("fn f(p1: Pt) -> Pt {{\n{body}\n}}\n");
    // pt_dbl's inputs: the first point and b
    let inputs = CASES[2].2;
    let ok = parse_func(
        &f("    let v1 = fe_add(p1.x, p1.y);\n    return Pt(v1, p1.y, CURVE_B);"),
        "fn f(p1: Pt) -> Pt {",
    )
    .unwrap();
    assert!(run(&Exprs::default(), &ok, &inputs).is_ok());
    for body in [
        "    let v1 = fe_add(p1.x, p1.y);",
        "    let v1 = fe_add(p1.x, p1.y);\n    p1.x = v1;\n    return Pt(v1, v1, v1);",
        "    return Pt(v1, v1);",
    ] {
        assert!(
            parse_func(&f(body), "fn f(p1: Pt) -> Pt {").is_err(),
            "{body}"
        );
    }
    for body in [
        "    let v1 = fe_add(p2.x, p1.y);\n    return Pt(v1, v1, v1);",
        "    let v1 = fe_add(p1.x, p1.y);\n    let v1 = fe_add(v1, v1);\n    return Pt(v1, v1, v1);",
        "    return Pt(v9, p1.y, p1.z);",
    ] {
        let g = parse_func(&f(body), "fn f(p1: Pt) -> Pt {").unwrap();
        assert!(run(&Exprs::default(), &g, &inputs).is_err(), "{body}");
    }
}

/// End to end from the text: the first `fe_add` of each function rewritten as `fe_sub` in a
/// copy of the shader still parses, and no longer matches rcb.
#[test]
fn an_edited_shader_text_is_caught() {
    let src = ec_source(Curve::P384, Arith::Portable);
    for (name, header, inputs, reference) in CASES {
        let start = src.find(header).unwrap();
        let at = start + src[start..].find("fe_add(").unwrap();
        let edited = format!("{}fe_sub{}", &src[..at], &src[at + 6..]);
        let f = parse_func(&edited, header).unwrap_or_else(|e| panic!("{e}"));
        let e = Exprs::default();
        assert_ne!(run(&e, &f, &inputs), Ok(reference(&e)), "{name}");
    }
}
