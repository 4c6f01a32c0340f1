//! WGSL composition: the shared pieces under the workspace's `shaders/`, embedded at compile
//! time and concatenated in one ordered table, after a prelude of per-variant constants.
//!
//! A variant is a limb count ([`LIMB_VARIANTS`]): numbers are `LIMBS` little-endian `u32`
//! limbs, so a variant holds moduli up to `32·LIMBS` bits. Every composed shader is parsed and
//! validated by naga in plain `cargo test` (no GPU needed).

/// 32-bit limb counts with a compiled pipeline; a modulus runs on the smallest that holds it.
/// CRT halves of RSA-2048 … 15360 (1024, 1536, 2048, 3840, 7680 bits), full moduli up to
/// 15360 bits for `_vartime` verification, and 512 bits for small moduli.
pub const LIMB_VARIANTS: [usize; 10] = [16, 32, 48, 64, 96, 120, 128, 240, 256, 480];

/// Fixed window of the constant-time exponentiation (divides 32, so a window never straddles
/// two exponent words).
pub const WINDOW: usize = 4;

/// Entries of the window table.
pub const TABLE: usize = 1 << WINDOW;

/// Invocations per workgroup.
pub const WORKGROUP_SIZE: usize = 64;

use batch_core::Curve;

/// How limb products are computed: the portable path (16×16-bit partial products, any
/// adapter) or u64 arithmetic (adapters with `SHADER_INT64`). Both give the same results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arith {
    Portable,
    Int64,
}

impl Arith {
    pub const BOTH: [Arith; 2] = [Arith::Portable, Arith::Int64];

    /// The first piece of every shader: `mul_wide` and `mac`.
    fn products(self) -> (&'static str, &'static str) {
        match self {
            Arith::Portable => (
                "mul_portable.wgsl",
                include_str!("../../../shaders/mul_portable.wgsl"),
            ),
            Arith::Int64 => (
                "mul_int64.wgsl",
                include_str!("../../../shaders/mul_int64.wgsl"),
            ),
        }
    }

    /// The limb words of the register modexp kernels (`Word`, `mac_w`, …): u64-held limbs
    /// with SHADER_INT64, u32 limbs on the portable path.
    fn register_words(self) -> (&'static str, &'static str) {
        match self {
            Arith::Portable => (
                "regs_portable.wgsl",
                include_str!("../../../shaders/regs_portable.wgsl"),
            ),
            Arith::Int64 => (
                "regs_int64.wgsl",
                include_str!("../../../shaders/regs_int64.wgsl"),
            ),
        }
    }

    /// How descriptions name it.
    pub fn describe(self) -> &'static str {
        match self {
            Arith::Portable => "16×16-bit partial products",
            Arith::Int64 => "u64 products (SHADER_INT64)",
        }
    }
}

/// Concatenates `parts` after the prelude and the product piece, expanding `//#unroll` with
/// `u` copies per loop iteration.
fn compose(
    prelude: String,
    arith: Arith,
    parts: &[(&str, &str)],
    limbs: usize,
    u: usize,
) -> String {
    let mut src = prelude;
    for (name, text) in core::iter::once(arith.products()).chain(parts.iter().copied()) {
        src.push_str("\n// ---- ");
        src.push_str(name);
        src.push_str(" ----\n");
        src.push_str(&unroll(text, limbs, u));
    }
    src
}

/// Largest limb count whose modexp shader keeps its working set in function-scope arrays
/// (`shaders/montgomery_regs.wgsl`, `modexp_regs.wgsl`): RSA CRT halves up to 2048 bits. The
/// larger variants keep their numbers in the `scratch` storage buffer (`montgomery.wgsl`,
/// `modexp.wgsl`).
pub const REGISTER_MAX_LIMBS: usize = 64;

/// Whether the modexp shader for `limbs` is the register one.
pub fn modexp_in_registers(limbs: usize) -> bool {
    limbs <= REGISTER_MAX_LIMBS
}

/// The pieces of the storage modexp shader after the products, in order (later pieces use
/// earlier ones).
const MODEXP_PARTS: [(&str, &str); 4] = [
    ("bigint.wgsl", include_str!("../../../shaders/bigint.wgsl")),
    (
        "montgomery.wgsl",
        include_str!("../../../shaders/montgomery.wgsl"),
    ),
    (
        "modexp_io.wgsl",
        include_str!("../../../shaders/modexp_io.wgsl"),
    ),
    ("modexp.wgsl", include_str!("../../../shaders/modexp.wgsl")),
];

/// The pieces of the register modexp shader after the products: `montgomery.wgsl` only for
/// its scratch addressing (`at`; its `mont_mul` is unused there); the product path's limb
/// words ([`Arith::register_words`]) go after `bigint.wgsl`.
const MODEXP_REGS_PARTS: [(&str, &str); 4] = [
    (
        "montgomery.wgsl",
        include_str!("../../../shaders/montgomery.wgsl"),
    ),
    (
        "montgomery_regs.wgsl",
        include_str!("../../../shaders/montgomery_regs.wgsl"),
    ),
    (
        "modexp_io.wgsl",
        include_str!("../../../shaders/modexp_io.wgsl"),
    ),
    (
        "modexp_regs.wgsl",
        include_str!("../../../shaders/modexp_regs.wgsl"),
    ),
];

/// The prelude of constants for `limbs`.
fn prelude(limbs: usize) -> String {
    format!(
        "// composed by batch-wgpu for {limbs} limbs of 32 bits\n\
         const LIMBS: u32 = {limbs}u;\n\
         const WINDOW: u32 = {WINDOW}u;\n\
         const TABLE: u32 = {TABLE}u;\n\
         const WG: u32 = {WORKGROUP_SIZE}u;\n"
    )
}

/// Entry points of the modexp shader, in dispatch order (see `shaders/modexp.wgsl`).
pub const MODEXP_ENTRY_POINTS: [&str; 5] = [
    "modexp_load",
    "modexp_table",
    "modexp_windows",
    "modexp_bits_vartime",
    "modexp_finish",
];

/// Loop iterations one invocation may run in one dispatch. llvmpipe (the software adapter)
/// ends every loop of an invocation silently once 65,535 iterations have run in all
/// (`LP_MAX_TGSI_LOOP_ITERATIONS`, shared by all loops); the host sizes each dispatch below
/// this, with margin.
pub const LOOP_BUDGET: usize = 60_000;

/// The full modexp shader for `limbs` 32-bit limbs: the register kernels with every limb
/// loop written out up to [`REGISTER_MAX_LIMBS`], the storage kernels with loops unrolled by
/// [`unroll_factor`] above.
pub fn modexp_source(limbs: usize, arith: Arith) -> String {
    let parts: Vec<(&str, &str)> = if modexp_in_registers(limbs) {
        [MODEXP_PARTS[0], arith.register_words()]
            .into_iter()
            .chain(MODEXP_REGS_PARTS)
            .collect()
    } else {
        MODEXP_PARTS.to_vec()
    };
    compose(prelude(limbs), arith, &parts, limbs, modexp_unroll(limbs))
}

/// Copies per iteration of the modexp shader's expanded limb loops.
pub fn modexp_unroll(limbs: usize) -> usize {
    if modexp_in_registers(limbs) {
        limbs
    } else {
        unroll_factor(limbs)
    }
}

/// The pieces of the EC shader after the products, in order; the point formulas generated
/// from `batch_core::rcb` ([`crate::ecc::formulas`]) go between `point.wgsl` and
/// `scalar_mul.wgsl`.
const EC_PARTS: [(&str, &str); 5] = [
    ("bigint.wgsl", include_str!("../../../shaders/bigint.wgsl")),
    ("field.wgsl", include_str!("../../../shaders/field.wgsl")),
    ("point.wgsl", include_str!("../../../shaders/point.wgsl")),
    (
        "scalar_mul.wgsl",
        include_str!("../../../shaders/scalar_mul.wgsl"),
    ),
    (
        "normalize.wgsl",
        include_str!("../../../shaders/normalize.wgsl"),
    ),
];

/// Entry points of the EC shader: one per operation, each a whole scalar multiplication in
/// one dispatch (see `shaders/scalar_mul.wgsl`), then `ec_normalize`, which makes a chunk's
/// results affine (`shaders/normalize.wgsl`). The last two, `u₁·G + u₂·Q` under a shared
/// point and the normalisation, are compiled only when a batch first needs them
/// (`GpuContext::ec_extra_pipeline`).
pub const EC_ENTRY_POINTS: [&str; 5] = [
    "ec_base",
    "ec_point",
    "ec_double",
    "ec_double_shared_vartime",
    "ec_normalize",
];

/// Invocations per workgroup of `ec_normalize` (jobs sharing one field inversion): 256, or
/// fewer where the workgroup's scan array (`NWG·LIMBS` words) would pass 12 KiB (P-521: 128),
/// so it fits WebGPU's default 16 KiB of workgroup memory and 256 invocations.
pub fn ec_normalize_wg(curve: Curve) -> usize {
    let mut n = 256;
    while n * ec_limbs(curve) * 4 > 12 * 1024 {
        n /= 2;
    }
    n
}

/// 32-bit limbs of a curve's field elements: twice the 64-bit limbs, so that the shader's
/// Montgomery radix `2^(32·LIMBS)` is the host's `2^(64·L)` and values cross unchanged.
pub fn ec_limbs(curve: Curve) -> usize {
    2 * curve.limbs()
}

/// Unsigned 4-bit windows of a scalar below the curve order.
pub fn ec_windows(curve: Curve) -> usize {
    curve.bits().div_ceil(4)
}

/// Signed windows of `k·G` (Booth digits of [`crate::ecc::BASE_W`] bits): enough that the top
/// window's sign bit lies above the scalar, so its digit is not negative.
pub fn ec_base_windows(curve: Curve) -> usize {
    (curve.bits() + 1).div_ceil(crate::ecc::BASE_W)
}

/// Signed windows of `u₂` over a shared point's table (Booth digits of
/// [`crate::ecc::SHARED_W`] bits), counted as for [`ec_base_windows`].
pub fn ec_shared_windows(curve: Curve) -> usize {
    (curve.bits() + 1).div_ceil(crate::ecc::SHARED_W)
}

/// Rows of `fe_mul`'s row loop per iteration (`shaders/field.wgsl`): all of them (no loop)
/// for P-224 and P-256, one for the wider curves, whose completely unrolled products took llvmpipe
/// 75–230 s per pipeline to compile (P-521; P-384 24–45 s, P-256 11–20 s; measured with
/// `examples/ec_rate`, 2026-12-01).
pub fn ec_rows(curve: Curve) -> usize {
    match curve {
        Curve::P224 | Curve::P256 => ec_limbs(curve),
        Curve::P384 | Curve::P521 => 1,
    }
}

/// The EC shader for `curve`: the prelude with the curve's constants, then the pieces. Limb
/// loops are unrolled completely (at most 18 limbs), and so are the rows of a product where
/// [`ec_rows`] says so.
pub fn ec_source(curve: Curve, arith: Arith) -> String {
    let limbs = ec_limbs(curve);
    let mut pre = prelude(limbs);
    pre.push_str(&format!(
        "// {curve}\nconst WINDOWS: u32 = {}u;\nconst DIGITS: u32 = {}u;\n\
         const BASE_W: u32 = {}u;\nconst BASE_WINDOWS: u32 = {}u;\nconst BASE_DIGITS: u32 = {}u;\n\
         const SHARED_W: u32 = {}u;\nconst SHARED_WINDOWS: u32 = {}u;\nconst SHARED_DIGITS: u32 = {}u;\n\
         const NWG: u32 = {}u;\n",
        ec_windows(curve),
        crate::ecc::DIGITS,
        crate::ecc::BASE_W,
        ec_base_windows(curve),
        crate::ecc::BASE_DIGITS,
        crate::ecc::SHARED_W,
        ec_shared_windows(curve),
        crate::ecc::SHARED_DIGITS,
        ec_normalize_wg(curve),
    ));
    pre.push_str(&crate::ecc::wgsl_constants(curve, arith));
    let formulas = crate::ecc::formulas::wgsl();
    let field = EC_PARTS[1].1.replace("@ROWS", &ec_rows(curve).to_string());
    let mut parts = EC_PARTS.to_vec();
    parts[1].1 = &field;
    // the limb words (u64-held with SHADER_INT64) before the field
    parts.insert(1, arith.register_words());
    parts.insert(4, ("point formulas (generated)", &formulas));
    compose(pre, arith, &parts, limbs, limbs)
}

/// Copies per iteration of an expanded `//#unroll` loop for `limbs`: the largest of 16, 8,
/// 4, 2, 1 that divides it. Full unrolling is not used: LLVM (llvmpipe) takes minutes on the
/// basic blocks of a fully unrolled 120-limb multiplication.
pub fn unroll_factor(limbs: usize) -> usize {
    [16, 8, 4, 2, 1]
        .into_iter()
        .find(|&u| limbs.is_multiple_of(u))
        .unwrap_or(1)
}

/// Expands `//#unroll X s` … `//#end` (`X` an identifier, usually `J`): the lines between
/// run for `X = s … limbs−1`, `u` copies per loop iteration (`u` divides `limbs`; a block's
/// own `//#unroll X s copies` overrides it), each copy
/// in its own `{ }` block with the identifier `X` replaced by its index; indices below the
/// first multiple of the factor are emitted as literal copies before the loop, and so is a
/// loop that would run only once. Blocks nest (with different identifiers): each copy of the
/// outer block is expanded again, so `u = limbs` unrolls a double loop completely.
fn unroll(text: &str, limbs: usize, u: usize) -> String {
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut out = String::with_capacity(text.len());
    expand(&lines, limbs, u, &mut out);
    out
}

/// `ident`, `start` and the copies per iteration, if given, of an `//#unroll ident start
/// [copies]` line.
fn unroll_header(line: &str) -> Option<(&str, usize, Option<usize>)> {
    let rest = line.trim_start().strip_prefix("//#unroll ")?;
    let mut words = rest.split_whitespace();
    let usage = "//#unroll <ident> <start> [copies]";
    let ident = words.next().expect(usage);
    let start = words.next().and_then(|w| w.parse().ok()).expect(usage);
    let copies = words.next().map(|w| w.parse().expect(usage));
    Some((ident, start, copies))
}

fn expand(lines: &[String], limbs: usize, u: usize, out: &mut String) {
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        i += 1;
        let Some((ident, start, copies)) = unroll_header(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        // the body, up to the `//#end` of this block (nested blocks counted)
        let mut depth = 0;
        let from = i;
        while i < lines.len() {
            let l = lines[i].trim();
            if unroll_header(l).is_some() {
                depth += 1;
            } else if l == "//#end" {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            i += 1;
        }
        assert!(i < lines.len(), "//#unroll {ident} {start} without //#end");
        let body = &lines[from..i];
        i += 1;
        // a block may ask for its own copies per iteration (a divisor of limbs)
        let u_outer = copies.unwrap_or(u);
        assert!(
            u_outer >= 1 && limbs.is_multiple_of(u_outer),
            "//#unroll {ident}: {u_outer} copies per iteration for {limbs} limbs"
        );
        let copy = |out: &mut String, j: &str| {
            out.push_str("{\n");
            let replaced: Vec<String> = body.iter().map(|l| replace_ident(l, ident, j)).collect();
            expand(&replaced, limbs, u, out);
            out.push_str("}\n");
        };
        // a loop that would run once is written out instead
        let aligned = match start.next_multiple_of(u_outer).min(limbs) {
            a if limbs - a <= u_outer => limbs,
            a => a,
        };
        for j in start..aligned {
            copy(out, &format!("{j}u"));
        }
        if aligned < limbs {
            let var = format!("u_{}", ident.to_lowercase());
            out.push_str(&format!(
                "for (var {var} = {aligned}u; {var} < {limbs}u; {var} = {var} + {u_outer}u) {{\n"
            ));
            for k in 0..u_outer {
                copy(out, &format!("({var} + {k}u)"));
            }
            out.push_str("}\n");
        }
    }
}

/// Replaces whole-identifier occurrences of `ident` in `line`.
fn replace_ident(line: &str, ident: &str, with: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(pos) = rest.find(ident) {
        let before = rest[..pos].chars().next_back();
        let after = rest[pos + ident.len()..].chars().next();
        out.push_str(&rest[..pos]);
        if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
            out.push_str(ident);
        } else {
            out.push_str(with);
        }
        rest = &rest[pos + ident.len()..];
    }
    out.push_str(rest);
    out
}

/// The smallest variant holding a modulus of `bits` bits.
pub fn variant_for_bits(bits: usize) -> Option<usize> {
    LIMB_VARIANTS.iter().copied().find(|&l| 32 * l >= bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu::naga;

    /// Parses and validates `src` with the capabilities `arith` needs (none for the
    /// portable path: it must validate on any adapter).
    fn validate(src: &str, arith: Arith, what: &str) -> naga::Module {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{what}: WGSL parse error:\n{}", e.emit_to_string(src)));
        let caps = match arith {
            Arith::Portable => naga::valid::Capabilities::empty(),
            Arith::Int64 => naga::valid::Capabilities::SHADER_INT64,
        };
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .validate(&module)
            .unwrap_or_else(|e| {
                panic!("{what}: naga validation error:\n{}", e.emit_to_string(src))
            });
        module
    }

    #[test]
    fn every_modexp_variant_parses_and_validates() {
        for arith in Arith::BOTH {
            for limbs in LIMB_VARIANTS {
                let module = validate(
                    &modexp_source(limbs, arith),
                    arith,
                    &format!("modexp, {limbs} limbs, {arith:?}"),
                );
                let entries: Vec<&str> = module
                    .entry_points
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect();
                assert_eq!(entries, MODEXP_ENTRY_POINTS, "{limbs} limbs");
            }
        }
    }

    /// The register kernels up to 64 limbs, every limb loop written out (so every limb index
    /// is a constant); the storage kernels above.
    #[test]
    fn register_variants_are_fully_unrolled() {
        for limbs in LIMB_VARIANTS {
            let src = modexp_source(limbs, Arith::Int64);
            let regs = modexp_in_registers(limbs);
            assert_eq!(regs, limbs <= 64, "{limbs}");
            assert_eq!(src.contains("fn mont_mul_regs"), regs, "{limbs}");
            assert_eq!(src.contains("// ---- modexp.wgsl"), !regs, "{limbs}");
            if regs {
                assert!(!src.contains("u_j"), "{limbs} limbs: limb loops left in");
            }
        }
    }

    /// The int64 path really needs the capability, so the portable one is the only one an
    /// adapter without it gets.
    #[test]
    fn int64_path_needs_the_capability() {
        let src = modexp_source(16, Arith::Int64);
        let module = naga::front::wgsl::parse_str(&src).expect("parses");
        let plain = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module);
        assert!(
            plain.is_err(),
            "u64 arithmetic validated without SHADER_INT64"
        );
    }

    #[test]
    fn every_ec_shader_parses_and_validates() {
        for (curve, arith) in Curve::ALL
            .into_iter()
            .flat_map(|c| Arith::BOTH.map(|a| (c, a)))
        {
            let src = ec_source(curve, arith);
            let module = validate(&src, arith, &format!("EC, {curve}, {arith:?}"));
            let entries: Vec<&str> = module
                .entry_points
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            assert_eq!(entries, EC_ENTRY_POINTS, "{curve}");
            assert!(
                !src.lines().any(|l| l.trim_start().starts_with("//#")),
                "every block expanded"
            );
            // fully unrolled: the only loops are the multiplication's, the point program's
            // and the table scans'
            assert!(!src.contains("u_j"), "{curve}: limb loops left in");
            // 4·WINDOWS bits of scalar fit in LIMBS words
            assert!(
                4 * ec_windows(curve) <= 32 * ec_limbs(curve)
                    && 4 * ec_windows(curve) >= curve.bits()
            );
        }
    }

    #[test]
    fn unroll_expands_blocks() {
        let src = "a\n  //#unroll J 1\n  x[J] = J_max + J;\n  //#end\nb\n";
        assert_eq!(
            unroll(src, 4, unroll_factor(4)),
            "a\n{\n  x[1u] = J_max + 1u;\n}\n{\n  x[2u] = J_max + 2u;\n}\n{\n  x[3u] = J_max + 3u;\n}\nb\n"
        );
        assert_eq!(
            unroll(src, 6, unroll_factor(6)),
            "a\n{\n  x[1u] = J_max + 1u;\n}\nfor (var u_j = 2u; u_j < 6u; u_j = u_j + 2u) {\n\
             {\n  x[(u_j + 0u)] = J_max + (u_j + 0u);\n}\n{\n  x[(u_j + 1u)] = J_max + (u_j + 1u);\n}\n}\nb\n"
        );
        assert!(LIMB_VARIANTS
            .iter()
            .all(|&l| l % unroll_factor(l) == 0 && unroll_factor(l) >= 8));
        assert!(
            !modexp_source(32, Arith::Portable)
                .lines()
                .any(|l| l.trim_start().starts_with("//#")),
            "every block expanded"
        );
    }

    #[test]
    fn variants_are_ordered_and_cover_the_trait() {
        assert!(LIMB_VARIANTS.windows(2).all(|w| w[0] < w[1]));
        assert!(
            LIMB_VARIANTS.iter().all(|l| l % 2 == 0),
            "R = 2^(32·LIMBS) must be whole u64 limbs"
        );
        assert_eq!(variant_for_bits(batch_core::MAX_MODULUS_BITS), Some(480));
        assert_eq!(variant_for_bits(batch_core::MAX_MODULUS_BITS + 1), None);
        assert_eq!(variant_for_bits(1024), Some(32));
        assert_eq!(variant_for_bits(1025), Some(48));
        assert_eq!(variant_for_bits(3840), Some(120));
        assert_eq!(32 % WINDOW, 0);
    }
}
