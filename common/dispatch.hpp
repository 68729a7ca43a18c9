#pragma once
// Compile-time choices made at run time, declared once. A lab lists the values a template is
// built for (loads per thread, a block size) as an int_list, or the types as a type_list, and
// dispatch() calls its function with the one asked for as a compile-time constant:
//
//   using Loads = cudalab::int_list<1, 2, 4, 8, 16>;
//   cudalab::dispatch(Loads{}, loads, "load_point: loads per thread", [&](auto l) {
//     return read_kernel_point<decltype(l)::value>(...);        // l is std::integral_constant
//   });
//   using Widths = cudalab::type_list<unsigned, uint2, uint4>;  // chosen by sizeof
//   cudalab::dispatch_by_size(Widths{}, width, "load_point: the load width", [&](auto t) {
//     using V = typename decltype(t)::type;
//     ...
//   });
//
// A value outside the list is std::invalid_argument("<what> must be 1, 2, 4, 8 or 16"): one
// message, from the list itself, so the list and the error cannot disagree. The model is
// nvbench's enum_type_list: the values a benchmark is built for are a declared list, not a
// switch written out at every call.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cudalab {

template <int... Values>
struct int_list {
  static_assert(sizeof...(Values) > 0, "an empty list dispatches nothing");
};

template <typename T>
struct type_tag {
  using type = T;
};

template <typename... Types>
struct type_list {
  static_assert(sizeof...(Types) > 0, "an empty list dispatches nothing");
};

namespace detail {

// "1", "1 or 2", "1, 2 or 4".
template <typename T, std::size_t N>
std::string or_list(const T (&values)[N]) {
  std::string s;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) s += i + 1 == N ? " or " : ", ";
    s += std::to_string(values[i]);
  }
  return s;
}

template <int... Values>
[[noreturn]] void refuse_int(int, const char* what) {
  const int values[] = {Values...};
  throw std::invalid_argument(std::string(what) + " must be " + or_list(values));
}

template <int First, int... Rest, typename F>
decltype(auto) dispatch_int(int value, F& f, void (*refuse)(int, const char*), const char* what) {
  if constexpr (sizeof...(Rest) == 0) {
    if (value != First) refuse(value, what);
    return f(std::integral_constant<int, First>{});
  } else {
    if (value == First) return f(std::integral_constant<int, First>{});
    return dispatch_int<Rest...>(value, f, refuse, what);
  }
}

template <typename... Types>
[[noreturn]] void refuse_size(std::size_t, const char* what) {
  const std::size_t sizes[] = {sizeof(Types)...};
  throw std::invalid_argument(std::string(what) + " must be " + or_list(sizes) + " bytes");
}

template <typename First, typename... Rest, typename F>
decltype(auto) dispatch_size(std::size_t bytes, F& f, void (*refuse)(std::size_t, const char*), const char* what) {
  if constexpr (sizeof...(Rest) == 0) {
    if (bytes != sizeof(First)) refuse(bytes, what);
    return f(type_tag<First>{});
  } else {
    if (bytes == sizeof(First)) return f(type_tag<First>{});
    return dispatch_size<Rest...>(bytes, f, refuse, what);
  }
}

}  // namespace detail

// f(std::integral_constant<int, V>{}) for the V of the list equal to `value`; every V must give
// f the same return type. `what` names the value in the error ("reduction: block").
template <int... Values, typename F>
decltype(auto) dispatch(int_list<Values...>, int value, const char* what, F&& f) {
  return detail::dispatch_int<Values...>(value, f, &detail::refuse_int<Values...>, what);
}

// f(type_tag<T>{}) for the T of the list with sizeof(T) == bytes (the first such T).
template <typename... Types, typename F>
decltype(auto) dispatch_by_size(type_list<Types...>, std::size_t bytes, const char* what, F&& f) {
  return detail::dispatch_size<Types...>(bytes, f, &detail::refuse_size<Types...>, what);
}

// Whether `value` is one of the list's: for checks before any work is done.
template <int... Values>
constexpr bool contains(int_list<Values...>, int value) {
  return ((value == Values) || ...);
}

// Throws dispatch's std::invalid_argument unless `value` is one of the list's: the check before
// any work is done, with the same message.
template <int... Values>
void require(int_list<Values...> list, int value, const char* what) {
  if (!contains(list, value)) detail::refuse_int<Values...>(value, what);
}

}  // namespace cudalab
