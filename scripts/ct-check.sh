#!/usr/bin/env bash
# The constant-time check (docs/SECURITY.md): runs `ct-check` (tests/ct) under Valgrind memcheck
# with every secret marked undefined; any report of a branch, address or system-call argument
# computed from a secret fails the run. First, the static scan of the AVX-512 code for masked
# stores (scripts/masked-store-check.sh), which Valgrind cannot run.
#
#   scripts/ct-check.sh [SECTION...]   sections: modexp, ec, rsa, ecdsa, or e.g. rsa/avx2/2048
#   scripts/ct-check.sh --demo-leak    runs the `demo-leak` sections instead: RSA-2048 signing
#                                      on a backend that sends it to the variable-time
#                                      exponentiation; succeeds only if that is caught
#   scripts/ct-check.sh --build-only   builds the binary and stops (.ci/run builds it early,
#                                      in the background, while the tests run)
set -euo pipefail
cd "$(dirname "$0")/.."

demo=0
if [[ "${1:-}" == "--demo-leak" ]]; then
    demo=1
    shift
fi
build_only=0
if [[ "${1:-}" == "--build-only" ]]; then
    build_only=1
    shift
fi

if [[ $build_only == 0 ]] && ! command -v valgrind >/dev/null 2>&1; then
    echo "ct-check.sh: valgrind is not installed (apt-get install valgrind)" >&2
    exit 1
fi

# The release profile: the code as shipped (debug assertions off; `debug = 1` keeps line
# numbers in the reports). The demo runs the same binary: its leak is planted at run time, in
# the check's own code, so the library carries no leaky variant and nothing is built twice.
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release/ct-check"
cargo build --release --locked -q -p batch-ct --bin ct-check
if [[ $build_only == 1 ]]; then
    exit 0
fi

# The AVX-512 backend cannot run under Valgrind; its built code is scanned for stores masked
# by lane masks instead (scripts/masked-store-check.sh; the same binary links it).
if [[ $demo == 0 ]]; then
    scripts/masked-store-check.sh "$bin"
fi

# Valgrind's virtual CPU hides ADX from cpuid but runs the instructions: where the host has
# BMI2 and ADX, the AVX2 backend's scalar tail must run its mulx/adx kernel here as it does
# natively (crates/batch-avx2/src/simd.rs, `detect_adx`), so that the kernel is checked too.
if grep -qw adx /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo; then
    export BATCHSIG_ASSUME_ADX=1
fi

# The demo's sections only with --demo-leak (ct-check runs them only when named).
sections=("$@")
if [[ $demo == 1 ]]; then
    sections=(demo-leak)
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
start=$SECONDS
# --error-exitcode: any memcheck error fails the run. Leak checking is off: this is about
# secret-dependent control flow, not memory leaks.
valgrind --tool=memcheck --error-exitcode=99 --leak-check=no --track-origins=yes \
    --num-callers=30 --suppressions=scripts/ct-check.supp \
    "$bin" "${sections[@]}" 2>"$log" || status=$?
elapsed=$((SECONDS - start))

grep -E '^ct-check: ' "$log" || true
errors=$(grep -cE 'Conditional jump or move depends on uninitialised|Use of uninitialised value|Syscall param .* uninitialised' "$log" || true)
if [[ $status != 0 ]]; then
    # Show each distinct report with its innermost frames in our code.
    # (frames shortened to 200 characters, at most 400 lines; rerun by hand for everything)
    grep -vE '^ct-check: ' "$log" | grep -E '^==[0-9]+== ' | sed 's/^==[0-9]*== //' | cut -c1-200 | head -n 400 || true
fi
echo "ct-check.sh: exit status $status, $errors distinct reports, ${elapsed}s under valgrind"

if [[ $demo == 1 ]]; then
    # Caught means: memcheck failed the run, and a report points into the variable-time
    # exponentiation the demo's backend sends the secret exponents to.
    if [[ $status == 99 && $errors -gt 0 ]] && grep -qE 'pow(_bits)?_vartime' "$log"; then
        echo "ct-check.sh --demo-leak: the deliberate leak was caught (as it must be)"
        exit 0
    fi
    echo "ct-check.sh --demo-leak: FAIL: the deliberate secret-dependent branches were NOT caught"
    exit 1
fi
exit "$status"
