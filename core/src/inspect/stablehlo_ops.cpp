// SPDX-License-Identifier: Apache-2.0
// Ops of a StableHLO module the inspect reader reads in full: collectives (StableHLO's, in manual
// computations and partitioned modules, with explicit groups; Shardy's sdy.all_gather & co. with
// mesh axes and global shapes), sdy.manual_computation (its mesh for the collectives inside) and
// stablehlo.while (its regions; the trip count is stablehlo_loops.cpp's).
#include "inspect/stablehlo_reader.hpp"

#include "inspect/inspect_parsers.hpp"
#include "shardscope/inspect/sdy_sharding.hpp"

namespace shardscope::inspect_detail {

namespace {

std::optional<InspectCollectiveOp> stablehloCollective(std::string_view op) {
  const auto dot = op.find('.');
  const std::string_view dialect = op.substr(0, dot), name = op.substr(dot + 1);
  if (dialect != "stablehlo" && dialect != "mhlo") return std::nullopt;
  if (name == "all_gather") return InspectCollectiveOp::AllGather;
  if (name == "all_reduce") return InspectCollectiveOp::AllReduce;
  if (name == "reduce_scatter") return InspectCollectiveOp::ReduceScatter;
  if (name == "all_to_all") return InspectCollectiveOp::AllToAll;
  if (name == "collective_permute") return InspectCollectiveOp::CollectivePermute;
  if (name == "collective_broadcast") return InspectCollectiveOp::CollectiveBroadcast;
  return std::nullopt;
}

std::optional<InspectCollectiveOp> sdyCollective(std::string_view op) {
  if (op == "sdy.all_gather") return InspectCollectiveOp::AllGather;
  if (op == "sdy.all_reduce") return InspectCollectiveOp::AllReduce;
  if (op == "sdy.reduce_scatter") return InspectCollectiveOp::ReduceScatter;
  if (op == "sdy.all_to_all") return InspectCollectiveOp::AllToAll;
  if (op == "sdy.collective_permute") return InspectCollectiveOp::CollectivePermute;
  return std::nullopt;
}

// Past the op's operands and attributes to its ':' (the first at bracket depth 0); returns the text
// in between. A region ends the search (the op has no type then): refused.
std::string_view toTypeColon(TextCursor& c) {
  const std::size_t start = c.pos();
  for (;;) {
    const char ch = c.next();
    if (ch == ':') break;
    if (ch == '\0' || ch == '}') c.fail("':' and the op's types");
    if (ch == '(' || ch == '[' || ch == '{' || ch == '<' || ch == '"')
      c.skipBalanced(true);
    else
      c.advance();
  }
  const std::string_view between = c.text().substr(start, c.pos() - start);
  c.advance();
  return between;
}

// One type at the cursor: "tensor<...>", "!stablehlo.token", "tuple<...>".
std::string_view readTypeAt(TextCursor& c) {
  c.skipSpace();
  const std::size_t at = c.pos();
  c.accept("!");
  if (c.name().empty()) c.fail("a type");
  if (c.peek() == '<') c.skipBalanced(true);
  return c.text().substr(at, c.pos() - at);
}

// The result types of `: (operand types) -> result types` or of the short `: type` form.
std::vector<std::string_view> resultTypes(TextCursor& c) {
  std::vector<std::string_view> types;
  const auto list = [&] {
    c.expect("(", "'('");
    if (c.accept(")")) return;
    do {
      if (types.size() >= 4096) c.fail("at most 4096 types");
      types.push_back(readTypeAt(c));
    } while (c.accept(","));
    c.expect(")", "',' or ')' in a type list");
  };
  if (c.next() != '(') {
    types.push_back(readTypeAt(c));
    return types;
  }
  list();
  if (!c.accept("->")) return types; // "(a, b)" without an arrow: the types themselves
  types.clear();
  if (c.next() == '(')
    list();
  else
    types.push_back(readTypeAt(c));
  return types;
}

// Bytes and the first array of tensor types; nullopt bytes with a dynamic dimension.
struct TypesPayload {
  std::optional<std::int64_t> bytes = 0;
  Shape shape;
  InspectElementType type;
  std::string dtype, text;
  std::int64_t arrays = 0;
};
TypesPayload payloadOf(TextCursor& c, const std::vector<std::string_view>& types) {
  TypesPayload p;
  for (const auto t : types) {
    if (!t.starts_with("tensor<")) continue;
    MlirTensorType tensor;
    try {
      tensor = parseMlirTensorType(t.substr(7, t.size() - 8));
    } catch (const Error& e) {
      c.failAt(std::size_t(t.data() - c.text().data()), e.what());
    }
    std::int64_t n = 1;
    bool dynamic = false;
    for (const auto d : tensor.dims) {
      dynamic = dynamic || d < 0;
      if (d >= 0 && (__builtin_mul_overflow(n, d, &n) || n > (std::int64_t{1} << 62)))
        c.failAt(std::size_t(t.data() - c.text().data()), "a tensor of more than 2^62 elements");
    }
    if (dynamic)
      p.bytes.reset();
    else if (p.bytes)
      *p.bytes += inspectBytes(tensor.type, n);
    if (p.arrays++ == 0) {
      p.shape = tensor.dims;
      p.type = tensor.type;
      p.dtype = tensor.type.dtype;
    }
    p.text += (p.text.empty() ? "" : ", ") + std::string(t);
  }
  if (p.arrays > 1) p.text = "(" + p.text + ")";
  return p;
}

// `key = value` inside an op's text: the cursor just after '=' (nullopt when the key is absent).
std::optional<std::size_t> valueOf(std::string_view between, std::string_view key, std::string_view text) {
  std::size_t at = between.find(key);
  while (at != std::string_view::npos) {
    std::size_t i = at + key.size();
    while (i < between.size() && isSpace(between[i])) ++i;
    if (i < between.size() && between[i] == '=') return std::size_t(between.data() - text.data()) + i + 1;
    at = between.find(key, at + 1);
  }
  return std::nullopt;
}

} // namespace

// The SSA name an op's result gets ("%3" of "%3 = stablehlo.all_gather ..."), else "#<index>".
std::string resultName(std::string_view text, std::size_t op, std::size_t index) {
  std::size_t i = op;
  while (i > 0 && isSpace(text[i - 1])) --i;
  if (i > 0 && text[i - 1] == '=') {
    std::size_t end = i - 1;
    while (end > 0 && isSpace(text[end - 1])) --end;
    std::size_t begin = end;
    while (begin > 0 && (isNameChar(text[begin - 1]) || text[begin - 1] == ':')) --begin;
    if (begin > 0 && text[begin - 1] == '%' && end > begin) return std::string(text.substr(begin - 1, end - begin + 1));
  }
  std::string fallback(1, '#');
  fallback += std::to_string(index);
  return fallback;
}

void StableHloReader::onOp(std::string_view op, std::size_t at) {
  if (++out_.instructions > kMaxInspectInstructions)
    c_.failAt(at, "more than " + std::to_string(kMaxInspectInstructions) + " ops");
  if (!knownMlirDialect(op)) {
    skipped_.add(op);
    return;
  }
  if (op == "sdy.manual_computation")
    readManualComputation();
  else if (op == "stablehlo.while" || op == "mhlo.while")
    readWhile();
  else if (op == "stablehlo.constant")
    readConstant(at);
  else if (op == "sdy.sharding_constraint" || op == "sdy.reshard")
    readConstraint(op, at);
  else if (stablehloCollective(op))
    readStableHloCollective(op, at);
  else if (sdyCollective(op))
    readSdyCollective(op, at);
  else if (!regions_.empty() && !regions_.back().manual && regions_.back().depth == depth_)
    readLoopOp(op, at); // an op of a while loop's cond or body itself
}

void StableHloReader::readManualComputation() {
  // sdy.manual_computation(%ops) in_shardings=[...] out_shardings=[...] manual_axes={...} (%args) {
  if (c_.next() == '(') c_.skipBalanced(false);
  std::string mesh;
  while (isAlpha(c_.next())) {
    const std::string_view key = c_.name();
    c_.expect("=", "'=' after " + std::string(key));
    const std::string_view value = c_.skipBalanced(true);
    if ((key == "in_shardings" || key == "out_shardings") && mesh.empty()) {
      const auto at = value.find('@');
      if (at != std::string_view::npos) {
        std::size_t end = at + 1;
        while (end < value.size() && isNameChar(value[end])) ++end;
        mesh = std::string(value.substr(at + 1, end - at - 1));
      }
    }
  }
  if (c_.next() == '(') c_.skipBalanced(false); // the body's block arguments (local types)
  regions_.push_back({depth_ + 1, true, mesh});
}

void StableHloReader::readConstraint(std::string_view op, std::size_t at) {
  // %r = sdy.sharding_constraint %x <@mesh, [{"a"}, {}]> : tensor<8x8xf32>  (sdy.reshard alike)
  RawValue v;
  v.function = function_;
  v.index = std::int64_t(constraints_.size());
  v.name = resultName(c_.text(), at, constraints_.size());
  if (c_.next() == '%') {
    c_.advance();
    c_.name();
  }
  c_.skipSpace();
  const std::size_t start = c_.pos();
  readSdyShardingBody(c_);
  v.sdy = c_.text().substr(start, c_.pos() - start);
  c_.expect(":", "':' and the type after " + std::string(op) + "'s sharding");
  c_.skipSpace();
  v.type_pos = c_.pos();
  v.type = readTypeAt(c_);
  if (constraints_.size() < (std::size_t{1} << 20)) {
    constraints_.push_back(std::move(v));
    constraintOps_.push_back(op);
  }
}

const InspectMesh* StableHloReader::meshNamed(std::string_view name) const {
  for (const auto& m : meshes_)
    if (m.name == name) return &m;
  return nullptr;
}

const InspectMesh* StableHloReader::currentMesh() const {
  for (auto it = regions_.rbegin(); it != regions_.rend(); ++it)
    if (it->manual && !it->mesh.empty())
      if (const InspectMesh* m = meshNamed(it->mesh)) return m;
  for (const auto& m : meshes_)
    if (!m.axes.empty()) return &m;
  return options_.mesh ? &*options_.mesh : nullptr;
}

GroupResolver& StableHloReader::resolverFor(const InspectMesh* mesh) {
  for (auto& r : resolvers_)
    if ((!mesh && !r.mesh) || (mesh && r.mesh && *r.mesh == *mesh)) return *r.groups;
  MeshGroups r;
  if (mesh) r.mesh = std::make_unique<InspectMesh>(*mesh);
  r.groups = std::make_unique<GroupResolver>(r.mesh.get(), partitions_ * std::max<std::int64_t>(1, replicas_));
  resolvers_.push_back(std::move(r));
  return *resolvers_.back().groups;
}

void StableHloReader::finishCollective(InspectCollective& c, std::int64_t payload, bool moves) {
  c.computation = function_;
  setCollectiveBytes(c, payload, moves);
  if (out_.collectives.size() < std::size_t(kMaxInspectInstructions)) out_.collectives.push_back(std::move(c));
}

void StableHloReader::readStableHloCollective(std::string_view op, std::size_t at) {
  InspectCollective c;
  c.op = *stablehloCollective(op);
  c.name = resultName(c_.text(), at, out_.collectives.size());
  const std::string_view between = toTypeColon(c_);
  const TypesPayload payload = payloadOf(c_, resultTypes(c_));
  c.shape = payload.shape;
  c.dtype = payload.dtype;
  c.shape_text = payload.text;
  c.arrays = payload.arrays;
  // channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>: the handle inside the brackets.
  const auto channel = between.find("channel_handle");
  const auto open = channel == std::string_view::npos ? channel : between.find('<', channel);
  if (const auto h =
          open == std::string_view::npos ? std::nullopt : valueOf(between.substr(open), "handle", c_.text())) {
    TextCursor t(c_.text(), c_.source());
    t.seek(*h);
    if (isDigit(t.next())) c.channel_id = t.integer(std::int64_t{1} << 62, "a channel handle");
  }
  const InspectMesh* mesh = currentMesh();
  GroupResolver& groups = resolverFor(mesh);
  bool moves = true;
  TextCursor t(c_.text(), c_.source());
  if (c.op == InspectCollectiveOp::CollectivePermute) {
    std::vector<SourceTargetPair> pairs;
    if (const auto v = valueOf(between, "source_target_pairs", c_.text())) {
      t.seek(*v);
      const DeviceGroups rows = readDenseGroups(t);
      for (std::size_t i = 0; rows.group_size == 2 && i + 1 < rows.ids.size(); i += 2)
        pairs.push_back({rows.ids[i], rows.ids[i + 1]});
    }
    const ResolvedGroups r = groups.resolvePairs(pairs);
    c.group_size = r.group_size;
    for (const auto& p : pairs) c.group_count += p.source != p.target;
    c.axes = r.axes;
    c.note = r.note;
    moves = c.group_count > 0;
  } else if (const auto v = valueOf(between, "replica_groups", c_.text())) {
    t.seek(*v);
    t.skipSpace();
    const std::size_t start = t.pos();
    if (t.startsWith("dense")) {
      const DeviceGroups g = readDenseGroups(t);
      const std::string_view key = c_.text().substr(start, t.pos() - start);
      const ResolvedGroups* r = groups.find(key);
      if (!r) r = &groups.add(key, g);
      c.group_size = r->group_size;
      c.group_count = r->group_count;
      c.axes = r->axes;
      c.note = r->note;
    } else {
      c.note = "replica groups by mesh axes (#stablehlo.replica_group_mesh_axes) are not read";
    }
  }
  if (!payload.bytes) c.note += std::string(c.note.empty() ? "" : "; ") + "a dynamic dimension: bytes not counted";
  finishCollective(c, payload.bytes.value_or(0), moves);
}

void StableHloReader::readSdyCollective(std::string_view op, std::size_t at) {
  // sdy.all_gather [{"y"}, {}] %x out_sharding=<@mesh, [...]> : tensor<...>  (shapes are global)
  InspectCollective c;
  c.op = *sdyCollective(op);
  c.name = resultName(c_.text(), at, out_.collectives.size());
  if (c.op == InspectCollectiveOp::AllReduce || c.op == InspectCollectiveOp::ReduceScatter)
    if (isAlpha(c_.next())) c_.name(); // a reduction kind
  std::vector<SdyAxisRef> axes;
  bool open = false;
  if (c_.next() == '{') {
    axes = readSdyAxisList(c_, false, &open);
  } else if (c_.accept("[")) {
    if (!c_.accept("]")) {
      do {
        for (const auto& r : readSdyAxisList(c_, false, &open)) axes.push_back(r);
        if (c_.accept(":")) { // all_to_all: {axes}: src->tgt
          c_.integer(kMaxRank, "a source dimension");
          c_.expect("->", "'->'");
          c_.integer(kMaxRank, "a target dimension");
        }
      } while (c_.accept(","));
      c_.expect("]", "',' or ']'");
    }
  }
  if (c_.next() == '%') {
    c_.advance();
    c_.name();
  }
  if (!c_.acceptWord("out_sharding")) c_.fail("out_sharding=<...>");
  c_.expect("=", "'=' after out_sharding");
  const SdySharding out = readSdyShardingBody(c_);
  toTypeColon(c_);
  const auto types = resultTypes(c_);
  const InspectMesh* mesh = out.inline_mesh ? &*out.inline_mesh : meshNamed(out.mesh_name);
  if (!mesh) c_.failAt(at, "sharding names mesh '@" + out.mesh_name + "', which the module does not define");
  // Group: the product of the named (sub-)axes; the payload: the result's shard under out_sharding.
  c.group_size = 1;
  bool whole = true;
  std::vector<std::string> names;
  try {
    for (const auto& r : axes) {
      const int k = mesh->axisIndex(r.name);
      if (k < 0) throwValueError("axis '" + r.name + "' is not in mesh " + mesh->describe());
      c.group_size *= r.isSubAxis() ? r.size : mesh->axes[std::size_t(k)].size;
      if (c.group_size > kMaxInspectDevices) throwValueError("the axes hold more than 2^24 devices");
      whole = whole && !r.isSubAxis();
    }
    for (const auto& a : mesh->axes)
      for (const auto& r : axes)
        if (r.name == a.name && !r.isSubAxis()) names.push_back(a.name);
    c.group_count = c.group_size > 0 ? mesh->deviceCount() / c.group_size : 0;
    const TypesPayload global = payloadOf(c_, types);
    const SdyPlacement local = sdyPlacement(out, *mesh, global.shape);
    c.shape = local.local_shape;
    c.dtype = global.dtype;
    c.shape_text = global.text;
    std::optional<std::int64_t> bytes = 0;
    std::int64_t elements = 1;
    for (const auto d : local.local_shape) {
      if (d < 0)
        bytes.reset();
      else
        elements *= d; // at most the global element count, checked by payloadOf
    }
    if (bytes) bytes = inspectBytes(global.type, elements);
    c.axes = whole ? std::optional(names) : std::nullopt;
    if (!whole) {
      std::string parts;
      for (const auto& r : axes) parts += (parts.empty() ? "" : ", ") + r.text();
      c.note = "the collective runs over part of an axis: " + parts;
    }
    if (c.op == InspectCollectiveOp::CollectivePermute) {
      c.axes.reset();
      c.group_size = 0;
      c.note = "sdy.collective_permute: the pairs follow from the operand's and the result's sharding";
    }
    finishCollective(c, bytes.value_or(0), true);
  } catch (const Error& e) {
    c_.failAt(at, e.what());
  }
}

} // namespace shardscope::inspect_detail
