#include "api/plan_cache.hpp"

#include <utility>

namespace bitonic::api {

std::size_t plan_cache::size() {
  const std::lock_guard lock(mutex_);
  return plans_.size();
}

std::shared_ptr<cached_plan> plan_cache::find(int device, algorithm algo, std::size_t n) {
  const std::lock_guard lock(mutex_);
  const auto found = plans_.find({device, algo, n});
  return found == plans_.end() ? nullptr : found->second;
}

std::shared_ptr<cached_plan> plan_cache::insert(int device, algorithm algo, std::size_t n,
                                                plan::plan made) {
  auto entry = std::make_shared<cached_plan>(std::move(made));
  const std::lock_guard lock(mutex_);
  if (plans_.size() >= capacity) plans_.clear();
  return plans_.try_emplace({device, algo, n}, std::move(entry)).first->second;
}

}  // namespace bitonic::api
