// SPDX-License-Identifier: Apache-2.0
// Internal: the HLO module reader. One pass over the text (hlo_reader.cpp) records computations,
// the calls between them, collectives, the ENTRY parameters and ROOT; the second step
// (hlo_module.cpp) walks the call graph from ENTRY to multiply trip counts and builds the arguments.
// Nothing per instruction is kept but views into the text.
#pragma once

#include "inspect/collective_build.hpp"
#include "inspect/text_cursor.hpp"
#include "shardscope/inspect/hlo_shape.hpp"
#include "shardscope/inspect/inspect.hpp"
#include "shardscope/sharding/hlo_sharding.hpp"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace shardscope::inspect_detail {

class HloReader {
public:
  HloReader(std::string_view text, const InspectOptions& options);
  InspectResult read();

  struct Attr {
    std::string_view key, value;
  };
  struct Call {
    std::size_t callee_pos = 0; // where the callee's name is written (for messages)
    std::string_view callee;
    std::int64_t factor = 1;    // executions per caller execution (a while body: its trip count)
    bool unknown_trips = false; // a while loop without known_trip_count
    bool async = false;         // async-start ... calls=
  };
  struct Computation {
    std::string_view name;
    std::size_t start = 0; // offset of its header
    bool entry = false;
    std::vector<Call> calls;
    std::vector<std::size_t> collectives; // into sites_
    double flops = 0;                     // its dots' and convolutions' (hlo_flops.cpp), one execution
  };
  struct Value { // an ENTRY parameter or the ROOT, resolved at the end
    std::int64_t index = 0;
    std::string_view name, shape, sharding, op_name;
  };

private:
  TextCursor c_;
  const InspectOptions& options_;
  InspectResult out_;
  std::optional<InspectMesh> mesh_;
  std::int64_t replicas_ = 1, partitions_ = 1;
  bool scheduled_ = false;
  std::vector<Computation> comps_;
  std::unordered_map<std::string_view, std::size_t> index_;
  std::vector<InspectCollective> sites_;
  std::vector<Value> params_;
  std::optional<Value> root_;
  std::vector<Attr> attrs_; // the current instruction's attributes
  GroupResolver groups_;
  SkippedOps skipped_;
  bool entryOnly_ = false; // re-reading the last computation as ENTRY (no ENTRY keyword anywhere)
  std::unordered_map<std::string_view, std::string_view> shapes_; // the current computation's values
  std::int64_t groupIds_ = 0;                                     // ids of the distinct replica group lists read so far
  static constexpr std::int64_t kMaxGroupIds = std::int64_t{1} << 26;
  std::int64_t flopOps_ = 0, flopOpsUnknown_ = 0; // dots and convolutions: counted, shapes not known

  // hlo_reader.cpp
  void readHeader();
  void readModuleAttr(std::string_view key, std::string_view value);
  void skipFrameTables();
  void readComputation();
  void readInstruction(Computation& comp);
  void onInstruction(Computation& comp, std::string_view name, bool root, std::string_view shape,
                     std::string_view opcode, std::string_view operands);
  void onCollective(Computation& comp, std::string_view name, std::string_view shape, std::string_view opcode);
  void resolveGroups(InspectCollective& c);
  void addCalls(Computation& comp, std::string_view opcode);
  std::string_view attr(std::string_view key) const;
  // Runs `read` on a cursor at `value` (a view into the text), so errors name its line and column.
  template <class Read>
  auto readAt(std::string_view value, Read read) const {
    TextCursor at(c_.text(), c_.source());
    at.seek(std::size_t(value.data() - c_.text().data()));
    return read(at);
  }

  // hlo_flops.cpp
  std::string_view operandShape(std::string_view operand) const;
  std::optional<double> instructionFlops(std::string_view opcode, std::string_view shape,
                                         std::string_view operands) const;

  // hlo_module.cpp
  void finish();
  void addFlops(const std::vector<std::int64_t>& mult);
  std::vector<std::int64_t> multiplicities(std::size_t entry, std::vector<char>& unknownTrips) const;
  InspectArgument arrayArgument(const HloArrayShape& a, const std::optional<HloSharding>& sharding) const;
  InspectArgument valueArgument(const Value& v) const;
  void addResults();
};

// Opcode classes (hlo_opcodes.cpp).
enum class HloOpClass { Known, Collective, CollectiveStart, Unknown };
struct HloOpInfo {
  HloOpClass cls = HloOpClass::Unknown;
  InspectCollectiveOp op = InspectCollectiveOp::AllReduce;
};
HloOpInfo classifyHloOpcode(std::string_view opcode);

// "op_name" of a metadata={...} value, unescaped ("" when absent).
std::string metadataOpName(std::string_view metadata);
// The n of backend_config={"known_trip_count":{"n":"80"}} (nullopt when absent).
std::optional<std::int64_t> knownTripCount(std::string_view backendConfig);

} // namespace shardscope::inspect_detail
