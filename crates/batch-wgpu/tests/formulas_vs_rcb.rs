//! `shaders/point.wgsl`'s step programs against the one description of the point formulas,
//! `batch_core::rcb`: both run over the hash-consed expression field [`symbolic::Exprs`], and
//! `ADD_PROGRAM` / `DBL_PROGRAM` must give the very same `(X3, Y3, Z3)` nodes as
//! [`symbolic::add`] / [`symbolic::double`]. Plain `cargo test`, no GPU.
//!
//! Steps are read the way `point_run` runs them: each entry's value is computed from the
//! shader's own constants (`K_*`, `D`, `A`, `R_*`), decoded with `point_run`'s shifts and
//! `switch`, and its registers placed by `reg_slot`'s ranges; the result must agree with what
//! the names on the line say. Any line in a program array that does not parse fails, as does
//! reading a register no step has written (for doubling: the second point, which `point_run`
//! ignores) or writing an input (`point_run` may get `p1 == p2`, and `b` is shared). Mutation
//! checks show the comparison can fail: flipping the kind of any one step, or swapping the
//! operands of any subtraction, changes the result.

use std::collections::HashMap;

use batch_core::rcb::symbolic::{self, Exprs, Sym};

const POINT_WGSL: &str = include_str!("../../../shaders/point.wgsl");

/// The programs this test knows how to check; any other `*_PROGRAM` in the shader (a mixed
/// addition, say) fails [`the_shader_has_exactly_these_programs`] until it is covered here.
const PROGRAMS: [&str; 2] = ["ADD_PROGRAM", "DBL_PROGRAM"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Mul,
    Add,
    Sub,
}

/// Where a register lives, as `reg_slot` places it: a coordinate of the first or second
/// input point, of the output (slots `S_O …`), a temporary (`S_TMP …`), or `b` (`S_B`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Reg {
    P1(usize),
    P2(usize),
    Out(usize),
    Tmp(usize),
    B,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    kind: Kind,
    dst: Reg,
    a: Reg,
    b: Reg,
}

/// Register names in the step text and the places those names promise.
const REGS: [(&str, Reg); 15] = [
    ("R_X1", Reg::P1(0)),
    ("R_Y1", Reg::P1(1)),
    ("R_Z1", Reg::P1(2)),
    ("R_X2", Reg::P2(0)),
    ("R_Y2", Reg::P2(1)),
    ("R_Z2", Reg::P2(2)),
    ("R_X3", Reg::Out(0)),
    ("R_Y3", Reg::Out(1)),
    ("R_Z3", Reg::Out(2)),
    ("R_T0", Reg::Tmp(0)),
    ("R_T1", Reg::Tmp(1)),
    ("R_T2", Reg::Tmp(2)),
    ("R_T3", Reg::Tmp(3)),
    ("R_T4", Reg::Tmp(4)),
    ("R_B", Reg::B),
];

const KINDS: [(&str, Kind); 3] = [
    ("K_MUL", Kind::Mul),
    ("K_ADD", Kind::Add),
    ("K_SUB", Kind::Sub),
];

/// The value of `const NAME: u32 = LITERALu;` in the shader (decimal or `0x` hex).
fn konst(name: &str) -> u32 {
    let decl = format!("const {name}: u32 = ");
    let mut found = POINT_WGSL
        .lines()
        .filter_map(|l| l.trim().strip_prefix(decl.as_str()));
    let rest = found
        .next()
        .unwrap_or_else(|| panic!("point.wgsl: no `{decl}…;`"));
    assert!(found.next().is_none(), "point.wgsl: `{decl}` twice");
    let lit = rest.split(';').next().unwrap().trim();
    let digits = lit
        .strip_suffix('u')
        .unwrap_or_else(|| panic!("point.wgsl: {name} = {lit:?}, expected a u32 literal"));
    match digits.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => digits.parse(),
    }
    .unwrap_or_else(|e| panic!("point.wgsl: {name} = {lit:?}: {e}"))
}

/// `reg_slot`'s placement of register number `reg`.
fn place(reg: u32) -> Reg {
    if reg < konst("R_X3") {
        if reg < konst("R_X2") {
            Reg::P1(reg as usize) // p1 + reg
        } else {
            Reg::P2((reg - konst("R_X2")) as usize)
        }
    } else if reg < konst("R_T0") {
        Reg::Out((reg - konst("R_X3")) as usize)
    } else if reg < konst("R_B") {
        Reg::Tmp((reg - konst("R_T0")) as usize)
    } else {
        Reg::B
    }
}

/// `point_run`'s decoding of one step word.
fn decode(word: u32) -> Step {
    Step {
        kind: match word >> 24 {
            0 => Kind::Mul,
            1 => Kind::Add,
            _ => Kind::Sub,
        },
        dst: place((word >> 16) & 0xff),
        a: place((word >> 8) & 0xff),
        b: place(word & 0xff),
    }
}

fn reg_named(name: &str) -> Result<Reg, String> {
    REGS.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, r)| *r)
        .ok_or_else(|| format!("{name:?} is not a register"))
}

/// `MULTIPLIER * R_…`.
fn scaled_reg(term: &str, multiplier: &str) -> Result<(&'static str, Reg), String> {
    let (m, r) = term
        .split_once('*')
        .ok_or_else(|| format!("{term:?} is not `{multiplier} * R_…`"))?;
    if m.trim() != multiplier {
        return Err(format!("{term:?} is not `{multiplier} * R_…`"));
    }
    let r = r.trim();
    let (name, reg) = REGS
        .iter()
        .find(|(n, _)| *n == r)
        .ok_or_else(|| format!("{r:?} is not a register"))?;
    Ok((name, *reg))
}

/// One entry, `K_… + D * R_… + A * R_… + R_…` (no comma, no comment). The names give one
/// reading, the shader's constants and `point_run`'s decoding another; they must agree.
fn parse_step(code: &str) -> Result<Step, String> {
    let terms: Vec<&str> = code.split('+').map(str::trim).collect();
    let [kind, dst, a, b] = terms[..] else {
        return Err(format!(
            "{} terms, expected `K_… + D * R_… + A * R_… + R_…`",
            terms.len()
        ));
    };
    let (kind_name, kind) = KINDS
        .iter()
        .find(|(n, _)| *n == kind)
        .ok_or_else(|| format!("{kind:?} is not K_MUL, K_ADD or K_SUB"))?;
    let (dst_name, dst) = scaled_reg(dst, "D")?;
    let (a_name, a) = scaled_reg(a, "A")?;
    let b_name = b;
    let b = reg_named(b)?;
    let named = Step {
        kind: *kind,
        dst,
        a,
        b,
    };
    let word = [
        konst(kind_name),
        konst("D")
            .checked_mul(konst(dst_name))
            .ok_or("D * dst overflows")?,
        konst("A")
            .checked_mul(konst(a_name))
            .ok_or("A * a overflows")?,
        konst(b_name),
    ]
    .into_iter()
    .try_fold(0u32, u32::checked_add)
    .ok_or("the step word overflows u32")?;
    let decoded = decode(word);
    if decoded != named {
        return Err(format!(
            "the names say {named:?}, point_run decodes {word:#x} as {decoded:?}"
        ));
    }
    Ok(named)
}

/// The steps of `var<private> NAME: array<u32, N> = array<u32, N>( … );` in `src`, one entry
/// per line, each line's comment starting with its step number.
fn parse_program(src: &str, name: &str) -> Result<Vec<Step>, String> {
    let header = format!("var<private> {name}: array<u32, ");
    let starts: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(&header))
        .map(|(i, _)| i)
        .collect();
    let [start] = starts[..] else {
        return Err(format!(
            "{name}: {} declarations, expected one",
            starts.len()
        ));
    };
    let mut lines = src.lines().enumerate().skip(start);
    let (_, first) = lines.next().unwrap();
    let rest = &first.trim_start()[header.len()..];
    let (len, tail) = rest
        .split_once('>')
        .ok_or_else(|| format!("{name}: cannot read the array type in {first:?}"))?;
    let len: usize = len
        .trim()
        .parse()
        .map_err(|e| format!("{name}: array length {len:?}: {e}"))?;
    if tail.trim() != format!("= array<u32, {len}>(") {
        return Err(format!(
            "{name}: expected `= array<u32, {len}>(` after the type in {first:?}"
        ));
    }
    let mut steps = Vec::new();
    for (i, line) in lines {
        let at = || format!("point.wgsl:{}: {name} step {}", i + 1, steps.len() + 1);
        let (code, comment) = match line.split_once("//") {
            Some((c, m)) => (c.trim(), m.trim()),
            None => (line.trim(), ""),
        };
        if code == ");" {
            if steps.len() != len {
                return Err(format!(
                    "{name}: {} steps in an array<u32, {len}>",
                    steps.len()
                ));
            }
            return Ok(steps);
        }
        if code.is_empty() {
            continue;
        }
        let code = code.strip_suffix(',').unwrap_or(code).trim();
        let step = parse_step(code).map_err(|e| format!("{}: {e}\n  in {line:?}", at()))?;
        let number = comment.split_whitespace().next().map(str::parse::<usize>);
        if number != Some(Ok(steps.len() + 1)) {
            return Err(format!(
                "{}: the comment should start with the step number {}\n  in {line:?}",
                at(),
                steps.len() + 1
            ));
        }
        steps.push(step);
    }
    Err(format!("{name}: no `);` closes the array"))
}

fn program(name: &str) -> Vec<Step> {
    parse_program(POINT_WGSL, name).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `steps` with `X1 Y1 Z1` (and `X2 Y2 Z2` when `second_point`) and `b` as the
/// [`symbolic::INPUTS`] leaves; the output registers' final values.
fn run(e: &Exprs, steps: &[Step], second_point: bool) -> Result<(Sym, Sym, Sym), String> {
    let mut regs = HashMap::new();
    for i in 0..3 {
        regs.insert(Reg::P1(i), e.input(i as u32));
        if second_point {
            regs.insert(Reg::P2(i), e.input(3 + i as u32));
        }
    }
    regs.insert(Reg::B, e.input(6));
    for (i, s) in steps.iter().enumerate() {
        let get = |r: Reg| {
            regs.get(&r)
                .copied()
                .ok_or_else(|| format!("step {}: reads {r:?}, which holds no value", i + 1))
        };
        let (a, b) = (get(s.a)?, get(s.b)?);
        if matches!(s.dst, Reg::P1(_) | Reg::P2(_) | Reg::B) {
            return Err(format!("step {}: writes the input {:?}", i + 1, s.dst));
        }
        let v = match s.kind {
            Kind::Mul => e.mul(&a, &b),
            Kind::Add => e.add(&a, &b),
            Kind::Sub => e.sub(&a, &b),
        };
        regs.insert(s.dst, v);
    }
    let out = |i| {
        regs.get(&Reg::Out(i))
            .copied()
            .ok_or_else(|| format!("no step writes Out({i})"))
    };
    Ok((out(0)?, out(1)?, out(2)?))
}

/// `(program, step-count constant, reads the second point, the rcb reference)`.
type Case = (
    &'static str,
    &'static str,
    bool,
    fn(&Exprs) -> (Sym, Sym, Sym),
);

const CASES: [Case; 2] = [
    ("ADD_PROGRAM", "ADD_STEPS", true, symbolic::add),
    ("DBL_PROGRAM", "DBL_STEPS", false, symbolic::double),
];

#[test]
fn the_shader_has_exactly_these_programs() {
    let found: Vec<&str> = POINT_WGSL
        .lines()
        .filter_map(|l| l.trim().strip_prefix("var<private> "))
        .filter_map(|l| l.split_once(':'))
        .map(|(name, _)| name.trim())
        .filter(|name| name.ends_with("_PROGRAM"))
        .collect();
    assert_eq!(found, PROGRAMS, "point.wgsl's step programs changed");
}

#[test]
fn step_counts_match_the_constants() {
    for (name, steps, _, _) in CASES {
        assert_eq!(
            program(name).len(),
            konst(steps) as usize,
            "{name} vs {steps}"
        );
    }
}

#[test]
fn add_program_is_rcb_add() {
    let e = Exprs::default();
    let wgsl = run(&e, &program("ADD_PROGRAM"), true).unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(wgsl, symbolic::add(&e));
}

#[test]
fn dbl_program_is_rcb_double() {
    let e = Exprs::default();
    let wgsl = run(&e, &program("DBL_PROGRAM"), false).unwrap_or_else(|m| panic!("{m}"));
    assert_eq!(wgsl, symbolic::double(&e));
}

/// The comparison is not vacuous: any one step with another kind, and any subtraction with
/// its operands swapped, gives a different result (so no step is dead either).
#[test]
fn every_mutated_step_is_caught() {
    for (name, _, second_point, reference) in CASES {
        let steps = program(name);
        let e = Exprs::default();
        let want = Ok(reference(&e));
        assert_eq!(run(&e, &steps, second_point), want, "{name} unmutated");
        let mut mutants = 0;
        for i in 0..steps.len() {
            let s = steps[i];
            let mut variants: Vec<Step> = [Kind::Mul, Kind::Add, Kind::Sub]
                .into_iter()
                .filter(|&k| k != s.kind)
                .map(|kind| Step { kind, ..s })
                .collect();
            if s.kind == Kind::Sub && s.a != s.b {
                variants.push(Step {
                    a: s.b,
                    b: s.a,
                    ..s
                });
            }
            for v in variants {
                let mut mutant = steps.clone();
                mutant[i] = v;
                assert_ne!(
                    run(&e, &mutant, second_point),
                    want,
                    "{name} step {} changed to {v:?} still matches rcb",
                    i + 1
                );
                mutants += 1;
            }
        }
        assert!(mutants > 2 * steps.len(), "{name}: only {mutants} mutants");
    }
}

/// A changed operand is caught, and doubling may not read the second point.
#[test]
fn changed_operands_are_caught() {
    let e = Exprs::default();
    let mut add = program("ADD_PROGRAM");
    assert_eq!((add[0].a, add[0].b), (Reg::P1(0), Reg::P2(0))); // 1 t0 = X1·X2
    add[0].b = Reg::P2(1);
    assert_ne!(run(&e, &add, true), Ok(symbolic::add(&e)));

    let mut dbl = program("DBL_PROGRAM");
    dbl[0].b = Reg::P2(0);
    let err = run(&e, &dbl, false).expect_err("doubling read the second point");
    assert!(err.contains("P2(0)"), "{err}");
}

#[test]
fn malformed_steps_are_rejected() {
    let bad = [
        "K_MUL + D * R_T0 + A * R_X1",
        "K_MUL + D * R_T0 + A * R_X1 + R_X2 + R_Y2",
        "K_DIV + D * R_T0 + A * R_X1 + R_X2",
        "K_MUL + A * R_T0 + D * R_X1 + R_X2",
        "K_MUL + D * R_T5 + A * R_X1 + R_X2",
        "K_MUL + D * R_T0 + A * R_X1 + 3u",
        "K_MUL + D * R_T0 + A * R_X1 * R_X2",
        "0x0090003u",
    ];
    for code in bad {
        assert!(parse_step(code).is_err(), "{code:?} parsed");
    }
    let good = "    K_MUL + D * R_T0 + A * R_X1 + R_X2,  //  1 t0 = X1·X2";
    let wrap = |body: &str| {
        format!("var<private> P_PROGRAM: array<u32, 2> = array<u32, 2>(\n{good}\n{body}\n);\n")
    };
    let ok = wrap("    K_ADD + D * R_T1 + A * R_T0 + R_Y1,  //  2 t1 = t0 + Y1");
    assert_eq!(parse_program(&ok, "P_PROGRAM").map(|s| s.len()), Ok(2));
    for body in [
        "    K_ADD + D * R_T1 + A * R_T0 + R_Y1 + garbage,  //  2",
        "    K_ADD + D * R_T1 + A * R_T0 + R_Y1,  //  3 wrong step number",
        "    K_ADD + D * R_T1 + A * R_T0 + R_Y1,",
        "    // 2 only a comment",
    ] {
        let err = parse_program(&wrap(body), "P_PROGRAM").expect_err(body);
        assert!(err.contains("P_PROGRAM"), "{err}");
    }
    let unclosed = format!("var<private> P_PROGRAM: array<u32, 1> = array<u32, 1>(\n{good}\n");
    assert!(parse_program(&unclosed, "P_PROGRAM").is_err());
}

/// End to end from the text: the first `K_ADD` entry of each program rewritten as `K_SUB`
/// in a copy of the shader still parses, and no longer matches rcb.
#[test]
fn an_edited_shader_text_is_caught() {
    for (name, _, second_point, reference) in CASES {
        let header = format!("var<private> {name}:");
        let start = POINT_WGSL.find(&header).unwrap();
        let at = start + POINT_WGSL[start..].find("K_ADD +").unwrap();
        let edited = format!("{}K_SUB{}", &POINT_WGSL[..at], &POINT_WGSL[at + 5..]);
        let steps = parse_program(&edited, name).unwrap_or_else(|e| panic!("{e}"));
        let e = Exprs::default();
        assert_ne!(run(&e, &steps, second_point), Ok(reference(&e)), "{name}");
    }
}
