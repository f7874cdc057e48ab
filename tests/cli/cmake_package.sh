#!/usr/bin/env bash
# The CMake route (issue [11] item 2): `cmake --install` bankwise into a
# prefix, then configure and build samples/cmake_project against it with
# find_package(bankwise) and bankwise_add_kernels; a changed .bw is compiled
# again on the next build, an unchanged one is not.
#   cmake_package.sh BUILD_DIR SOURCE_DIR WORK_DIR NVCC
set -eu
build=$1 src=$2 work=$3 nvcc=$4
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/bankwise"
test -f "$work/prefix/lib/cmake/bankwise/bankwiseConfig.cmake" || test -f "$work/prefix/lib64/cmake/bankwise/bankwiseConfig.cmake"
# A copy, so the .bw can be touched without touching the repository.
mkdir -p "$work/samples/cmake_project"
cp "$src/samples/cmake_project/CMakeLists.txt" "$src/samples/cmake_project/main.cu" "$work/samples/cmake_project/"
cp "$src/samples/transpose_any_shape.bw" "$work/samples/"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$work/samples/cmake_project" -B "$work/demo" "${gen[@]}" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CUDA_COMPILER="$nvcc" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/demo" >"$work/build1.log" 2>&1 || { cat "$work/build1.log"; exit 1; }
grep -q "bankwise: transpose_any_shape.bw -> transpose_any_shape.cu" "$work/build1.log"
test -f "$work/demo/bankwise/transpose_demo/transpose_any_shape.cu"
test -x "$work/demo/transpose_demo"
cmake --build "$work/demo" >"$work/build2.log" 2>&1
if grep -q "bankwise: transpose_any_shape.bw" "$work/build2.log"; then
  echo "FAIL: an unchanged .bw was compiled again"; exit 1
fi
sleep 1 && touch "$work/samples/transpose_any_shape.bw"
cmake --build "$work/demo" >"$work/build3.log" 2>&1
grep -q "bankwise: transpose_any_shape.bw -> transpose_any_shape.cu" "$work/build3.log" || {
  echo "FAIL: a changed .bw was not compiled again"; cat "$work/build3.log"; exit 1; }
"$work/demo/transpose_demo" 33 65
echo "installed, found, built; rebuilt on a change only"
