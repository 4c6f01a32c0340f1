//! The one description of the point formulas every backend runs: complete
//! Renes–Costello–Batina addition, mixed addition and doubling for `y² = x³ − 3x + b`.
//!
//! Representation: homogeneous projective `(X : Y : Z)` (`x = X/Z`, `y = Y/Z`), identity
//! `(0 : λ : 0)`; the field is whatever the caller's `f` is. Formulas: "Complete addition
//! formulas for prime order elliptic curves" (eprint 2015/1060), `a = −3`: Algorithm 4
//! (addition, 12M + 2m_b), 5 (mixed addition, 11M + 2m_b, `Z₂ = 1`, cannot express an identity
//! second operand) and 6 (doubling, 8M + 3S + 2m_b). Complete on prime-order curves: no
//! exceptional inputs, no branches, so they are constant-time whenever the field is.
//!
//! Why macros and not generic functions: the SIMD backends' field operations are
//! `#[target_feature]` functions, which a trait method compiled without those features could
//! only reach through `unsafe` and would not inline. A macro body is expanded inside each
//! backend's own (`#[target_feature]`) function, with its own field type, so one text serves
//! `batch-scalar`, `batch-avx2` and `batch-avx512` at full speed. The field `f` needs
//! `f.mul(&a, &b)`, `f.square(&a)`, `f.add(&a, &b)`, `f.sub(&a, &b)`, all returning an owned
//! element; `b` is the curve constant in `f`'s representation (a place expression, borrowed).
//! Each macro evaluates to `(X3, Y3, Z3)`. Line comments are the paper's step numbers.
//!
//! The WGSL copy (`shaders/point.wgsl`) is a step table the shader interprets; `batch-wgpu`'s
//! tests evaluate it and these macros over [`symbolic::Sym`] and require the same expressions.

/// `P₁ + P₂`, complete (RCB15 Algorithm 4, `a = −3`).
#[macro_export]
macro_rules! rcb_add {
    ($f:expr, $b:expr, ($x1:expr, $y1:expr, $z1:expr), ($x2:expr, $y2:expr, $z2:expr)) => {{
        let f = $f;
        let (x1, y1, z1) = (&$x1, &$y1, &$z1);
        let (x2, y2, z2) = (&$x2, &$y2, &$z2);
        let mut t0 = f.mul(x1, x2); // 1
        let mut t1 = f.mul(y1, y2); // 2
        let mut t2 = f.mul(z1, z2); // 3
        let mut t3 = f.add(x1, y1); // 4
        let mut t4 = f.add(x2, y2); // 5
        t3 = f.mul(&t3, &t4); // 6
        t4 = f.add(&t0, &t1); // 7
        t3 = f.sub(&t3, &t4); // 8
        t4 = f.add(y1, z1); // 9
        let mut x3 = f.add(y2, z2); // 10
        t4 = f.mul(&t4, &x3); // 11
        x3 = f.add(&t1, &t2); // 12
        t4 = f.sub(&t4, &x3); // 13
        x3 = f.add(x1, z1); // 14
        let mut y3 = f.add(x2, z2); // 15
        x3 = f.mul(&x3, &y3); // 16
        y3 = f.add(&t0, &t2); // 17
        y3 = f.sub(&x3, &y3); // 18
        let mut z3 = f.mul(&$b, &t2); // 19
        x3 = f.sub(&y3, &z3); // 20
        z3 = f.add(&x3, &x3); // 21
        x3 = f.add(&x3, &z3); // 22
        z3 = f.sub(&t1, &x3); // 23
        x3 = f.add(&t1, &x3); // 24
        y3 = f.mul(&$b, &y3); // 25
        t1 = f.add(&t2, &t2); // 26
        t2 = f.add(&t1, &t2); // 27
        y3 = f.sub(&y3, &t2); // 28
        y3 = f.sub(&y3, &t0); // 29
        t1 = f.add(&y3, &y3); // 30
        y3 = f.add(&t1, &y3); // 31
        t1 = f.add(&t0, &t0); // 32
        t0 = f.add(&t1, &t0); // 33
        t0 = f.sub(&t0, &t2); // 34
        t1 = f.mul(&t4, &y3); // 35
        t2 = f.mul(&t0, &y3); // 36
        y3 = f.mul(&x3, &z3); // 37
        y3 = f.add(&y3, &t2); // 38
        x3 = f.mul(&x3, &t3); // 39
        x3 = f.sub(&x3, &t1); // 40
        z3 = f.mul(&z3, &t4); // 41
        t1 = f.mul(&t3, &t0); // 42
        z3 = f.add(&z3, &t1); // 43
        (x3, y3, z3)
    }};
}

/// `P₁ + (x₂, y₂)`, the second operand affine and not the identity (RCB15 Algorithm 5,
/// `a = −3`); complete in `P₁`. Callers select `P₁` back where the second operand is "no
/// point".
#[macro_export]
macro_rules! rcb_add_mixed {
    ($f:expr, $b:expr, ($x1:expr, $y1:expr, $z1:expr), ($x2:expr, $y2:expr)) => {{
        let f = $f;
        let (x1, y1, z1) = (&$x1, &$y1, &$z1);
        let (x2, y2) = (&$x2, &$y2);
        let mut t0 = f.mul(x1, x2); // 1
        let mut t1 = f.mul(y1, y2); // 2
        let mut t3 = f.add(x2, y2); // 3
        let mut t4 = f.add(x1, y1); // 4
        t3 = f.mul(&t3, &t4); // 5
        t4 = f.add(&t0, &t1); // 6
        t3 = f.sub(&t3, &t4); // 7
        t4 = f.mul(y2, z1); // 8
        t4 = f.add(&t4, y1); // 9
        let mut y3 = f.mul(x2, z1); // 10
        y3 = f.add(&y3, x1); // 11
        let mut z3 = f.mul(&$b, z1); // 12
        let mut x3 = f.sub(&y3, &z3); // 13
        z3 = f.add(&x3, &x3); // 14
        x3 = f.add(&x3, &z3); // 15
        z3 = f.sub(&t1, &x3); // 16
        x3 = f.add(&t1, &x3); // 17
        y3 = f.mul(&$b, &y3); // 18
        t1 = f.add(z1, z1); // 19
        let mut t2 = f.add(&t1, z1); // 20
        y3 = f.sub(&y3, &t2); // 21
        y3 = f.sub(&y3, &t0); // 22
        t1 = f.add(&y3, &y3); // 23
        y3 = f.add(&t1, &y3); // 24
        t1 = f.add(&t0, &t0); // 25
        t0 = f.add(&t1, &t0); // 26
        t0 = f.sub(&t0, &t2); // 27
        t1 = f.mul(&t4, &y3); // 28
        t2 = f.mul(&t0, &y3); // 29
        y3 = f.mul(&x3, &z3); // 30
        y3 = f.add(&y3, &t2); // 31
        x3 = f.mul(&x3, &t3); // 32
        x3 = f.sub(&x3, &t1); // 33
        z3 = f.mul(&z3, &t4); // 34
        t1 = f.mul(&t3, &t0); // 35
        z3 = f.add(&z3, &t1); // 36
        (x3, y3, z3)
    }};
}

/// `2·P`, complete (RCB15 Algorithm 6, `a = −3`).
#[macro_export]
macro_rules! rcb_double {
    ($f:expr, $b:expr, ($x:expr, $y:expr, $z:expr)) => {{
        let f = $f;
        let (x, y, z) = (&$x, &$y, &$z);
        let mut t0 = f.square(x); // 1
        let t1 = f.square(y); // 2
        let mut t2 = f.square(z); // 3
        let mut t3 = f.mul(x, y); // 4
        t3 = f.add(&t3, &t3); // 5
        let mut z3 = f.mul(x, z); // 6
        z3 = f.add(&z3, &z3); // 7
        let mut y3 = f.mul(&$b, &t2); // 8
        y3 = f.sub(&y3, &z3); // 9
        let mut x3 = f.add(&y3, &y3); // 10
        y3 = f.add(&x3, &y3); // 11
        x3 = f.sub(&t1, &y3); // 12
        y3 = f.add(&t1, &y3); // 13
        y3 = f.mul(&x3, &y3); // 14
        x3 = f.mul(&x3, &t3); // 15
        t3 = f.add(&t2, &t2); // 16
        t2 = f.add(&t2, &t3); // 17
        z3 = f.mul(&$b, &z3); // 18
        z3 = f.sub(&z3, &t2); // 19
        z3 = f.sub(&z3, &t0); // 20
        t3 = f.add(&z3, &z3); // 21
        z3 = f.add(&z3, &t3); // 22
        t3 = f.add(&t0, &t0); // 23
        t0 = f.add(&t3, &t0); // 24
        t0 = f.sub(&t0, &t2); // 25
        t0 = f.mul(&t0, &z3); // 26
        y3 = f.add(&y3, &t0); // 27
        t0 = f.mul(y, z); // 28
        t0 = f.add(&t0, &t0); // 29
        z3 = f.mul(&t0, &z3); // 30
        x3 = f.sub(&x3, &z3); // 31
        z3 = f.mul(&t0, &t1); // 32
        z3 = f.add(&z3, &z3); // 33
        z3 = f.add(&z3, &z3); // 34
        (x3, y3, z3)
    }};
}

/// A field of expressions, for checking that another copy of the formulas (the WGSL step
/// table) computes the same thing: every operation is hash-consed into a DAG, with the
/// commutative operands ordered, so two formula texts agree exactly when their outputs are
/// the same [`Sym`].
pub mod symbolic {
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// A node of the expression DAG.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct Sym(pub u32);

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    enum Node {
        Input(u32),
        Mul(Sym, Sym),
        Add(Sym, Sym),
        Sub(Sym, Sym),
        Half(Sym),
    }

    /// The expression builder; [`Exprs::input`] makes leaves, the field methods make nodes.
    #[derive(Debug, Default)]
    pub struct Exprs {
        nodes: RefCell<(Vec<Node>, HashMap<Node, Sym>)>,
    }

    impl Exprs {
        fn intern(&self, n: Node) -> Sym {
            let mut g = self.nodes.borrow_mut();
            if let Some(s) = g.1.get(&n) {
                return *s;
            }
            let s = Sym(g.0.len() as u32);
            g.0.push(n);
            g.1.insert(n, s);
            s
        }
        /// Leaf number `i` (an input coordinate or constant).
        pub fn input(&self, i: u32) -> Sym {
            self.intern(Node::Input(i))
        }
        pub fn mul(&self, a: &Sym, b: &Sym) -> Sym {
            self.intern(Node::Mul(*a.min(b), *a.max(b)))
        }
        pub fn square(&self, a: &Sym) -> Sym {
            self.mul(a, a)
        }
        pub fn add(&self, a: &Sym, b: &Sym) -> Sym {
            self.intern(Node::Add(*a.min(b), *a.max(b)))
        }
        pub fn sub(&self, a: &Sym, b: &Sym) -> Sym {
            self.intern(Node::Sub(*a, *b))
        }
        /// Counted with the additions.
        pub fn half(&self, a: &Sym) -> Sym {
            self.intern(Node::Half(*a))
        }
        /// (products, additions and subtractions) reachable from `roots`.
        pub fn cost(&self, roots: &[Sym]) -> (usize, usize) {
            let g = self.nodes.borrow();
            let mut seen = std::collections::HashSet::new();
            let mut stack = roots.to_vec();
            let (mut m, mut a) = (0, 0);
            while let Some(s) = stack.pop() {
                if !seen.insert(s) {
                    continue;
                }
                match g.0[s.0 as usize] {
                    Node::Input(_) => {}
                    Node::Mul(x, y) => {
                        m += 1;
                        stack.extend([x, y]);
                    }
                    Node::Add(x, y) | Node::Sub(x, y) => {
                        a += 1;
                        stack.extend([x, y]);
                    }
                    Node::Half(x) => {
                        a += 1;
                        stack.push(x);
                    }
                }
            }
            (m, a)
        }
    }

    /// Leaves used by [`add`], [`add_mixed`], [`double`]: `X1 Y1 Z1 X2 Y2 Z2 b`.
    pub const INPUTS: [&str; 7] = ["X1", "Y1", "Z1", "X2", "Y2", "Z2", "b"];

    fn leaves(e: &Exprs) -> [Sym; 7] {
        core::array::from_fn(|i| e.input(i as u32))
    }

    /// The macros' addition over symbols.
    pub fn add(e: &Exprs) -> (Sym, Sym, Sym) {
        let [x1, y1, z1, x2, y2, z2, b] = leaves(e);
        crate::rcb_add!(e, b, (x1, y1, z1), (x2, y2, z2))
    }

    /// The macros' mixed addition over symbols (`Z2` unused).
    pub fn add_mixed(e: &Exprs) -> (Sym, Sym, Sym) {
        let [x1, y1, z1, x2, y2, _, b] = leaves(e);
        crate::rcb_add_mixed!(e, b, (x1, y1, z1), (x2, y2))
    }

    /// The macros' doubling over symbols (of `(X1 : Y1 : Z1)`).
    pub fn double(e: &Exprs) -> (Sym, Sym, Sym) {
        let [x1, y1, z1, _, _, _, b] = leaves(e);
        crate::rcb_double!(e, b, (x1, y1, z1))
    }
}

/// Numbers mod a small prime as a field, for the formula tests here and in
/// [`crate::jacobian`].
#[cfg(test)]
pub(crate) mod test_field {
    pub const P: u64 = 1_000_000_007;
    pub struct F;
    impl F {
        pub fn mul(&self, a: &u64, b: &u64) -> u64 {
            a * b % P
        }
        pub fn square(&self, a: &u64) -> u64 {
            a * a % P
        }
        pub fn add(&self, a: &u64, b: &u64) -> u64 {
            (a + b) % P
        }
        pub fn sub(&self, a: &u64, b: &u64) -> u64 {
            (a + P - b) % P
        }
        pub fn half(&self, a: &u64) -> u64 {
            a * P.div_ceil(2) % P
        }
    }
}

#[cfg(test)]
mod tests {
    use super::symbolic::{self, Exprs};

    /// The paper's operation counts (RCB15 Table 1, `a = −3`): products including those by
    /// `b`, additions and subtractions together.
    #[test]
    fn formulas_have_the_papers_costs() {
        let e = Exprs::default();
        let (x, y, z) = symbolic::add(&e);
        assert_eq!(e.cost(&[x, y, z]), (14, 29));
        let (x, y, z) = symbolic::add_mixed(&e);
        assert_eq!(e.cost(&[x, y, z]), (13, 23));
        let (x, y, z) = symbolic::double(&e);
        assert_eq!(e.cost(&[x, y, z]), (13, 21));
    }

    /// Mixed addition is addition with `Z2 = 1`, checked on numbers mod a small prime.
    #[test]
    fn mixed_is_addition_with_z2_one() {
        use super::test_field::{F, P};
        let f = F;
        let (x1, y1, z1, x2, y2) = (5u64, 77, 913, 123_456u64, 654_321u64);
        // b puts (x2, y2) on y² = x³ − 3x + b
        let b = (y2 * y2 % P + 3 * x2 + P * P - x2 * x2 % P * x2 % P) % P;
        let full = crate::rcb_add!(&f, b, (x1, y1, z1), (x2, y2, 1u64));
        let mixed = crate::rcb_add_mixed!(&f, b, (x1, y1, z1), (x2, y2));
        assert_eq!(full, mixed);
        let dbl = crate::rcb_double!(&f, b, (x2, y2, 1u64));
        let sum = crate::rcb_add!(&f, b, (x2, y2, 1u64), (x2, y2, 1u64));
        // same projective point: X·Z' = X'·Z, Y·Z' = Y'·Z
        assert_eq!(dbl.0 * sum.2 % P, sum.0 * dbl.2 % P);
        assert_eq!(dbl.1 * sum.2 % P, sum.1 * dbl.2 % P);
    }
}
