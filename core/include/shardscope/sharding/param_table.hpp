// SPDX-License-Identifier: Apache-2.0
// Every parameter of the analysed model with its sharding. Parameters that plan alike (each
// layer's q_proj, each expert's w1) share one ParamSharding, and names and shapes stay in the
// loaded Model, so a 46k-parameter table is a few vectors rather than 46k rows of copied strings:
// the GUI rebuilds it on every drag frame.
#pragma once

#include "shardscope/models/model.hpp"
#include "shardscope/base/nd_array.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// How one group of alike parameters is laid out on the mesh.
struct ParamSharding {
  std::string spec;            // P(...) form
  Shape shard_shape;           // largest shard
  double bytes_per_device = 0; // largest shard's bytes
  bool uneven = false;
  std::vector<std::string> diagnostics; // silent replication fallback, non-divisible, ...
};

// One parameter's row. It refers into the table it came from and lives no longer than it.
struct ParamRow {
  const std::string& path;
  const Shape& shape;
  const std::string& dtype; // the dtype parameters are held in (the training dtype)
  const std::string& spec;
  const Shape& shard_shape;
  double bytes_per_device;
  bool uneven;
  const std::vector<std::string>& diagnostics;
};

class ParamTable {
public:
  ParamTable() = default;
  // group_of[i] is the index in `groups` of model->params[i]; throws ValueError when the sizes
  // disagree or an index is out of range.
  ParamTable(std::shared_ptr<const Model> model, std::string dtype, std::vector<ParamSharding> groups,
             std::vector<std::uint32_t> group_of);

  // A table where each parameter has its own sharding (shardings[i] for model.params[i]).
  static ParamTable ungrouped(Model model, std::string dtype, std::vector<ParamSharding> shardings);

  std::size_t size() const { return group_of_.size(); }
  bool empty() const { return group_of_.empty(); }
  ParamRow operator[](std::size_t i) const;
  // The parameter called `path`, if any (linear: for a user's click, not for loops).
  std::optional<std::size_t> find(std::string_view path) const;

  // The model the rows name (null for an empty table). Two tables over the same model object have
  // the same paths in the same order, which is what lets a view keep its expanded rows.
  const std::shared_ptr<const Model>& model() const { return model_; }
  const std::vector<ParamSharding>& groups() const { return groups_; }
  std::uint32_t groupOf(std::size_t i) const { return group_of_[i]; }

  class Iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = ParamRow;
    using difference_type = std::ptrdiff_t;
    Iterator(const ParamTable* table, std::size_t i) : table_(table), i_(i) {}
    ParamRow operator*() const { return (*table_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }

  private:
    const ParamTable* table_;
    std::size_t i_;
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

private:
  std::shared_ptr<const Model> model_;
  std::string dtype_;
  std::vector<ParamSharding> groups_;
  std::vector<std::uint32_t> group_of_;
};

} // namespace shardscope
