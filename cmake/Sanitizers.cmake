# Sanitizer and fuzzing builds (tests/README.md, "Sanitizers and fuzzing").
#
# HORSEQC_SANITIZE=ON: AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer on every
#   target of the tree (libraries, tools, tests, benchmarks), with frame pointers for readable stacks
#   and -fno-sanitize-recover so that undefined behaviour aborts the test that reached it.
#   Use a build directory of its own (scripts/horseqc sanitize uses build-asan/).
# HORSEQC_FUZZ=ON (clang only): libFuzzer targets of tests/fuzz/; the whole tree is compiled with
#   coverage instrumentation (-fsanitize=fuzzer-no-link) and both sanitizers, the fuzz targets link
#   libFuzzer's main. scripts/horseqc sanitize turns it on in build-asan/ when clang links libFuzzer,
#   so one build serves both (the coverage instrumentation costs the tests little).
option(HORSEQC_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(HORSEQC_FUZZ "Build the libFuzzer targets of tests/fuzz/ (clang; implies HORSEQC_SANITIZE)" OFF)

if(HORSEQC_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "HORSEQC_FUZZ=ON needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
  endif()
  set(HORSEQC_SANITIZE ON CACHE BOOL "" FORCE)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>)
endif()

if(HORSEQC_SANITIZE)
  set(hqc_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  # Applied at directory scope before any target is declared, so every target inherits them; C and
  # C++ only: nvcc (runtime/device/cuda_primitives.cu, compiled with g++ as host compiler) knows neither
  # option, and its CUB code is the library's, not ours.
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${hqc_sanitizers};-fno-omit-frame-pointer>")
  add_link_options(${hqc_sanitizers})
  # Debian's gcc links --as-needed by default, clang does not: without it a clang build records
  # libcuda.so.1 (which FindCUDAToolkit attaches to NVRTC) as needed, and no binary starts on a
  # machine without a GPU driver. horseqc loads libcuda with dlopen (runtime/device/cuda_driver.h).
  add_link_options(-Wl,--as-needed)
  # The runtime options every test (and every child process an oracle test starts) runs with.
  # intercept_tls_get_addr=0: up to LLVM 16 / GCC 13 the runtime's __tls_get_addr interceptor can take
  # a dynamic TLS block (PoCL and LLVM, loaded with dlopen, have them) for a pre-glibc-2.25 one and
  # read a bogus range from it, and LeakSanitizer's tracer then dies at exit ("Tracer caught signal
  # 11", no leak found; seen once in tpch_spec_queries; Mudlet/Mudlet#9930 has the mechanism).
  set(hqc_lsan_supp ${CMAKE_SOURCE_DIR}/tests/sanitizers/lsan.supp)
  set(HORSEQC_SANITIZER_ENV
      "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1:check_initialization_order=1:intercept_tls_get_addr=0"
      "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
      "LSAN_OPTIONS=suppressions=${hqc_lsan_supp}:print_suppressions=0")
endif()
