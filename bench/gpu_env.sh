# Sourced by the GPU-machine scripts (gpu_ssb.sh, gpu_tpch.sh, gpu_planner.sh) after they set `out` and `log`: sends
# everything printed to $out/$log, registers NVIDIA's OpenCL with the ICD loader, points the kernel
# cache and the scratch directory $w into /tmp, installs the DuckDB wheels from .whl/ (or .site/) when they were carried, and prints the
# date, the commit and the GPU. Sets `root` (the repository) and `w` (the scratch directory).
mkdir -p "$out"
exec > >(tee "$out/$log") 2>&1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export HORSEQC_KERNEL_CACHE=/tmp/hqc-kernels
# The checkout's git HEAD on the device can be stale; a build's own `--version` names its commit.
echo "# $(date -u +%Y-%m-%dT%H:%MZ) checkout ${HQC_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}"
[ -n "${bin:-}" ] && [ -x "$bin/horseqc-run" ] && echo "# $("$bin/horseqc-run" --version 2>/dev/null || echo "$bin: no --version (an older build)")"
nvidia-smi -L
# The wheels as carried (.whl/), or unpacked and compressed into one archive (.site/site.tar.xz, bench/README.md).
if [ -f "$root/.site/site.tar.xz" ]; then
  tar xJf "$root/.site/site.tar.xz" -C /tmp && export PYTHONPATH=/tmp/site
elif compgen -G "$root/.whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site "$root"/.whl/*.whl && export PYTHONPATH=/tmp/site
fi  # neither: a script that needs no DuckDB (gpu_ab.sh)
w=/tmp/w
mkdir -p $w
