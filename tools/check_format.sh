#!/usr/bin/env bash
# Fails when a C++/CUDA source of the project is not clang-formatted.
#   tools/check_format.sh            (run from anywhere inside the repo)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find common grader labs solutions -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' | sort)
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "check_format: the files above are not formatted; run: clang-format -i <file>" >&2
  exit 1
fi
