// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/param_table.hpp"

#include "shardscope/base/errors.hpp"

namespace shardscope {

ParamTable::ParamTable(std::shared_ptr<const Model> model, std::string dtype, std::vector<ParamSharding> groups,
                       std::vector<std::uint32_t> group_of)
    : model_(std::move(model)), dtype_(std::move(dtype)), groups_(std::move(groups)), group_of_(std::move(group_of)) {
  const std::size_t params = model_ ? model_->params.size() : 0;
  if (group_of_.size() != params)
    throwValueError("parameter table: " + std::to_string(group_of_.size()) + " group indices for " +
                    std::to_string(params) + " parameters");
  for (const auto g : group_of_)
    if (g >= groups_.size())
      throwValueError("parameter table: group " + std::to_string(g) + " of " + std::to_string(groups_.size()) +
                      " does not exist");
}

ParamTable ParamTable::ungrouped(Model model, std::string dtype, std::vector<ParamSharding> shardings) {
  std::vector<std::uint32_t> groupOf(shardings.size());
  for (std::size_t i = 0; i < groupOf.size(); ++i) groupOf[i] = static_cast<std::uint32_t>(i);
  return ParamTable(std::make_shared<const Model>(std::move(model)), std::move(dtype), std::move(shardings),
                    std::move(groupOf));
}

ParamRow ParamTable::operator[](std::size_t i) const {
  const Param& p = model_->params[i];
  const ParamSharding& s = groups_[group_of_[i]];
  return {p.path, p.shape, dtype_, s.spec, s.shard_shape, s.bytes_per_device, s.uneven, s.diagnostics};
}

std::optional<std::size_t> ParamTable::find(std::string_view path) const {
  for (std::size_t i = 0; i < size(); ++i)
    if (model_->params[i].path == path) return i;
  return std::nullopt;
}

} // namespace shardscope
