// SPDX-License-Identifier: Apache-2.0
// Typed errors of the core. Each kind names the Python exception class the reference raises in
// the same situation, so results (and the eval interface) compare one to one with JAX/eformer.
#pragma once

#include "shardscope/base/enum_names.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace shardscope {

enum class ErrorKind {
  ValueError,
  NotImplementedError,
  AssertionError,
  TypeError,
  KeyError,
  IOError,
  // jaxpp reads an unassigned local in one corner (ZeroBubble with one stage)
  UnboundLocalError
};

// The Python class name of each kind, as the eval interface prints it.
inline constexpr std::array<std::pair<std::string_view, ErrorKind>, 7> kErrorKindNames{{
    {"ValueError", ErrorKind::ValueError},
    {"NotImplementedError", ErrorKind::NotImplementedError},
    {"AssertionError", ErrorKind::AssertionError},
    {"TypeError", ErrorKind::TypeError},
    {"KeyError", ErrorKind::KeyError},
    {"OSError", ErrorKind::IOError},
    {"UnboundLocalError", ErrorKind::UnboundLocalError},
}};
std::string_view errorKindName(ErrorKind kind);

class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

private:
  ErrorKind kind_;
};

[[noreturn]] void throwValueError(const std::string& message);
[[noreturn]] void throwNotImplemented(const std::string& message);
[[noreturn]] void throwAssertion(const std::string& message);

} // namespace shardscope
