#!/usr/bin/env bash
# The static half of the constant-time check for the AVX-512 backend, which Valgrind cannot run
# (docs/SECURITY.md, "Masked stores"): batch-avx512's machine code must hold no masked store.
#
# A masked store (`vmovdqa64 %zmm, mem{%k}`) is what LLVM makes of `x = select(x, y, m)` when `x`
# lives in memory; the next full load of `x` then waits on store forwarding, which the core
# grants or refuses by the mask's value. With a mask made from secret digits, that is a timing
# difference: dudect measured |t| = 19–26 on Sapphire Rapids for one job's digits zero among
# seven random ones. `Lanes::opaque` (crates/batch-avx512/src/simd.rs) and
# `field::select_entries` keep such selections in registers; this scan proves it for the code
# as built, in every monomorphised instance.
#
#   scripts/masked-store-check.sh [BINARY]   default: target/release/ct-check (ct-check.sh
#                                            builds it; it links every backend)
#
# Allowed, by function: those named `_vartime` (public inputs only, by the project's naming
# rule), and two masked stores in each instance of `modexp::modexp_group_ifma`, from the loops
# that gather each lane's exponent window or (`_vartime` jobs, inlined) bit
# (`batch_core::num::window`, vectorised by LLVM), whose masks come from the public limb counts
# and bit positions, never from a value.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-${CARGO_TARGET_DIR:-target}/release/ct-check}"
if ! command -v objdump >/dev/null 2>&1; then
    echo "masked-store-check.sh: objdump is not installed (apt-get install binutils)" >&2
    exit 1
fi
if [[ ! -x "$bin" ]]; then
    echo "masked-store-check.sh: no binary at $bin (run scripts/ct-check.sh first)" >&2
    exit 1
fi

# Every store under a mask register: moves, compresses and scatters with a memory destination
# and `{%kN}`, and AVX's vector-masked stores.
objdump -d --no-show-raw-insn -C "$bin" | awk '
    /^[0-9a-f]+ </ { fn = $0; next }
    fn !~ /batch_avx512::/ { next }
    {
        masked = ($0 ~ /(vmov|vpcompress|vcompress)[a-z0-9]* +%[xyz]mm[0-9]+,[^{]*\)\{%k[1-7]\}/) \
              || ($0 ~ /vp?maskmov[a-z]* +%[xyz]mm[0-9]+,%[xyz]mm[0-9]+,[^,]*\)$/) \
              || ($0 ~ /v(p)?scatter/)
        if (!masked) next
        total++
        if (fn ~ /_vartime/) { vartime++; next }
        if (fn ~ /batch_avx512::modexp::modexp_group_ifma/) { allowed[fn]++; next }
        bad++
        print "masked store in " fn ":\n    " $0
    }
    END {
        for (f in allowed) {
            if (allowed[f] > 2) {
                bad++
                print "more masked stores than the window loop makes (" allowed[f] ") in " f
            }
        }
        printf "masked-store-check.sh: %d masked stores in batch_avx512 code (%d in _vartime functions), %d not allowed\n", total, vartime, bad
        exit (bad > 0)
    }'
