#!/usr/bin/env bash
# Runs on the `device` machine (carry [".gpu", ".gl"], prepared by scripts/gpu-prepare.sh):
# the wgpu equivalence tests on the GPU, then batch-speed with the wgpu backend beside the best
# CPU backend (`auto`) at a large batch and over a batch-size sweep (RSA-2048, P-256), then at
# the large batch for P-384, P-521 and RSA-3072 (the sweep's crossover lines give the sizes for
# `auto`'s GPU route), then P-256 with the EC results made affine on the host instead of the
# GPU, through `auto` with its GPU route forced on. Everything goes to $OUT (default ./gpu-out):
# logs, JSON, SVG. Every step runs under its own `timeout`, so the script ends inside the
# device call's limit and what finished comes back. GPU_RUN_LOCAL=1 skips the loader set-up (to
# try the script on a machine with a driver); SECS, SIZES, ALGS, ALGS2, BATCH, TEST_LIMIT,
# SPEED_LIMIT and NORM_LIMIT override the settings.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
if [ -z "${GPU_RUN_LOCAL:-}" ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export BATCHSIG_REQUIRE_GPU=1 WGPU_BACKEND=${WGPU_BACKEND:-vulkan}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv 2>&1
  nproc
  grep -m1 'model name' /proc/cpuinfo
  grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' '
  echo
  command -v openssl && openssl version
  date -u
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
status=0
# the equivalence tests, side by side (each prints the adapter it runs on)
logs=$(mktemp -d)
for t in ecc_vs_scalar modexp_vs_scalar shared_vs_scalar device_limits; do
  (
    start=$(date +%s)
    timeout "${TEST_LIMIT:-120}" ".gpu/$t" --test-threads 4 --nocapture > "$logs/$t.log" 2>&1
    echo "== $t: rc=$? in $(($(date +%s) - start)) s" >> "$logs/$t.log"
  ) &
done
wait
for t in ecc_vs_scalar modexp_vs_scalar shared_vs_scalar device_limits; do
  cat "$logs/$t.log"
  grep -q "== $t: rc=0 " "$logs/$t.log" || status=1
done > "$OUT/tests.log"
grep -E '^== |test result|running on' "$OUT/tests.log" | sort -u
# every cell checks its own results against the scalar reference
speed() {
  local name=$1
  shift
  timeout "${SPEED_LIMIT:-140}" .gpu/batch-speed --backends wgpu,auto --seconds "${SECS:-1}" \
    --json "$OUT/$name.json" "$@" > "$OUT/$name.txt" 2> "$logs/$name.err" || status=1
  tail -n 5 "$logs/$name.err" >> "$OUT/$name.txt"
  cat "$OUT/$name.txt"
}
speed speed-sweep --algs "${ALGS:-rsa2048,ecdsap256}" --batch "${BATCH:-65536}" \
  --sweep --sweep-sizes "${SIZES:-1,256,4096,16384}" --plot "$OUT/speed-sweep.svg"
speed speed-more --algs "${ALGS2:-ecdsap384,ecdsap521,rsa3072}" --batch "${BATCH:-65536}"
# the EC results made affine on the host instead of the GPU (the GPU's default), for the
# choice in batch_wgpu::Normalize::for_device_type: P-256 at the large batch, against the
# P-256 cells of speed-sweep (text only: at most 8 files come back). Run through `auto` with
# its GPU route forced on (BATCHSIG_AUTO_GPU=1), which checks that route on a hardware adapter:
# its description after the run must say "on wgpu (in use)", and the rates match wgpu's.
BATCHSIG_AUTO_GPU=1 BATCHSIG_WGPU_NORMALIZE=host timeout "${NORM_LIMIT:-80}" .gpu/batch-speed \
  --backends auto --seconds "${SECS:-1}" --algs ecdsap256 --batch "${BATCH:-65536}" --openssl off \
  > "$OUT/speed-host-normalize.txt" 2> "$logs/host-normalize.err" || status=1
tail -n 5 "$logs/host-normalize.err" >> "$OUT/speed-host-normalize.txt"
cat "$OUT/speed-host-normalize.txt"
grep -q 'on wgpu (in use)' "$OUT/speed-host-normalize.txt" ||
  { echo "auto's forced GPU route did not run on wgpu"; status=1; }
exit $status
