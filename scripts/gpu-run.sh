#!/usr/bin/env bash
# Runs on the `device` machine (carry [".gpu", ".gl"], prepared by scripts/gpu-prepare.sh):
# the wgpu equivalence tests on the GPU, then batch-speed with the wgpu backend beside the CPU
# backends over a batch-size sweep. Everything goes to $OUT (default ./gpu-out): logs, JSON,
# SVG. GPU_RUN_LOCAL=1 skips the loader set-up (to try the script on a machine with a driver);
# SECS, SIZES, ALGS and BATCH override the batch-speed settings.
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
{ nvidia-smi -L 2>&1; nproc; date -u; } > "$OUT/machine.txt"
status=0
for t in ecc_vs_scalar modexp_vs_scalar device_limits; do
  ( time ".gpu/$t" --test-threads 4 ) > "$OUT/test-$t.log" 2>&1 || status=1
  tail -n 3 "$OUT/test-$t.log"
done
# every cell checks its own signatures against the scalar reference
.gpu/batch-speed --backends wgpu,avx2,auto --algs ${ALGS:-common} --batch ${BATCH:-65536} --seconds ${SECS:-1} \
  --sweep --sweep-sizes ${SIZES:-1,256,4096,65536} \
  --json "$OUT/batch-speed.json" --plot "$OUT/batch-speed.svg" > "$OUT/batch-speed.txt" 2> "$OUT/batch-speed.err" || status=1
cat "$OUT/batch-speed.txt"
exit $status
