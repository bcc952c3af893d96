#!/bin/sh
# Copies the reference cases (produced by running the real JAX, eformer and jaxpp code) from the
# shared folder next to the repository into tests/data/golden/, where the tests read them.
#   tests/data/refresh-golden.sh [SHARED_DIR]     (default: ../shared from the repository root)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${1:-"$root/../shared"}
for f in jax-mesh-utils-public.json eformer-jaxpp-public.json jaxpp-schedules-public.json; do
  cp "$shared/golden/$f" "$root/tests/data/golden/$f"
  echo "refreshed tests/data/golden/$f"
done
