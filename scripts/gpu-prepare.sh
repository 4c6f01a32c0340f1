#!/usr/bin/env bash
# Prepares a GPU measurement for the `device` tool (see /work/.library/device/README.md):
# builds, here, the release `batch-speed` and the wgpu test binaries and strips them into
# .gpu/ (ignored; the device machine has no network, so nothing can be built there), and
# generates the RSA keys of the distinct-key verify cells into .gpu/batch-speed-keys, and
# downloads the Vulkan/EGL loader packages into .gl/ once. About 36 MiB in all. Then run, with carry
# [".gpu", ".gl"]:  bash scripts/gpu-run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .gpu && mkdir -p .gpu
cargo build --release --locked -p batch-bench --bin batch-speed
strip -o .gpu/batch-speed target/release/batch-speed
# the test binaries, by name, from cargo's JSON messages
cargo test --release --locked -p batch-wgpu --no-run --message-format=json \
  | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])
' | while read -r name exe; do
  case "$name" in ecc_vs_scalar|modexp_vs_scalar|shared_vs_scalar|device_limits) strip -o ".gpu/$name" "$exe" ;; esac
done
# the distinct-key RSA verify cells' generated keys, cached beside the executable: generated
# here once (seconds to minutes) instead of on the device's time
for bits in 2048 3072; do
  target/release/batch-speed --backends scalar --algs rsa$bits --batch 16 --seconds 0.05 \
    --openssl off > /dev/null
done
cp -r target/release/batch-speed-keys .gpu/
if [ ! -d .gl ] || ! ls .gl/*.deb >/dev/null 2>&1; then
  mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update -qq
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
du -ch .gpu .gl | tail -1
