// A set of cpu ids on one node (a node may have hundreds of cpus, more than
// a device mask holds).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace gantry::select {

class CpuSet {
 public:
  CpuSet() = default;
  CpuSet(int size, bool full) : size_(size), words_((size + 63) / 64, full ? ~uint64_t{0} : 0) {
    trim();
  }

  int size() const { return size_; }
  bool test(int cpu) const { return (words_[cpu / 64] >> (cpu % 64)) & 1; }
  void set(int cpu) { words_[cpu / 64] |= uint64_t{1} << (cpu % 64); }
  void reset(int cpu) { words_[cpu / 64] &= ~(uint64_t{1} << (cpu % 64)); }
  int count() const {
    int total = 0;
    for (uint64_t w : words_) total += std::popcount(w);
    return total;
  }
  bool none() const {
    for (uint64_t w : words_)
      if (w) return false;
    return true;
  }
  // True when a cpu is in both sets (sets of different sizes compare over
  // the shorter).
  bool intersects(const CpuSet& other) const {
    size_t n = std::min(words_.size(), other.words_.size());
    for (size_t i = 0; i < n; ++i)
      if (words_[i] & other.words_[i]) return true;
    return false;
  }
  // Adds every cpu of `other` that lies within this set's size.
  void unite(const CpuSet& other) {
    size_t n = std::min(words_.size(), other.words_.size());
    for (size_t i = 0; i < n; ++i) words_[i] |= other.words_[i];
    trim();
  }
  // Keeps the set at `size` cpus, dropping ids beyond it.
  void resize(int size, bool fillNew) {
    int old = size_;
    size_ = size;
    words_.resize((size + 63) / 64, 0);
    if (fillNew)
      for (int c = old; c < size; ++c) set(c);
    trim();
  }

 private:
  void trim() {
    if (size_ % 64 && !words_.empty()) words_.back() &= (uint64_t{1} << (size_ % 64)) - 1;
  }
  int size_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace gantry::select
