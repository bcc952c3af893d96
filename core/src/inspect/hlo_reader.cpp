// SPDX-License-Identifier: Apache-2.0
// The HLO text reader's scan (grammar: XLA's HloModule::ToString; docs/inspect.md):
//   module      := 'HloModule' name (',' key '=' value)* frame-tables? computation*
//   computation := ['ENTRY'] ['%']name ['(' params ')' '->' shape] '{' instruction* '}' [', execution_thread=".."']
//   instruction := ['ROOT'] ['%']name '=' shape opcode '(' operands ')' (',' key '=' value)*
// Newlines are whitespace: an instruction may span lines, and ends where no ',' follows a value.
#include "inspect/hlo_reader.hpp"

#include "inspect/inspect_parsers.hpp"
#include "shardscope/inspect/sdy_sharding.hpp"

namespace shardscope::inspect_detail {

HloReader::HloReader(std::string_view text, const InspectOptions& options)
    : c_(text, options.source_name), options_(options), groups_(nullptr, 0) {}

std::string_view HloReader::attr(std::string_view key) const {
  for (const auto& a : attrs_)
    if (a.key == key) return a.value;
  return {};
}

InspectResult HloReader::read() {
  out_.kind = InspectKind::Hlo;
  readHeader();
  if (options_.mesh) { // the caller's mesh wins over the module's
    mesh_ = options_.mesh;
    out_.meshes.insert(out_.meshes.begin(), *mesh_);
  }
  groups_ = GroupResolver(mesh_ ? &*mesh_ : nullptr, replicas_ * partitions_);
  skipFrameTables();
  for (c_.skipSpace(); !c_.atEnd(); c_.skipSpace()) readComputation();
  if (comps_.empty()) c_.fail("a computation after the HloModule line");
  finish();
  addDeviceOrderFlag(out_, groups_, mesh_ ? &*mesh_ : nullptr);
  return std::move(out_);
}

void HloReader::readHeader() {
  if (!c_.acceptWord("HloModule")) c_.fail("'HloModule' starting an HLO module");
  out_.module = std::string(c_.name(true));
  if (out_.module.empty()) c_.fail("the module name after HloModule");
  while (c_.accept(",")) {
    const std::string_view key = c_.name();
    if (key.empty()) c_.fail("a module attribute name");
    c_.expect("=", "'=' after the module attribute name");
    readModuleAttr(key, c_.hloValue());
  }
}

void HloReader::readModuleAttr(std::string_view key, std::string_view value) {
  const auto count = [&](const char* what) {
    return readAt(value, [&](TextCursor& c) { return c.integer(kMaxInspectDevices + 1, what); });
  };
  if (key == "replica_count")
    replicas_ = std::max<std::int64_t>(1, count("a replica count"));
  else if (key == "num_partitions")
    partitions_ = std::max<std::int64_t>(1, count("a partition count"));
  else if (key == "is_scheduled")
    scheduled_ = value == "true";
  else if (key == "frontend_attributes") {
    // xla.sdy.meshes="{mesh = #sdy.mesh<[\"a\"=2]>, ...}": Shardy's meshes kept through XLA.
    const auto at = value.find("xla.sdy.meshes=\"");
    if (at == std::string_view::npos) return;
    const std::size_t start = std::size_t(value.data() - c_.text().data()) + at + 15;
    const std::size_t saved = c_.pos();
    c_.seek(start);
    const std::string_view escaped = c_.quoted("the xla.sdy.meshes string");
    c_.seek(saved);
    const std::string meshes = unescapeString(escaped);
    TextCursor mc(meshes, c_.source(), c_.text(), start);
    readSdyMeshDict(mc, out_.meshes);
    for (const auto& m : out_.meshes)
      if (!mesh_ && !m.axes.empty()) mesh_ = m;
  }
}

void HloReader::skipFrameTables() {
  // FileNames / FunctionNames / FileLocations / StackFrames: numbered lines before the first
  // computation (HloModule::PrintStackFrameIndex).
  for (;;) {
    if (!c_.acceptWord("FileNames") && !c_.acceptWord("FunctionNames") && !c_.acceptWord("FileLocations") &&
        !c_.acceptWord("StackFrames"))
      return;
    while (isDigit(c_.next())) {
      const auto eol = c_.text().find('\n', c_.pos());
      c_.seek(eol == std::string_view::npos ? c_.text().size() : eol + 1);
    }
  }
}

void HloReader::readComputation() {
  Computation comp;
  comp.start = c_.pos();
  comp.entry = c_.acceptWord("ENTRY");
  comp.name = c_.name(true);
  if (comp.name.empty()) c_.fail("a computation ('[ENTRY] name {')");
  if (c_.next() == '(') c_.skipBalanced(false);
  if (c_.accept("->")) skipHloShape(c_);
  c_.expect("{", "'{' opening computation '" + std::string(comp.name.substr(0, 60)) + "'");
  shapes_.clear();
  if (!entryOnly_ && index_.count(comp.name))
    c_.failAt(comp.start, "computation '" + std::string(comp.name.substr(0, 60)) + "' is defined twice");
  while (!c_.accept("}")) {
    if (c_.atEnd()) c_.fail("'}' closing computation '" + std::string(comp.name.substr(0, 60)) + "'");
    readInstruction(comp);
  }
  if (c_.accept(",")) { // , execution_thread="..."
    if (c_.name().empty()) c_.fail("a computation attribute");
    c_.expect("=", "'='");
    c_.hloValue();
  }
  if (entryOnly_) return;
  index_.emplace(comp.name, comps_.size());
  comps_.push_back(std::move(comp));
}

void HloReader::readInstruction(Computation& comp) {
  const bool root = c_.acceptWord("ROOT");
  const std::size_t at = c_.pos();
  const std::string_view name = c_.name(true);
  if (name.empty()) c_.fail("an instruction ('name = shape opcode(...)') or '}'");
  c_.expect("=", "'=' after instruction name '" + std::string(name.substr(0, 60)) + "'");
  c_.skipSpace();
  const std::size_t shapeAt = c_.pos();
  skipHloShape(c_);
  const std::string_view shape = c_.text().substr(shapeAt, c_.pos() - shapeAt);
  const std::string_view opcode = c_.name();
  if (opcode.empty()) c_.fail("an opcode after the shape");
  if (c_.next() != '(') c_.fail("'(' after opcode '" + std::string(opcode.substr(0, 40)) + "'");
  const std::string_view operands = c_.skipBalanced(false);
  attrs_.clear();
  while (c_.accept(",")) {
    const std::string_view key = c_.name();
    if (key.empty()) c_.fail("an attribute name after ','");
    c_.expect("=", "'=' after attribute '" + std::string(key.substr(0, 40)) + "'");
    attrs_.push_back({key, c_.hloValue()});
  }
  if (!entryOnly_ && ++out_.instructions > kMaxInspectInstructions)
    c_.failAt(at, "more than " + std::to_string(kMaxInspectInstructions) + " instructions");
  if (!entryOnly_) shapes_.insert_or_assign(name, shape);
  onInstruction(comp, name, root, shape, opcode, operands);
}

void HloReader::onInstruction(Computation& comp, std::string_view name, bool root, std::string_view shape,
                              std::string_view opcode, std::string_view operands) {
  const bool entry = comp.entry || entryOnly_;
  if (entry && opcode == "parameter") {
    const std::int64_t index = readAt(operands, [](TextCursor& c) {
      c.expect("(", "'('");
      return c.integer(kMaxInspectInstructions, "a parameter number");
    });
    params_.push_back({index, name, shape, attr("sharding"), attr("metadata")});
  }
  if (entry && root) root_ = Value{0, name, shape, attr("sharding"), attr("metadata")};
  if (entryOnly_) return;
  const HloOpInfo info = classifyHloOpcode(opcode);
  if (info.cls == HloOpClass::Unknown) skipped_.add(opcode);
  if (opcode == "dot" || opcode == "convolution") {
    ++flopOps_;
    const auto flops = instructionFlops(opcode, shape, operands);
    if (flops)
      comp.flops += *flops;
    else
      ++flopOpsUnknown_;
  }
  if (info.cls == HloOpClass::Collective || info.cls == HloOpClass::CollectiveStart)
    onCollective(comp, name, shape, opcode);
  addCalls(comp, opcode);
}

void HloReader::addCalls(Computation& comp, std::string_view opcode) {
  static constexpr std::string_view kCallAttrs[] = {"calls",
                                                    "to_apply",
                                                    "body",
                                                    "condition",
                                                    "branch_computations",
                                                    "true_computation",
                                                    "false_computation",
                                                    "called_computations",
                                                    "select",
                                                    "scatter"};
  for (const auto& a : attrs_) {
    bool isCall = false;
    for (const auto k : kCallAttrs) isCall = isCall || a.key == k;
    if (!isCall) continue;
    Call call;
    call.async = opcode == "async-start";
    if (opcode == "while" && (a.key == "body" || a.key == "condition")) {
      const auto n = knownTripCount(attr("backend_config"));
      call.factor = n.value_or(1);
      call.unknown_trips = !n;
    }
    // One name, or a {a, b} list of them.
    std::string_view v = a.value;
    std::size_t i = 0;
    while (i < v.size()) {
      while (i < v.size() && !isNameChar(v[i])) ++i;
      const std::size_t s = i;
      while (i < v.size() && isNameChar(v[i])) ++i;
      if (i > s) {
        call.callee = v.substr(s, i - s);
        call.callee_pos = std::size_t(v.data() - c_.text().data()) + s;
        comp.calls.push_back(call);
      }
    }
  }
}

void HloReader::onCollective(Computation& comp, std::string_view name, std::string_view shapeText,
                             std::string_view opcode) {
  const HloOpInfo info = classifyHloOpcode(opcode);
  InspectCollective c;
  c.name = std::string(name);
  c.computation = std::string(comp.name);
  c.op = info.op;
  c.async = info.cls == HloOpClass::CollectiveStart;
  if (const auto id = attr("channel_id"); !id.empty())
    c.channel_id = readAt(id, [](TextCursor& t) { return t.integer(std::int64_t{1} << 62, "a channel id"); });
  c.op_name = metadataOpName(attr("metadata"));
  const HloShape shape = readAt(shapeText, [](TextCursor& t) { return readHloShape(t); });
  // An async start's tuple is (operands, results, context...): the payload is element {1}; an
  // all-reduce-start returns its results directly.
  const HloShape* payload = &shape;
  if (c.async && c.op != InspectCollectiveOp::AllReduce && shape.is_tuple && shape.elements.size() >= 2)
    payload = &shape.elements[1];
  const auto leaves = payload->leaves();
  std::int64_t bytes = 0;
  bool dynamic = false;
  for (const auto* leaf : leaves) {
    const auto b = leaf->bytes();
    dynamic = dynamic || !b;
    if (b && __builtin_add_overflow(bytes, *b, &bytes))
      c_.failAt(std::size_t(shapeText.data() - c_.text().data()), "a payload past 2^63 bytes");
  }
  c.shape_text = payload->text();
  c.arrays = std::int64_t(leaves.size());
  if (!leaves.empty()) {
    c.shape = leaves.front()->dims;
    c.dtype = leaves.front()->type.dtype;
  }
  resolveGroups(c);
  setCollectiveBytes(c, bytes, c.group_count > 0 || c.op != InspectCollectiveOp::CollectivePermute);
  if (dynamic) c.note = (c.note.empty() ? "" : c.note + "; ") + "a dynamic dimension: its bytes are not counted";
  comp.collectives.push_back(sites_.size());
  sites_.push_back(std::move(c));
}

void HloReader::resolveGroups(InspectCollective& c) {
  if (c.op == InspectCollectiveOp::CollectivePermute) {
    const auto pairsText = attr("source_target_pairs");
    if (pairsText.empty()) {
      c.note = "no source_target_pairs";
      return;
    }
    const auto pairs = readAt(pairsText, [](TextCursor& t) { return readSourceTargetPairs(t); });
    const ResolvedGroups r = groups_.resolvePairs(pairs);
    c.group_size = r.group_size;
    c.group_count = 0;
    for (const auto& p : pairs) c.group_count += p.source != p.target; // self pairs move nothing
    c.axes = r.axes;
    c.note = r.note;
    return;
  }
  std::string_view text = attr("replica_groups");
  const bool flattened = attr("use_global_device_ids") == "true";
  const ResolvedGroups* r = groups_.find(text.empty() ? "{}" : text);
  if (!r) {
    const DeviceGroups g = text.empty() ? DeviceGroups{true, 0, {}, false, {}}
                                        : readAt(text, [](TextCursor& t) { return readReplicaGroups(t); });
    // Iota groups expand a few characters into up to 2^24 ids: the module's distinct group lists
    // together are bounded, so no text makes the reader expand without end.
    groupIds_ += std::int64_t(g.ids.size());
    if (groupIds_ > kMaxGroupIds)
      c_.failAt(std::size_t(text.data() - c_.text().data()),
                "the module's distinct replica groups name more than " + std::to_string(kMaxGroupIds) + " devices");
    r = &groups_.add(text.empty() ? "{}" : text, g);
  }
  c.group_size = r->group_size;
  c.group_count = r->group_count;
  c.axes = r->axes;
  c.note = r->note;
  if (replicas_ > 1 && partitions_ > 1 && !flattened && mesh_) {
    c.axes.reset();
    c.note = "replica and partition ids are mixed (replica_count and num_partitions above 1): axes not mapped";
  }
}

std::string metadataOpName(std::string_view metadata) {
  const auto at = metadata.find("op_name=\"");
  if (at == std::string_view::npos) return "";
  std::size_t i = at + 9;
  const std::size_t start = i;
  while (i < metadata.size() && metadata[i] != '"') i += metadata[i] == '\\' ? 2 : 1;
  return unescapeString(metadata.substr(start, std::min(i, metadata.size()) - start));
}

std::optional<std::int64_t> knownTripCount(std::string_view config) {
  const auto at = config.find("\"known_trip_count\"");
  if (at == std::string_view::npos) return std::nullopt;
  const auto n = config.find("\"n\"", at);
  if (n == std::string_view::npos) return std::nullopt;
  std::size_t i = n + 3;
  while (i < config.size() && (isSpace(config[i]) || config[i] == ':' || config[i] == '"')) ++i;
  std::int64_t value = 0;
  const std::size_t start = i;
  for (; i < config.size() && isDigit(config[i]); ++i) {
    value = value * 10 + (config[i] - '0');
    if (value > (std::int64_t{1} << 40)) return std::nullopt;
  }
  if (i == start) return std::nullopt;
  return value;
}

} // namespace shardscope::inspect_detail

namespace shardscope {

InspectResult readHloModule(std::string_view text, const InspectOptions& options) {
  return inspect_detail::HloReader(text, options).read();
}

} // namespace shardscope
