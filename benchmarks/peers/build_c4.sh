#!/usr/bin/env bash
# Builds ChristopheSteininger/c4 for benchmarks/c4_start.py --c4: the snapshot measured in
# BENCHMARKS.md, two threads (as qarena's search), its default 1 GiB table, and our driver
# (c4_solve_moves.cpp: solves the position after a column string, prints one JSON line; and
# c4_decide.cpp for benchmarks/c4_decisions.py --c4: every move of positions read from stdin).
# Usage: benchmarks/peers/build_c4.sh DIR   (then --c4 DIR/build/solve_moves)
set -euo pipefail
dir=${1:?usage: build_c4.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
git clone -q "${C4_REPO:-https://github.com/ChristopheSteininger/c4}" "$dir/src"
git -C "$dir/src" checkout -q 80baa53
sed -i 's/^inline constexpr int NUM_THREADS = 0;/inline constexpr int NUM_THREADS = 2;/' "$dir/src/src/solver/settings.h"
grep -q 'NUM_THREADS = 2;' "$dir/src/src/solver/settings.h"
cat >> "$dir/src/CMakeLists.txt" <<CMAKE

add_executable(solve_moves "$here/c4_solve_moves.cpp")
target_link_libraries(solve_moves PRIVATE solver)
target_include_directories(solve_moves PRIVATE "\${CMAKE_SOURCE_DIR}/src")
add_executable(c4_decide "$here/c4_decide.cpp")
target_link_libraries(c4_decide PRIVATE solver)
target_include_directories(c4_decide PRIVATE "\${CMAKE_SOURCE_DIR}/src")
CMAKE
cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir/build" --target solve_moves c4_decide -j 2 >/dev/null
echo "built $dir/build/solve_moves and $dir/build/c4_decide"
