// SPDX-License-Identifier: Apache-2.0
// Typed errors of the core. Each kind names the Python exception class the reference raises in
// the same situation, so results (and the eval interface) compare one to one with JAX/eformer.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

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

// The Python class name of a kind ("ValueError", ...), as the eval interface prints it.
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
