// SPDX-License-Identifier: Apache-2.0
// The one Catch2 main shared by every suite (compiled once, linked into each).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
