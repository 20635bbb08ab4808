#!/usr/bin/env bash
# test.sh — build seektrace and run every test (unit and integration).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j"$(nproc)"
