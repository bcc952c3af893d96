// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/errors.hpp"

namespace shardscope {

std::string_view errorKindName(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::ValueError:
    return "ValueError";
  case ErrorKind::NotImplementedError:
    return "NotImplementedError";
  case ErrorKind::AssertionError:
    return "AssertionError";
  case ErrorKind::TypeError:
    return "TypeError";
  case ErrorKind::KeyError:
    return "KeyError";
  case ErrorKind::IOError:
    return "OSError";
  case ErrorKind::UnboundLocalError:
    return "UnboundLocalError";
  }
  return "Error";
}

void throwValueError(const std::string& message) { throw Error(ErrorKind::ValueError, message); }
void throwNotImplemented(const std::string& message) { throw Error(ErrorKind::NotImplementedError, message); }
void throwAssertion(const std::string& message) { throw Error(ErrorKind::AssertionError, message); }

} // namespace shardscope
