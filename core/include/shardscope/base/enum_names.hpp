// SPDX-License-Identifier: Apache-2.0
// One name table per enum: a constexpr array of (name, value) pairs beside the enum, read both
// ways by these two helpers, so an enum's spelling lives in one place for code, JSON, CLI and UI.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace shardscope {

// The name as the workspace, the CLI and JSON answers spell it.
template <class Enum, std::size_t N>
constexpr std::string_view nameOf(Enum value, const std::array<std::pair<std::string_view, Enum>, N>& table) {
  for (const auto& [name, v] : table)
    if (v == value) return name;
  return table[0].first;
}
template <class Enum, std::size_t N>
constexpr std::optional<Enum> parseName(std::string_view text,
                                        const std::array<std::pair<std::string_view, Enum>, N>& table) {
  for (const auto& [name, v] : table)
    if (name == text) return v;
  return std::nullopt;
}

} // namespace shardscope
