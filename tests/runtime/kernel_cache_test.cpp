// Kernel cache on its own: stable keys, round trip, torn and corrupt entries, default directory.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "runtime/device/kernel_cache.h"
#include "runtime/device/stable_hash.h"

using namespace hqc::runtime;

TEST_CASE("stable hash values do not change") {
  // Published FNV-1a 64 test vectors.
  CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
  CHECK(hex64(0xabcULL) == "0000000000000abc");
}

TEST_CASE("cache keys depend on every field, with field boundaries") {
  const std::string k = KernelCache::key_for("dev", "src", {"-O3"});
  CHECK(k.size() == 32);
  CHECK(k == KernelCache::key_for("dev", "src", {"-O3"}));
  CHECK(k != KernelCache::key_for("dev2", "src", {"-O3"}));
  CHECK(k != KernelCache::key_for("dev", "src ", {"-O3"}));
  CHECK(k != KernelCache::key_for("dev", "src", {"-O2"}));
  CHECK(k != KernelCache::key_for("dev", "src", {}));
  CHECK(KernelCache::key_for("ab", "c", {}) != KernelCache::key_for("a", "bc", {}));
}

TEST_CASE("store, load, corrupt and truncated entries") {
  auto dir = std::filesystem::temp_directory_path() / ("hqc-cache-unit-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  KernelCache cache(dir / "nested");  // parents are created
  const std::string key = KernelCache::key_for("dev", "source", {});
  CHECK_FALSE(cache.load(key).has_value());
  std::vector<char> payload = {'c', 'u', 'b', 'i', 'n', '\0', 'x'};
  REQUIRE(cache.store(key, payload));
  CHECK(cache.load(key) == payload);

  // Flip one payload byte: checksum mismatch, entry removed.
  {
    std::fstream f(cache.entry_path(key), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('y');
  }
  CHECK_FALSE(cache.load(key).has_value());
  CHECK(cache.corrupt_entries() == 1);
  CHECK_FALSE(std::filesystem::exists(cache.entry_path(key)));

  // A file shorter than the header.
  { std::ofstream(cache.entry_path(key), std::ios::binary) << "HQ"; }
  CHECK_FALSE(cache.load(key).has_value());
  CHECK(cache.corrupt_entries() == 2);

  // No temporary files are left behind by a successful store.
  REQUIRE(cache.store(key, payload));
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache.directory())) {
    ++files;
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
  }
  CHECK(files == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("default directory honours HORSEQC_KERNEL_CACHE and XDG_CACHE_HOME") {
  const char* saved_explicit = std::getenv("HORSEQC_KERNEL_CACHE");
  const char* saved_xdg = std::getenv("XDG_CACHE_HOME");
  std::string keep_explicit = saved_explicit ? saved_explicit : "";
  std::string keep_xdg = saved_xdg ? saved_xdg : "";
  ::setenv("HORSEQC_KERNEL_CACHE", "/tmp/hqc-explicit", 1);
  CHECK(KernelCache::default_directory() == std::filesystem::path("/tmp/hqc-explicit"));
  ::setenv("HORSEQC_KERNEL_CACHE", "off", 1);
  CHECK(KernelCache::open_default() == nullptr);
  ::unsetenv("HORSEQC_KERNEL_CACHE");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(KernelCache::default_directory() == std::filesystem::path("/tmp/xdg/horseqc/kernels"));
  if (saved_explicit) ::setenv("HORSEQC_KERNEL_CACHE", keep_explicit.c_str(), 1); else ::unsetenv("HORSEQC_KERNEL_CACHE");
  if (saved_xdg) ::setenv("XDG_CACHE_HOME", keep_xdg.c_str(), 1); else ::unsetenv("XDG_CACHE_HOME");
}
