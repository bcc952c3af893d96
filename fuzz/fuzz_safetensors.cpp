// SPDX-License-Identifier: Apache-2.0
// Fuzzes safetensors: the header JSON alone (paramsFromSafetensorsHeader) and the whole file as bytes
// (8-byte little-endian length, header, data) through the file reader, which must check the length
// against the file before it allocates.
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

std::filesystem::path scratchFile() {
  // One private folder per fuzzer process; no sibling config.json, so only the header is read.
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("shardscope-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                                  ("shardscope-fuzz-" + std::to_string(::getpid())));
    });
    return d;
  }();
  return dir / "input.safetensors";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    (void)paramsFromSafetensorsHeader(bytes, "fuzz");
  } catch (const Error&) {}
  const auto file = scratchFile();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  try {
    (void)loadSafetensors(file);
  } catch (const Error&) {}
  return 0;
}
