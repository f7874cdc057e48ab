#!/usr/bin/env bash
# Fetches the header-only libraries the bankwise core needs (fmt, CLI11,
# nlohmann-json, doctest) as Debian bookworm packages and unpacks them into
# .deps/ (git-ignored), for a machine that has CMake and nvcc but neither
# these libraries nor network access: the GPU machine. Run it here (apt and
# the Debian mirrors reachable); then, on the GPU machine,
#
#   cmake --preset gpu     # build-gpu/, CMAKE_PREFIX_PATH=.deps/usr, no LLVM
#
# (bench/gpu-verify.sh does that). fmt's package config also names the
# shared library, which CMake insists exists, so libfmt9 comes along; bankwise
# links fmt::fmt-header-only only, and the script checks that this works.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/.deps"
packages=(libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev doctest-dev)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
(cd "$work" && apt-get download "${packages[@]}")
rm -rf "$deps"
mkdir -p "$deps"
for deb in "$work"/*.deb; do
  dpkg -x "$deb" "$deps"
  echo "gpu-deps: unpacked $(basename "$deb")"
done

# The packages' CMake configs use absolute /usr paths for a few files; point
# them at .deps (fmt's targets compute their prefix relative to themselves,
# CLI11 and doctest too, nlohmann's as well: nothing to patch today, but
# check that a configure of a tiny project finds every package header-only).
check="$work/check"
mkdir -p "$check"
cat >"$check/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(gpu_deps_check LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(doctest REQUIRED)
add_executable(check main.cpp)
target_link_libraries(check PRIVATE fmt::fmt-header-only CLI11::CLI11 nlohmann_json::nlohmann_json doctest::doctest)
CMAKE
cat >"$check/main.cpp" <<'CPP'
#include <CLI/CLI.hpp>
#define DOCTEST_CONFIG_DISABLE
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
int main() { return fmt::format("{}", nlohmann::json{{"ok", 1}}.dump()).empty(); }
CPP
# Only the .deps prefix: the check must not pass thanks to this machine's /usr.
cmake -S "$check" -B "$check/build" -DCMAKE_PREFIX_PATH="$deps/usr" \
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_ROOT_PATH="$deps" \
  -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY -DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY >/dev/null
cmake --build "$check/build" >/dev/null
if ldd "$check/build/check" | grep -q libfmt; then
  echo "gpu-deps: error: the check links libfmt; bankwise needs fmt::fmt-header-only" >&2
  exit 1
fi
"$check/build/check"
echo "gpu-deps: .deps/ ready ($(du -sh "$deps" | cut -f1)); fmt::fmt-header-only, CLI11, nlohmann-json and doctest configure from it"
