#!/usr/bin/env bash
# Open MPI for the GPU machines, which have NCCL (PyTorch's wheel) but no MPI and no package registry.
#
#   Here (Debian 12, Open MPI 4.1.4 installed):
#     bench/gpu_mpi_runtime.sh pack [--out DIR] [PROGRAM...]
#       DIR (default <repo>/.carry/nccl, gitignored) receives mpi-runtime.tar.xz — the files of the Debian
#       packages that mpirun and libmpi need, with the shared libraries they load that an Ubuntu image
#       is likely to lack (PMIx, hwloc, libevent, libfabric, UCX, PSM, verbs, rdmacm, libnl, munge,
#       the OpenCL ICD loader that horseqc's programs link) — a stripped copy of each PROGRAM
#       (default build-nccl/bin/distributed-check), and this script. Prints the sizes: the device
#       tool carries at most 64 MiB together with the repository's files.
#   There (as root), in the repository root, with DIR named in the run's carry:
#     . DIR/gpu_mpi_runtime.sh unpack [DIR]
#       extracts the tarball to / without replacing any file the image has (tar --skip-old-files),
#       puts mpirun on the PATH and exports what mpirun and NCCL need there (see mpi_environment
#       below). Sourced, the variables reach the calling shell; run as a program, it writes them to
#       /tmp/hqc-mpi-env.sh and says to source that.
#
# The environment keeps NVLink multicast off (NCCL_NVLS_ENABLE=0): a program using it can put the
# shared host's GPUs out of service (the device notes' KINDS.md); runtime/distributed/nccl_communicator
# forces it as well.

hqc_mpi_packages=(
  openmpi-bin libopenmpi3 openmpi-common   # mpirun/orterun, libmpi and its MCA components, help texts
  libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7  # what libopen-pal/-rte load
  libfabric1 libucx0 libpsm-infinipath1 libpsm2-2 libibverbs1 ibverbs-providers librdmacm1
  libnl-3-200 libnl-route-3-200 libmunge2 libnuma1 libatomic1  # what the MCA components load
  ocl-icd-libopencl1                       # libOpenCL.so.1: every horseqc program links it
)

hqc_mpi_pack() {
  local root out
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  out=$root/.carry/nccl
  local programs=()
  while [ $# -gt 0 ]; do
    case $1 in
      --out) out=$2; shift 2 ;;
      *) programs+=("$1"); shift ;;
    esac
  done
  [ ${#programs[@]} -gt 0 ] || programs=("$root/build-nccl/bin/distributed-check")
  mkdir -p "$out" || return 1
  local list
  list=$(mktemp)
  local p f
  for p in "${hqc_mpi_packages[@]}"; do
    dpkg -L "$p" >/dev/null 2>&1 || { echo "gpu_mpi_runtime: package $p is not installed here" >&2; rm -f "$list"; return 1; }
    # Files and symbolic links (libmpi.so.40 -> openmpi/lib/...), not documentation or headers.
    dpkg -L "$p" | while read -r f; do
      case $f in /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/* | /usr/include/* | *.a | *.la) continue ;; esac
      if [ -f "$f" ] || [ -L "$f" ]; then echo "${f#/}"; fi
    done >>"$list"
  done
  sort -u -o "$list" "$list"
  tar -C / -cf - -T "$list" | xz -9 -T1 >"$out/mpi-runtime.tar.xz" || { rm -f "$list"; return 1; }
  echo "gpu_mpi_runtime: $(wc -l <"$list") files from ${#hqc_mpi_packages[@]} packages"
  rm -f "$list"
  for p in "${programs[@]}"; do
    strip -o "$out/$(basename "$p")" "$p" || return 1
  done
  cp "${BASH_SOURCE[0]}" "$out/gpu_mpi_runtime.sh"
  du -b "$out"/* | awk '{printf "  %10d  %s\n", $1, $2; t += $1} END {printf "  %10d  total (%.1f MiB)\n", t, t / 1048576}'
}

# What mpirun, Open MPI, PMIx and NCCL need on a single GPU host where we are root.
hqc_mpi_environment() {
  cat <<'EOF'
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader                       # one host: shared memory only (no openib, no tcp)
export OMPI_MCA_pml=ob1                               # not UCX: device buffers never reach MPI here
export OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_vader_single_copy_mechanism=none  # no CMA/ptrace needed inside a VM
export OMPI_MCA_mca_base_component_show_load_errors=0 # components whose libraries are absent stay quiet
export OMPI_MCA_rmaps_base_oversubscribe=1
export PMIX_MCA_gds=hash                              # PMIx's shared-memory store fails in some containers
export NCCL_NVLS_ENABLE=0                             # NVLink multicast off (see the top of this script)
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
# horseqc's programs find NVRTC where the image's CUDA keeps it (built here against /usr/local/cuda/lib).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
EOF
}

hqc_mpi_unpack() {
  local dir=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
  [ -f "$dir/mpi-runtime.tar.xz" ] || { echo "gpu_mpi_runtime: $dir/mpi-runtime.tar.xz not found (carry it)" >&2; return 1; }
  xz -dc "$dir/mpi-runtime.tar.xz" | tar -C / --skip-old-files -xf - || return 1
  ldconfig
  # Debian reaches mpirun through update-alternatives (/etc/alternatives), which the tarball lacks.
  mkdir -p /tmp/hqc-mpi-bin
  local tool
  for tool in mpirun mpiexec orterun; do
    [ -x /usr/bin/$tool.openmpi ] && ln -sf /usr/bin/$tool.openmpi /tmp/hqc-mpi-bin/$tool
    [ -x /usr/bin/$tool ] && [ ! -e /tmp/hqc-mpi-bin/$tool ] && ln -sf /usr/bin/$tool /tmp/hqc-mpi-bin/$tool
  done
  { hqc_mpi_environment; echo 'export PATH=/tmp/hqc-mpi-bin:$PATH'; } >/tmp/hqc-mpi-env.sh
  # shellcheck disable=SC1091
  . /tmp/hqc-mpi-env.sh
  # A library the carried programs need that the image keeps elsewhere (NVRTC in a wheel, say): its
  # folder joins LD_LIBRARY_PATH.
  local program missing found
  for program in "$dir"/*; do
    [ -x "$program" ] && [ -f "$program" ] && head -c 4 "$program" | grep -q ELF || continue
    for missing in $(ldd "$program" 2>/dev/null | awk '/not found/ {print $1}'); do
      found=$(find /usr/local /opt /usr/lib -name "$missing" -print -quit 2>/dev/null)
      if [ -n "$found" ]; then
        echo "export LD_LIBRARY_PATH=$(dirname "$found"):\$LD_LIBRARY_PATH" >>/tmp/hqc-mpi-env.sh
        export LD_LIBRARY_PATH=$(dirname "$found"):$LD_LIBRARY_PATH
      else
        echo "gpu_mpi_runtime: $(basename "$program") needs $missing, which is nowhere here" >&2
      fi
    done
  done
  echo "gpu_mpi_runtime: $(mpirun --version 2>&1 | head -1) ready (environment: /tmp/hqc-mpi-env.sh)"
}

hqc_mpi_main() {
  local verb=${1:-}
  shift || true
  case $verb in
    pack) hqc_mpi_pack "$@" ;;
    unpack) hqc_mpi_unpack "$@" ;;
    env) hqc_mpi_environment ;;
    *) echo "usage: bench/gpu_mpi_runtime.sh pack [--out DIR] [PROGRAM...] | . DIR/gpu_mpi_runtime.sh unpack [DIR] | env" >&2; return 2 ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  hqc_mpi_main "$@"
  status=$?
  [ "${1:-}" = unpack ] && [ $status -eq 0 ] && echo "gpu_mpi_runtime: run as a program; now: . /tmp/hqc-mpi-env.sh"
  exit $status
else
  hqc_mpi_main "$@"
fi
