/// @file
/// Names of an enum's values, kept beside the enum: one table serves the
/// deck, the reference documentation, output and error messages.
///
/// @code
///   enum class Colour { red, green };
///   inline constexpr std::array<EnumName<Colour>, 2> colour_names{
///       {{Colour::red, "red"}, {Colour::green, "green"}}};
///
///   Colour c = enum_from_name(colour_names, "green", "colour");  // Colour::green
///   std::string_view s = enum_name(colour_names, c);            // "green"
///   enum_from_name(colour_names, "blue", "colour");
///   // camber::Error (bad input): unknown colour 'blue'; valid: red, green
/// @endcode
///
/// An unknown name is always an error: never the last branch of a chain of
/// comparisons that takes anything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <camber/core/error.hpp>

namespace camber {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

/// "a, b, c": every name of the table, in its order.
template <class Names>
std::string enum_name_list(const Names& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + std::string(n.name);
  return out;
}

/// Every name of the table, in its order (a deck's allowed values).
template <class Names>
std::vector<std::string> enum_names(const Names& names) {
  std::vector<std::string> out;
  for (const auto& n : names) out.emplace_back(n.name);
  return out;
}

/// The value called `name`; a bad-input camber::Error naming `what` and the
/// valid names if there is none.
template <class Names>
auto enum_from_name(const Names& names, std::string_view name, std::string_view what)
    -> decltype(names.begin()->value) {
  for (const auto& n : names)
    if (n.name == name) return n.value;
  throw Error(ErrorKind::bad_input, "unknown " + std::string(what) + " '" + std::string(name) +
                                        "'; valid: " + enum_name_list(names));
}

/// The name of `value`; a camber::Error (failure) if the table lacks it.
template <class Names, class E>
std::string_view enum_name(const Names& names, E value) {
  for (const auto& n : names)
    if (n.value == value) return n.name;
  throw Error(ErrorKind::failure, "enum value " + std::to_string(static_cast<long long>(value)) +
                                      " has no name in its table");
}

}  // namespace camber
