#pragma once
// Name lookup for a lab's Variant enum: every lab lists its variants once (all_variants) and
// names them once (variant_name); these helpers derive the rest.
#include <string>
#include <vector>

namespace cudalab {

template <typename V, typename NameFn>
std::vector<std::string> names_of(const std::vector<V>& all, NameFn name) {
  std::vector<std::string> names;
  names.reserve(all.size());
  for (V v : all) names.push_back(name(v));
  return names;
}

template <typename V, typename NameFn>
bool find_by_name(const std::vector<V>& all, NameFn name, const std::string& text, V* out) {
  for (V v : all) {
    if (name(v) == text) {
      *out = v;
      return true;
    }
  }
  return false;
}

// What --variant selects: "all" -> every variant, otherwise the one named (the CLI accepted
// only known names; an unknown one selects nothing).
template <typename V, typename NameFn>
std::vector<V> select_variants(const std::vector<V>& all, NameFn name, const std::string& choice) {
  if (choice == "all") return all;
  V v{};
  if (find_by_name(all, name, choice, &v)) return {v};
  return {};
}

}  // namespace cudalab
