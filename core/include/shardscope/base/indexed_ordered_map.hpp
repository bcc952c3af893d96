// SPDX-License-Identifier: Apache-2.0
// The object type behind `Json`: keys stay in insertion order (as nlohmann::ordered_map keeps
// them), but lookups and inserts go through a hash index instead of a linear scan. With
// nlohmann's own ordered_map, parsing or building an object of n keys costs O(n^2): a checkpoint
// index of 90,000 tensor names took seconds, a safetensors header of 200,000 tensors half a
// minute.
//
// The shape of the class is what nlohmann::basic_json (3.11) asks of its ObjectType template
// parameter: a class template <Key, T, Compare, Allocator> with the associative members basic_json
// calls (find, count, at, operator[], emplace, insert, erase, clear, iteration, comparisons).
// Small objects (the common case) keep no index and are scanned, so they cost no more memory than
// nlohmann's map. The index hashes with SipHash-1-3 under a key drawn once per process, so keys
// chosen to collide cannot turn lookups linear again; iteration order never depends on the hash.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace shardscope {

namespace json_detail {

// SipHash-1-3 (Aumasson and Bernstein) of `data` under the 128-bit key (k0, k1).
std::uint64_t sipHash13(std::string_view data, std::uint64_t k0, std::uint64_t k1) noexcept;
// This process's hash key, drawn from std::random_device on first use.
const std::uint64_t* processHashKey() noexcept;

inline std::uint64_t hashKey(std::string_view key) noexcept {
  const std::uint64_t* k = processHashKey();
  return sipHash13(key, k[0], k[1]);
}

} // namespace json_detail

template <class Key, class T, class IgnoredCompare = std::less<Key>,
          class Allocator = std::allocator<std::pair<const Key, T>>>
class IndexedOrderedMap {
  static_assert(std::is_same_v<Key, std::string>, "IndexedOrderedMap is made for std::string keys");

public:
  using key_type = Key;
  using mapped_type = T;
  // Keys are stored non-const so that growing the vector moves entries (nlohmann's ordered_map
  // stores pair<const Key, T>, whose move is a copy: every growth deep-copied the nested values).
  // Nothing here or in basic_json writes to a key through an iterator.
  using value_type = std::pair<Key, T>;
  using allocator_type = typename std::allocator_traits<Allocator>::template rebind_alloc<value_type>;
  using Container = std::vector<value_type, allocator_type>;
  using iterator = typename Container::iterator;
  using const_iterator = typename Container::const_iterator;
  using reverse_iterator = typename Container::reverse_iterator;
  using const_reverse_iterator = typename Container::const_reverse_iterator;
  using size_type = typename Container::size_type;
  using difference_type = typename Container::difference_type;
  using reference = value_type&;
  using const_reference = const value_type&;
  // Transparent, so basic_json looks keys up by string_view or char* without building a string.
  using key_compare = std::equal_to<>;

  // Objects up to this many keys keep no index: a scan of a few short keys is as fast as a hash.
  static constexpr size_type kIndexFrom = 12;

  IndexedOrderedMap() = default;
  explicit IndexedOrderedMap(const allocator_type& alloc) : items_(alloc) {}
  template <class It>
  IndexedOrderedMap(It first, It last, const allocator_type& alloc = allocator_type()) : items_(alloc) {
    for (; first != last; ++first) emplace(first->first, first->second);
  }
  IndexedOrderedMap(std::initializer_list<value_type> init, const allocator_type& alloc = allocator_type())
      : IndexedOrderedMap(init.begin(), init.end(), alloc) {}
  IndexedOrderedMap(const IndexedOrderedMap& other)
      : items_(other.items_), index_(other.index_ ? std::make_unique<Index>(*other.index_) : nullptr) {}
  IndexedOrderedMap(IndexedOrderedMap&& other) noexcept = default;
  IndexedOrderedMap& operator=(const IndexedOrderedMap& other) {
    if (this != &other) {
      IndexedOrderedMap copy(other);
      swap(copy);
    }
    return *this;
  }
  IndexedOrderedMap& operator=(IndexedOrderedMap&& other) noexcept = default;
  ~IndexedOrderedMap() = default;

  // --- iteration and size
  iterator begin() noexcept { return items_.begin(); }
  iterator end() noexcept { return items_.end(); }
  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  const_iterator cbegin() const noexcept { return items_.cbegin(); }
  const_iterator cend() const noexcept { return items_.cend(); }
  reverse_iterator rbegin() noexcept { return items_.rbegin(); }
  reverse_iterator rend() noexcept { return items_.rend(); }
  const_reverse_iterator rbegin() const noexcept { return items_.rbegin(); }
  const_reverse_iterator rend() const noexcept { return items_.rend(); }
  size_type size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  size_type max_size() const noexcept { return std::min<size_type>(items_.max_size(), kNoSlot - 1); }
  void clear() noexcept {
    items_.clear();
    index_.reset();
  }
  void swap(IndexedOrderedMap& other) noexcept {
    items_.swap(other.items_);
    index_.swap(other.index_);
  }

  // --- lookup
  iterator find(std::string_view key) { return items_.begin() + static_cast<difference_type>(position(key)); }
  const_iterator find(std::string_view key) const {
    return items_.begin() + static_cast<difference_type>(position(key));
  }
  template <class K, std::enable_if_t<std::is_convertible_v<const K&, std::string_view>, int> = 0>
  iterator find(const K& key) {
    return find(std::string_view(key));
  }
  template <class K, std::enable_if_t<std::is_convertible_v<const K&, std::string_view>, int> = 0>
  const_iterator find(const K& key) const {
    return find(std::string_view(key));
  }

  template <class K>
  size_type count(const K& key) const {
    return find(key) == end() ? 0 : 1;
  }
  template <class K>
  bool contains(const K& key) const {
    return find(key) != end();
  }

  template <class K>
  T& at(const K& key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("key not found");
    return it->second;
  }
  template <class K>
  const T& at(const K& key) const {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("key not found");
    return it->second;
  }

  // --- insertion: a key already present keeps its place and value (std::map semantics).
  template <class K, class... Args>
  std::pair<iterator, bool> emplace(K&& key, Args&&... args) {
    const std::string_view view(key);
    const std::uint64_t hash = index_ ? json_detail::hashKey(view) : 0;
    const size_type at = index_ ? lookup(view, hash) : position(view);
    if (at != items_.size()) return {items_.begin() + static_cast<difference_type>(at), false};
    if (items_.size() >= kNoSlot - 1) throw std::length_error("JSON object has too many keys");
    items_.emplace_back(std::piecewise_construct, std::forward_as_tuple(std::forward<K>(key)),
                        std::forward_as_tuple(std::forward<Args>(args)...));
    if (index_)
      addToIndex(items_.size() - 1, hash);
    else if (items_.size() > kIndexFrom)
      rebuildIndex();
    return {std::prev(items_.end()), true};
  }
  std::pair<iterator, bool> insert(const value_type& value) { return emplace(value.first, value.second); }
  std::pair<iterator, bool> insert(value_type&& value) {
    return emplace(std::move(value.first), std::move(value.second));
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) insert(*first);
  }

  template <class K>
  T& operator[](K&& key) {
    return emplace(std::forward<K>(key)).first->second;
  }
  // basic_json's const operator[] on objects goes through find; this mirrors ordered_map.
  template <class K>
  const T& operator[](const K& key) const {
    return at(key);
  }

  // --- erasure: positions after the erased range shift, so the index is rebuilt (O(n)).
  iterator erase(const_iterator pos) { return erase(pos, std::next(pos)); }
  iterator erase(iterator pos) { return erase(const_iterator(pos), std::next(const_iterator(pos))); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto offset = first - items_.cbegin();
    items_.erase(first, last);
    if (items_.size() > kIndexFrom)
      rebuildIndex();
    else
      index_.reset();
    return items_.begin() + offset;
  }
  template <class K, std::enable_if_t<std::is_convertible_v<const K&, std::string_view>, int> = 0>
  size_type erase(const K& key) {
    auto it = find(key);
    if (it == end()) return 0;
    erase(const_iterator(it));
    return 1;
  }

  // --- comparisons, as basic_json compares two objects (entry by entry, in order)
  friend bool operator==(const IndexedOrderedMap& a, const IndexedOrderedMap& b) { return a.items_ == b.items_; }
  friend auto operator<=>(const IndexedOrderedMap& a, const IndexedOrderedMap& b) { return a.items_ <=> b.items_; }
  friend bool operator<(const IndexedOrderedMap& a, const IndexedOrderedMap& b) { return a.items_ < b.items_; }

private:
  using Slot = std::uint32_t;
  static constexpr size_type kNoSlot = 0xFFFFFFFFu; // an empty slot; also bounds the key count

  // Position of `key` in items_, or size() when absent.
  size_type position(std::string_view key) const {
    if (!index_) {
      for (size_type i = 0; i < items_.size(); ++i)
        if (std::string_view(items_[i].first) == key) return i;
      return items_.size();
    }
    return lookup(key, json_detail::hashKey(key));
  }

  size_type lookup(std::string_view key, std::uint64_t hash) const {
    const std::vector<Slot>& table = index_->table;
    const size_type mask = table.size() - 1;
    for (size_type s = static_cast<size_type>(hash) & mask;; s = (s + 1) & mask) {
      const Slot p = table[s];
      if (p == kNoSlot) return items_.size();
      if (std::string_view(items_[p].first) == key) return p;
    }
  }

  void addToIndex(size_type at, std::uint64_t hash) {
    std::vector<Slot>& table = index_->table;
    // Load factor at most 1/2.
    if (2 * items_.size() > table.size()) {
      rebuildIndex();
      return;
    }
    const size_type mask = table.size() - 1;
    size_type s = static_cast<size_type>(hash) & mask;
    while (table[s] != kNoSlot) s = (s + 1) & mask;
    table[s] = static_cast<Slot>(at);
  }

  void rebuildIndex() {
    size_type capacity = 32;
    while (capacity < 4 * items_.size()) capacity *= 2;
    if (!index_) index_ = std::make_unique<Index>();
    std::vector<Slot>& table = index_->table;
    table.assign(capacity, static_cast<Slot>(kNoSlot));
    const size_type mask = capacity - 1;
    for (size_type i = 0; i < items_.size(); ++i) {
      size_type s = static_cast<size_type>(json_detail::hashKey(items_[i].first)) & mask;
      while (table[s] != kNoSlot) s = (s + 1) & mask;
      table[s] = static_cast<Slot>(i);
    }
  }

  // Open addressing with linear probing: positions into items_, kNoSlot where empty.
  struct Index {
    std::vector<Slot> table;
  };

  Container items_;
  std::unique_ptr<Index> index_; // null while size() <= kIndexFrom: one pointer per small object
};

} // namespace shardscope
