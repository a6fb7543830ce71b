#!/usr/bin/env python3
"""What any CUDA process pays to open the GPU and to let it go, without horseqc: the floor under a
fresh process's first query (bench/first_query.py measures horseqc's whole process against it).

Each step runs in a fresh python3 (REPS times, alternating), timed from outside as a shell would:
  - bare:    python3 that loads libcuda.so.1 and exits;
  - init:    the same, plus cuInit(0);
  - context: plus cuDevicePrimaryCtxRetain on device 0 (the context horseqc's kernels run in), then
             exit without releasing it (the driver tears it down at exit, as after horseqc's main());
  - release: plus cuDevicePrimaryCtxRelease before exit.
Inside the process it also times cuInit and the retain themselves. `nvidia-smi -q` says whether the
GPU is in persistence mode (without it the driver sets the GPU up for the first process that opens
it and tears it down when the last one exits). A benchmark, not a test.

usage: driver_floor.py [--reps 10]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

CHILD = r"""
import ctypes, json, sys, time
t0 = time.perf_counter()
cuda = ctypes.CDLL("libcuda.so.1")
step = sys.argv[1]
out = {"load_ms": (time.perf_counter() - t0) * 1e3}
if step != "bare":
    t = time.perf_counter()
    rc = cuda.cuInit(0)
    out["cuInit_ms"] = (time.perf_counter() - t) * 1e3
    if rc != 0:
        sys.exit(f"cuInit failed: {rc}")
if step in ("context", "release"):
    device = ctypes.c_int()
    cuda.cuDeviceGet(ctypes.byref(device), 0)
    context = ctypes.c_void_p()
    t = time.perf_counter()
    rc = cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    out["retain_ms"] = (time.perf_counter() - t) * 1e3
    if rc != 0:
        sys.exit(f"cuDevicePrimaryCtxRetain failed: {rc}")
    if step == "release":
        t = time.perf_counter()
        cuda.cuDevicePrimaryCtxRelease(device)
        out["release_ms"] = (time.perf_counter() - t) * 1e3
print(json.dumps(out))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    smi = subprocess.run(["nvidia-smi", "-q"], capture_output=True, text=True).stdout
    for line in smi.splitlines():
        if "Persistence Mode" in line or "Product Name" in line or "Driver Version" in line:
            print("#", line.strip())
    steps = ["bare", "init", "context", "release"]
    walls = {s: [] for s in steps}
    inside = {s: [] for s in steps}
    for _ in range(args.reps):
        for s in steps:
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-c", CHILD, s], capture_output=True, text=True)
            walls[s].append((time.perf_counter() - t0) * 1e3)
            if p.returncode != 0:
                sys.exit(f"{s}: {p.stderr.strip()}")
            inside[s].append(json.loads(p.stdout))
    print(f"# {args.reps} fresh processes per step; wall from outside, ms: min / median / max")
    for s in steps:
        w = walls[s]
        line = f"{s:8s} wall {min(w):7.1f} / {statistics.median(w):7.1f} / {max(w):7.1f}"
        for key in ("cuInit_ms", "retain_ms", "release_ms"):
            v = [d[key] for d in inside[s] if key in d]
            if v:
                line += f"   {key[:-3]} median {statistics.median(v):6.1f}"
        print(line)
    bare = statistics.median(walls["bare"])
    print(f"# context - bare = {statistics.median(walls['context']) - bare:.1f} ms: what opening and closing the GPU adds to a process")


if __name__ == "__main__":
    main()
