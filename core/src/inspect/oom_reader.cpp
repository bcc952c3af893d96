// SPDX-License-Identifier: Apache-2.0
// XLA's out-of-memory reports (line grammars in docs/inspect.md): the TPU compiler's report
// ("Ran out of memory in memory space hbm. Used X of Y hbm. Exceeded hbm capacity by Z." then the
// usage and program-requirement blocks and "Largest program allocations"), its one-line forms, the
// TPU runtime's ("Attempting to allocate", "Allocation (size=N) would exceed memory"), and the GPU's
// (BufferAssignment OOM Debugging, the BFC allocator's summary). Reports come inside logs, so every
// phrase is looked for anywhere in a line (process and glog prefixes are left alone), and the first
// value of a field wins when a log repeats a message. Sizes are binary (parseReportBytes).
#include "shardscope/inspect/inspect.hpp"

#include "inspect/text_cursor.hpp"
#include "shardscope/inspect/hlo_shape.hpp"

#include <initializer_list>

namespace shardscope::inspect_detail {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

// A size token ("63.80G", "0B", "6.00MiB") at the start of `s` (spaces skipped); its length in *used.
std::optional<std::int64_t> leadingSize(std::string_view s, std::size_t* used = nullptr) {
  std::size_t i = 0;
  while (i < s.size() && isSpace(s[i])) ++i;
  const std::size_t start = i;
  while (i < s.size() && (isDigit(s[i]) || s[i] == '.')) ++i;
  while (i < s.size() && isAlpha(s[i]) && i - start < 32) ++i;
  if (used) *used = i;
  return parseReportBytes(s.substr(start, i - start));
}

// The size right after `key` in `line`, nullopt when the key is absent or no size follows.
std::optional<std::int64_t> sizeAfter(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  return leadingSize(line.substr(at + key.size()));
}

// The exact byte count after `key` ("allocate 9031036208 bytes", "size=134217728").
std::optional<std::int64_t> integerAfter(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + key.size();
  while (i < line.size() && isSpace(line[i])) ++i;
  std::int64_t v = 0;
  const std::size_t start = i;
  for (; i < line.size() && isDigit(line[i]); ++i) {
    if (v > (std::int64_t{1} << 58)) return std::nullopt;
    v = v * 10 + (line[i] - '0');
  }
  return i > start ? std::optional(v) : std::nullopt;
}

void setOnce(std::optional<std::int64_t>& field, std::optional<std::int64_t> value) {
  if (!field && value) field = value;
}

// op_name="..." of an Operator: line, escapes (\' \") resolved.
std::string operatorName(std::string_view line) {
  const auto at = line.find("op_name=\"");
  if (at == std::string_view::npos) return std::string(trim(line.substr(line.find(':') + 1)));
  std::size_t i = at + 9;
  const std::size_t start = i;
  while (i < line.size() && line[i] != '"') i += line[i] == '\\' ? 2 : 1;
  return unescapeString(line.substr(start, std::min(i, line.size()) - start));
}

std::string dtypeOfShape(std::string_view shape) {
  const auto bracket = shape.find('[');
  if (bracket == std::string_view::npos) return "";
  const auto t = hloElementType(trim(shape.substr(0, bracket)));
  return t ? t->dtype : "";
}

bool mentions(const InspectOomAllocation& a, std::initializer_list<std::string_view> words) {
  for (const auto w : words)
    if (a.op_name.find(w) != std::string::npos || a.label.find(w) != std::string::npos) return true;
  return false;
}

// What an allocation most likely holds, by its type and names.
void classify(InspectOomAllocation& a) {
  if (a.allocation_type.find("parameter") != std::string::npos)
    a.what = "parameter";
  else if (mentions(a, {"logits", "lm_head", "cross_entropy", "vocab"}))
    a.what = "logits";
  else if (mentions(a, {"opt_state", "optax", "adam", "optimizer"}))
    a.what = "optimizer_state";
  else if (a.allocation_type == "HLO temp" || mentions(a, {"transpose(jvp", "remat", "checkpoint"}))
    a.what = "activations";
  if (a.unpadded_bytes && *a.unpadded_bytes <= a.bytes) a.padding_bytes = a.bytes - *a.unpadded_bytes;
}

class OomReader {
public:
  OomReader(std::string_view text, const InspectOptions& options) : c_(text, options.source_name) {}
  InspectResult read();

private:
  enum class Section { None, Total, Program, Allocations, GpuStats };
  TextCursor c_;
  InspectOom oom_;
  Section section_ = Section::None;
  std::vector<std::string> notes_;
  int messages_ = 0;

  void readHeader(std::size_t at);
  void readLine(std::string_view line, std::size_t at);
  bool readMessageLine(std::string_view line, std::size_t at);
  void readBreakdownLine(std::string_view line);
  void readAllocationLine(std::string_view line, std::size_t at);
  void add(const std::string& what, std::optional<std::int64_t> bytes) {
    if (bytes && oom_.breakdown.size() < 256) oom_.breakdown.push_back({what, *bytes});
  }
  std::int64_t sizeAt(std::size_t at, std::string_view what) {
    std::size_t used = 0;
    const auto v = leadingSize(c_.text().substr(at), &used);
    if (!v) c_.failExpected(at + (used > 0 ? 0 : 0), std::string(what) + " (a size such as 19.46G)");
    c_.seek(at + used);
    return *v;
  }
};

InspectResult OomReader::read() {
  const std::string_view text = c_.text();
  if (const auto at = text.find("Ran out of memory in memory space"); at != std::string_view::npos) readHeader(at);
  for (std::size_t start = 0; start < text.size();) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    readLine(text.substr(start, end - start), start);
    start = end + 1;
  }
  if (oom_.used_bytes && oom_.capacity_bytes && !oom_.exceeded_bytes && *oom_.used_bytes > *oom_.capacity_bytes &&
      oom_.form == "tpu_sparsecore")
    oom_.exceeded_bytes = *oom_.used_bytes - *oom_.capacity_bytes;
  if (oom_.form == "gpu" && oom_.requested_bytes && oom_.capacity_bytes && oom_.used_bytes && !oom_.exceeded_bytes) {
    const std::int64_t free = *oom_.capacity_bytes - *oom_.used_bytes;
    if (*oom_.requested_bytes > free) oom_.exceeded_bytes = *oom_.requested_bytes - free;
  }
  if (oom_.form.empty()) oom_.form = oom_.allocations.empty() && oom_.breakdown.empty() ? "unknown" : "tpu_compile";
  if (messages_ > 1)
    notes_.push_back("the text holds " + std::to_string(messages_) +
                     " out-of-memory messages; where they disagree the first is reported");
  for (auto& a : oom_.allocations) classify(a);
  InspectResult r;
  r.kind = InspectKind::Oom;
  r.oom = std::move(oom_);
  r.notes = std::move(notes_);
  return r;
}

void OomReader::readHeader(std::size_t at) {
  // Ran out of memory in memory space hbm. Used 63.80G of 30.75G hbm. Exceeded hbm capacity by 33.05G.
  // (The sentence may be wrapped by whoever pasted it: the cursor crosses lines.)
  c_.seek(at + 33);
  c_.skipSpace();
  const std::size_t start = c_.pos();
  while (isAlpha(c_.peek()) || isDigit(c_.peek()) || c_.peek() == '_') c_.advance();
  const std::string_view space = c_.text().substr(start, c_.pos() - start);
  if (space.empty()) c_.fail("the memory space after 'Ran out of memory in memory space'");
  oom_.memory_space = std::string(space);
  oom_.form = "tpu_compile";
  c_.expect(".", "'.' after the memory space");
  if (!c_.acceptWord("Used")) c_.fail("'Used X of Y'");
  c_.skipSpace();
  oom_.used_bytes = sizeAt(c_.pos(), "the used size");
  if (!c_.acceptWord("of")) c_.fail("'of' after the used size");
  c_.skipSpace();
  oom_.capacity_bytes = sizeAt(c_.pos(), "the capacity");
  c_.name();
  c_.accept(".");
  if (!c_.acceptWord("Exceeded")) return;
  c_.name();
  if (!c_.acceptWord("capacity") || !c_.acceptWord("by")) c_.fail("'capacity by' and the excess");
  c_.skipSpace();
  oom_.exceeded_bytes = sizeAt(c_.pos(), "the excess");
}

void OomReader::readLine(std::string_view line, std::size_t at) {
  if (readMessageLine(line, at)) return;
  // The BFC allocator's stats, exact bytes: "Limit: 79048228864", "InUse: 75161927680" (older
  // allocators: "memory_limit_: N").
  const std::string_view t = trim(line);
  if (t.starts_with("Limit:") || t.starts_with("InUse:") || line.find("memory_limit_:") != std::string_view::npos) {
    setOnce(oom_.capacity_bytes, integerAfter(t, "Limit:"));
    setOnce(oom_.capacity_bytes, integerAfter(t, "memory_limit_:"));
    if (t.starts_with("InUse:")) oom_.used_bytes = integerAfter(t, "InUse:"); // the allocator's own figure wins
    return;
  }
  if (line.find(" usage >= ") != std::string_view::npos) {
    section_ = Section::Total;
    add("total", sizeAfter(line, " usage >= "));
    const auto colon = line.find(':', line.find(" usage >= "));
    if (colon != std::string_view::npos) readBreakdownLine(line.substr(colon + 1)); // the one-line form
    return;
  }
  if (line.find("Output size ") != std::string_view::npos) {
    add("output", sizeAfter(line, "Output size "));
    add("output_shared", sizeAfter(line, "shares "));
    return;
  }
  if (line.find(" requirement ") != std::string_view::npos && line.find("Program ") != std::string_view::npos) {
    section_ = Section::Program;
    add("program_requirement", sizeAfter(line, " requirement "));
    return;
  }
  if (line.find("BufferAssignment stats:") != std::string_view::npos) {
    section_ = Section::GpuStats;
    return;
  }
  if (line.find("Largest program allocations in") != std::string_view::npos ||
      line.find("Peak buffers:") != std::string_view::npos) {
    section_ = Section::Allocations;
    return;
  }
  if (section_ == Section::Allocations || line.find(". Size: ") != std::string_view::npos ||
      line.find("Buffer ") != std::string_view::npos)
    readAllocationLine(line, at);
  else if (section_ != Section::None)
    readBreakdownLine(line);
}

bool OomReader::readMessageLine(std::string_view line, std::size_t at) {
  (void)at;
  if (line.find("Ran out of memory in memory space") != std::string_view::npos) {
    ++messages_;
    return true;
  }
  if (const auto n = integerAfter(line, "Out of memory while trying to allocate")) {
    ++messages_;
    if (oom_.form.empty()) oom_.form = "gpu";
    setOnce(oom_.requested_bytes, n);
    return true;
  }
  if (line.find("ran out of memory trying to allocate") != std::string_view::npos) { // BFC allocator
    ++messages_;
    if (oom_.form.empty()) oom_.form = "gpu";
    setOnce(oom_.requested_bytes, integerAfter(line, "(rounded to"));
    setOnce(oom_.requested_bytes, sizeAfter(line, "trying to allocate"));
    const auto open = line.find("Allocator (");
    if (open != std::string_view::npos && oom_.device.empty())
      oom_.device = std::string(line.substr(open + 11, line.find(')', open) - open - 11).substr(0, 64));
    return true;
  }
  if (line.find("Attempting to allocate ") != std::string_view::npos) { // TPU runtime
    ++messages_;
    if (oom_.form.empty()) oom_.form = "tpu_runtime";
    setOnce(oom_.requested_bytes, sizeAfter(line, "Attempting to allocate "));
    add("free", sizeAfter(line, "There are "));
    add("largest_free", sizeAfter(line, "free memory is "));
    const auto open = line.rfind("; (");
    if (open != std::string_view::npos && oom_.device.empty())
      oom_.device = std::string(line.substr(open + 3, line.find(')', open) - open - 3).substr(0, 64));
    return true;
  }
  if (line.find("Allocation (size=") != std::string_view::npos) { // TPU: one allocation larger than memory
    ++messages_;
    if (oom_.form.empty()) oom_.form = "tpu_allocation";
    setOnce(oom_.requested_bytes, integerAfter(line, "Allocation (size="));
    setOnce(oom_.capacity_bytes, integerAfter(line, "exceed memory (size="));
    InspectOomAllocation a;
    a.rank = std::int64_t(oom_.allocations.size()) + 1;
    a.bytes = integerAfter(line, "Allocation (size=").value_or(0);
    const auto quoted = [&](std::string_view key) {
      const auto k = line.find(key);
      if (k == std::string_view::npos) return std::string();
      const auto end = line.find('\'', k + key.size());
      return std::string(line.substr(k + key.size(), end == std::string_view::npos ? 256 : end - k - key.size()));
    };
    a.shape = quoted("shape = '");
    a.dtype = dtypeOfShape(a.shape);
    a.label = quoted("tag = '");
    if (const auto last = line.rfind(":: "); last != std::string_view::npos)
      a.op_name = std::string(trim(line.substr(last + 3)).substr(0, 256));
    if (const auto s = line.find("space="); s != std::string_view::npos && oom_.memory_space.empty())
      oom_.memory_space = std::string(line.substr(s + 6, line.find(',', s) - s - 6).substr(0, 16));
    if (oom_.allocations.size() < 4096) oom_.allocations.push_back(std::move(a));
    return true;
  }
  if (line.find("TensorCore Hbm usage:") != std::string_view::npos) { // TPU: TensorCore + SparseCore
    ++messages_;
    if (oom_.form.empty()) oom_.form = "tpu_sparsecore";
    const auto tc = sizeAfter(line, "TensorCore Hbm usage:"), sc = sizeAfter(line, "SparseCore Hbm usage");
    add("tensorcore", tc);
    add("sparsecore", sc);
    if (tc && sc) setOnce(oom_.used_bytes, *tc + *sc);
    setOnce(oom_.capacity_bytes, sizeAfter(line, "available bytes:"));
    if (oom_.memory_space.empty()) oom_.memory_space = "hbm";
    return true;
  }
  if (line.find("by rematerialization") != std::string_view::npos) {
    add("remat_target", integerAfter(line, "("));
    const auto reached = line.find("only reduced to");
    if (reached != std::string_view::npos) add("remat_reached", integerAfter(line.substr(reached), "("));
    return true;
  }
  return false;
}

void OomReader::readBreakdownLine(std::string_view line) {
  // "    reserved          1.25G", "HLO temp 63.79G (...)", "parameter allocation:    2.78GiB", "Limit: 105",
  // and the one-line "reserved 3.12M program unknown size arguments 49.34G".
  static constexpr std::pair<std::string_view, std::string_view> kKeys[] = {
      {"reserved ", "reserved"},
      {"program ", "program"},
      {"arguments ", "arguments"},
      {"global ", "global"},
      {"scoped ", "scoped"},
      {"HLO temp ", "hlo_temp"},
      {"parameter allocation:", "parameter"},
      {"constant allocation:", "constant"},
      {"maybe_live_out allocation:", "maybe_live_out"},
      {"preallocated temp allocation:", "preallocated_temp"},
      {"preallocated temp fragmentation:", "preallocated_temp_fragmentation"},
      {"total allocation:", "total_allocation"},
      {"total fragmentation:", "total_fragmentation"},
  };
  for (const auto& [key, name] : kKeys) {
    const auto v = sizeAfter(line, key);
    if (!v) continue;
    std::string what(name);
    if (section_ == Section::Program && what == "reserved") what = "program_reserved";
    add(what, v);
    if (what == "hlo_temp") {
      add("hlo_temp_unpadded", sizeAfter(line, "Unpadded ("));
      add("hlo_temp_padded", sizeAfter(line, "Padded ("));
      add("hlo_temp_fragmentation", sizeAfter(line, "fragmentation ("));
    }
    if (what == "total_allocation" && !oom_.used_bytes) oom_.used_bytes = v;
  }
}

void OomReader::readAllocationLine(std::string_view line, std::size_t at) {
  std::string_view t = trim(line);
  // "1. Size: 2.00G" (TPU) or "Buffer 1:" then "Size: 6.00MiB" (GPU) start an entry.
  const auto size = t.find("Size: ");
  const bool tpuStart = size != std::string_view::npos && size > 0 && t[size - 1] == ' ' && size >= 2 &&
                        t[size - 2] == '.' && t.find("Unpadded") == std::string_view::npos;
  const bool gpuStart = t.find("Buffer ") != std::string_view::npos && t.ends_with(":");
  if (tpuStart || gpuStart) {
    if (oom_.allocations.size() >= 4096) return;
    InspectOomAllocation a;
    std::size_t i = gpuStart ? t.find("Buffer ") + 7 : t.rfind(' ', size - 2) + 1;
    if (i > t.size()) i = 0;
    for (; i < t.size() && isDigit(t[i]) && a.rank < (std::int64_t{1} << 40); ++i) a.rank = a.rank * 10 + (t[i] - '0');
    if (tpuStart) a.bytes = sizeAt(at + std::size_t(t.data() - line.data()) + size + 6, "the allocation's size");
    oom_.allocations.push_back(std::move(a));
    return;
  }
  if (oom_.allocations.empty()) return;
  InspectOomAllocation& a = oom_.allocations.back();
  // A log may prefix every line ("(EngineCore_DP0 pid=1) ERROR ... [core.py:700]     Shape: ..."):
  // the field starts at its key.
  static constexpr std::string_view kFields[] = {
      "Size: ",     "Operator:",  "Shape:",           "Unpadded size:",
      "XLA label:", "XLA Label:", "Allocation type:", "Entry Parameter Subshape:"};
  std::size_t field = t.size();
  for (const auto key : kFields) field = std::min(field, t.find(key));
  if (field == t.size()) return;
  t = t.substr(field);
  const auto rest = [&](std::string_view key) { return std::string(trim(t.substr(key.size())).substr(0, 512)); };
  if (t.starts_with("Size: "))
    a.bytes = sizeAt(at + std::size_t(t.data() - line.data()) + 6, "the buffer's size");
  else if (t.starts_with("Operator:"))
    a.op_name = operatorName(t);
  else if (t.starts_with("Shape:"))
    a.shape = rest("Shape:");
  else if (t.starts_with("Unpadded size:"))
    a.unpadded_bytes = leadingSize(t.substr(14));
  else if (t.starts_with("XLA label:") || t.starts_with("XLA Label:"))
    a.label = rest("XLA label:");
  else if (t.starts_with("Allocation type:"))
    a.allocation_type = rest("Allocation type:");
  else if (t.starts_with("Entry Parameter Subshape:")) {
    a.shape = rest("Entry Parameter Subshape:");
    a.allocation_type = "parameter";
  }
  if (t.starts_with("Shape:") || t.starts_with("Entry Parameter Subshape:")) a.dtype = dtypeOfShape(a.shape);
}

} // namespace

} // namespace shardscope::inspect_detail

namespace shardscope {

InspectResult readOomReport(std::string_view text, const InspectOptions& options) {
  return inspect_detail::OomReader(text, options).read();
}

} // namespace shardscope
