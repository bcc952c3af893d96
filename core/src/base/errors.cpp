// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/errors.hpp"

namespace shardscope {

std::string_view errorKindName(ErrorKind kind) { return nameOf(kind, kErrorKindNames); }

void throwValueError(const std::string& message) { throw Error(ErrorKind::ValueError, message); }
void throwNotImplemented(const std::string& message) { throw Error(ErrorKind::NotImplementedError, message); }
void throwAssertion(const std::string& message) { throw Error(ErrorKind::AssertionError, message); }

} // namespace shardscope
