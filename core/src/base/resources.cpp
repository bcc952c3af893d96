// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/resources.hpp"
#include "shardscope/base/build_config.hpp"

#include "shardscope/base/errors.hpp"

#include <cstdlib>
#include <system_error>

namespace shardscope {

namespace fs = std::filesystem;

namespace {
fs::path executableDir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}
} // namespace

fs::path resourceDir() {
  std::string tried;
  auto usable = [&](const fs::path& p) {
    std::error_code ec;
    tried += (tried.empty() ? "" : ", ") + p.string();
    return !p.empty() && fs::is_directory(p, ec);
  };
  if (const char* env = std::getenv("SHARDSCOPE_RESOURCES"); env && *env && usable(env)) return env;
  if (const fs::path exe = executableDir(); !exe.empty()) {
    const fs::path installed = exe / ".." / "share" / "shardscope" / "resources";
    if (usable(installed)) return fs::weakly_canonical(installed);
  }
  if (usable(build::kSourceResources)) return build::kSourceResources;
  throw Error(ErrorKind::IOError, "cannot find Shardscope's resources folder (looked in: " + tried +
                                      "); set SHARDSCOPE_RESOURCES to its path");
}

fs::path resourcePath(const std::string& relative) { return resourceDir() / relative; }

} // namespace shardscope
