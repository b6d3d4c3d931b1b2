//===- GradientBuckets.h - gradient sums gathered into buckets --*- C++ -*-===//
//
// Summing each gradient over its replicas as its own collective pays a
// collective's latency per tensor: ResNet-50 has 161 of them, most a few
// KiB. So gradients below a bucket's size share one: one open bucket per
// group (its communicator), closed when the next gradient would overflow it
// or when the program first needs a sum. A gradient of a bucket's size or
// more goes alone.
//
// What goes into a bucket and when it closes follow the order gradients are
// added, never timing: every member of a group adds the same gradients in
// the same order, so all of them run the same collectives in the same order.
//
// The runtime lays parameter gradients out in the order backward produces
// them, so a bucket is mostly one contiguous run, summed in place;
// contiguousRuns finds the runs.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_COMMON_GRADIENTBUCKETS_H
#define HDRT_COMMON_GRADIENTBUCKETS_H

#include <cstdint>
#include <utility>
#include <vector>

namespace hdrt {

/// `count` floats at `data`.
using Segment = std::pair<float *, int64_t>;

/// The segments merged where one ends where the next begins, in order.
inline std::vector<Segment>
contiguousRuns(const std::vector<Segment> &segments) {
  std::vector<Segment> runs;
  for (const Segment &s : segments) {
    if (!runs.empty() && runs.back().first + runs.back().second == s.first)
      runs.back().second += s.second;
    else
      runs.push_back(s);
  }
  return runs;
}

/// Buckets of gradients per `Group` (a communicator handle: anything with
/// ==).
template <typename Group> class GradientBuckets {
public:
  struct Bucket {
    Group group{};
    std::vector<Segment> segments;
    int64_t count = 0; // floats
  };

  explicit GradientBuckets(int64_t bucketBytes) : bucketBytes_(bucketBytes) {}

  /// Adds the gradient `count` floats at `data` of `group`; returns the
  /// buckets this closes, in the order to sum them: a full bucket of the
  /// group, then this gradient alone when it is that large.
  std::vector<Bucket> add(Group group, float *data, int64_t count) {
    std::vector<Bucket> closed;
    Bucket *bucket = openOf(group);
    int64_t bytes = count * int64_t(sizeof(float));
    if (bucket && bucket->count * int64_t(sizeof(float)) + bytes > bucketBytes_)
      closed.push_back(take(bucket));
    if (bytes >= bucketBytes_) {
      closed.push_back(Bucket{group, {{data, count}}, count});
      return closed;
    }
    bucket = openOf(group);
    if (!bucket) {
      open_.push_back(Bucket{group, {}, 0});
      bucket = &open_.back();
    }
    bucket->segments.push_back({data, count});
    bucket->count += count;
    return closed;
  }

  /// Closes every open bucket, in the order they were opened.
  std::vector<Bucket> flush() { return std::exchange(open_, {}); }

  bool empty() const { return open_.empty(); }

private:
  Bucket *openOf(const Group &group) {
    for (Bucket &b : open_)
      if (b.group == group)
        return &b;
    return nullptr;
  }
  Bucket take(Bucket *bucket) {
    Bucket b = std::move(*bucket);
    open_.erase(open_.begin() + (bucket - open_.data()));
    return b;
  }

  int64_t bucketBytes_;
  std::vector<Bucket> open_; // in the order they were opened
};

} // namespace hdrt

#endif // HDRT_COMMON_GRADIENTBUCKETS_H
