// SPDX-License-Identifier: Apache-2.0
// shardscope-bench: Google Benchmark entry point; benchmarks live in bench_*.cpp beside it.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
