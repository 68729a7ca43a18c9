#pragma once
// A lab's variants, described once: a VariantTable lists each variant of the lab's enum, in
// ladder order, with its name (what --variant takes) and one line on what it changes. The lab's
// all_variants / variant_name / variant_summary / parse_variant / variant_names read the table.
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"  // NoDeviceError

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

// The variants of `all` (in ladder order) for which keep(v) holds: a lab's variants of one kind.
template <typename V, typename Pred>
std::vector<V> variants_where(const std::vector<V>& all, Pred keep) {
  std::vector<V> out;
  for (V v : all) {
    if (keep(v)) out.push_back(v);
  }
  return out;
}

// The row of variant `v` in a lab's own table (rows with an `id`); std::invalid_argument for an
// id the table does not have (`lab` names the lab in the message).
template <typename Rows, typename V>
const auto& row_of(const Rows& rows, V v, const char* lab) {
  for (const auto& r : rows) {
    if (r.id == v) return r;
  }
  throw std::invalid_argument(std::string(lab) + ": not a variant of the table");
}

template <typename V>
struct VariantInfo {
  V id;
  const char* name;  // as --variant takes it: "coarsened4"
  const char* what;  // one line: what this variant changes
};

template <typename V>
class VariantTable {
 public:
  VariantTable(std::initializer_list<VariantInfo<V>> rows) : rows_(rows) {
    for (const auto& r : rows_) ids_.push_back(r.id);
  }
  // From a lab's own rows (anything with id, name and what: a row that also holds the
  // variant's launcher and traits).
  template <typename Rows>
  static VariantTable from(const Rows& rows) {
    VariantTable t({});
    for (const auto& r : rows) {
      t.rows_.push_back({r.id, r.name, r.what});
      t.ids_.push_back(r.id);
    }
    return t;
  }
  const std::vector<V>& ids() const { return ids_; }
  std::string name(V v) const { return row(v) ? row(v)->name : "?"; }
  std::string what(V v) const { return row(v) ? row(v)->what : "?"; }
  std::vector<std::string> names() const {
    return names_of(ids_, [this](V v) { return name(v); });
  }
  bool find(const std::string& text, V* out) const {
    return find_by_name(ids_, [this](V v) { return name(v); }, text, out);
  }

 private:
  const VariantInfo<V>* row(V v) const {
    for (const auto& r : rows_) {
      if (r.id == v) return &r;
    }
    return nullptr;
  }
  std::vector<VariantInfo<V>> rows_;
  std::vector<V> ids_;
};

// What --variant selects: "all" -> every variant, otherwise the one named (the CLI accepted
// only known names; an unknown one selects nothing).
template <typename V, typename NameFn>
std::vector<V> select_variants(const std::vector<V>& all, NameFn name, const std::string& choice) {
  if (choice == "all") return all;
  V v{};
  if (find_by_name(all, name, choice, &v)) return {v};
  return {};
}

// Of the variants --variant selected (`choice`: "all" or one name), those this GPU runs. A
// variant it does not run (why_not(v) is not empty: a Hopper rung elsewhere) is never replaced by
// another kernel: with "all" it is named through note("  <name>: not available for this GPU
// (<why>)") and left out; asked for by name, it is NoDeviceError (exit 77, which ctest reports as
// skipped): "--variant <name>: <why><context>".
template <typename V, typename NameFn, typename WhyNotFn, typename NoteFn>
std::vector<V> runnable_variants(const std::vector<V>& selected, const std::string& choice, NameFn name,
                                 WhyNotFn why_not, NoteFn note, const std::string& context = "") {
  std::vector<V> out;
  for (const V& v : selected) {
    const std::string why = why_not(v);
    if (why.empty()) {
      out.push_back(v);
    } else if (choice != "all") {
      throw NoDeviceError("--variant " + choice + ": " + why + context);
    } else {
      note("  " + std::string(name(v)) + ": not available for this GPU (" + why + ")");
    }
  }
  return out;
}

}  // namespace cudalab

// Declares, in a lab's header, the functions every ladder lab has: all_variants, variant_name,
// variant_summary, variant_names, parse_variant. CUDALAB_VARIANTS or CUDALAB_VARIANTS_FROM in
// the lab's .cu file defines them.
#define CUDALAB_DECLARE_VARIANTS(V)                        \
  const std::vector<V>& all_variants();                    \
  std::string variant_name(V v);                           \
  std::string variant_summary(V v);                        \
  std::vector<std::string> variant_names();                \
  bool parse_variant(const std::string& name, V* out);

// Defines the functions of CUDALAB_DECLARE_VARIANTS from `rows`, an expression naming the lab's
// own table (a container of rows with id, name and what), in the lab's namespace.
#define CUDALAB_VARIANTS_FROM(V, rows)                                                           \
  namespace {                                                                                   \
  const ::cudalab::VariantTable<V>& variant_table() {                                           \
    static const ::cudalab::VariantTable<V> table = ::cudalab::VariantTable<V>::from(rows);     \
    return table;                                                                               \
  }                                                                                             \
  }                                                                                             \
  const std::vector<V>& all_variants() { return variant_table().ids(); }                        \
  std::string variant_name(V v) { return variant_table().name(v); }                             \
  std::string variant_summary(V v) { return variant_table().what(v); }                          \
  std::vector<std::string> variant_names() { return variant_table().names(); }                   \
  bool parse_variant(const std::string& name, V* out) { return variant_table().find(name, out); }

// Defines, in a lab's namespace (in its .cu file), its variant table and the functions its
// header declares: all_variants, variant_name, variant_summary, variant_names, parse_variant.
//   CUDALAB_VARIANTS(Variant,
//       {Variant::kNaive, "naive", "one element per thread"},
//       {Variant::kCoarsened2, "coarsened2", "2 elements per thread"})
#define CUDALAB_VARIANTS(V, ...) \
  CUDALAB_VARIANTS_FROM(V, (std::initializer_list<::cudalab::VariantInfo<V>>{__VA_ARGS__}))
