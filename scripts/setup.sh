#!/usr/bin/env bash
# Installs what bankwise needs to build and test on Debian 12 (bookworm):
# CMake, Ninja, a C++20 compiler, doctest, CLI11, fmt, nlohmann-json, and
# Clang/LLVM 19 libTooling for frontend/, python3 and jsonschema (the lint
# tests validate its SARIF), and compiler-rt 19 (libFuzzer, the sanitizers)
# for scripts/fuzz.sh and scripts/sanitize.sh, and chromium (the HTML
# report's test renders it headless). Skips apt when all are present.
# The CUDA toolkit (nvcc) is expected to be on the machine already.
set -euo pipefail

packages=(cmake ninja-build g++ doctest-dev libcli11-dev libfmt-dev
  nlohmann-json3-dev clang-19 libclang-cpp19-dev libclang-19-dev llvm-19-dev
  python3 python3-jsonschema libclang-rt-19-dev chromium)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
