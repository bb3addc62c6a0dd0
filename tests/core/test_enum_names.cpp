// camber/core/enum_names.hpp: names to values and back, and an unknown name
// as a bad-input error that lists the valid names.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include <camber/core/enum_names.hpp>

namespace {

enum class Fruit { apple, pear, plum };
constexpr std::array<camber::EnumName<Fruit>, 3> fruit_names{
    {{Fruit::pear, "pear"}, {Fruit::apple, "apple"}, {Fruit::plum, "plum"}}};

TEST(EnumNames, NameToValueAndBack) {
  for (const auto& n : fruit_names) {
    EXPECT_EQ(camber::enum_from_name(fruit_names, n.name, "fruit"), n.value);
    EXPECT_EQ(camber::enum_name(fruit_names, n.value), n.name);
  }
}

TEST(EnumNames, ListsNamesInTableOrder) {
  EXPECT_EQ(camber::enum_names(fruit_names), (std::vector<std::string>{"pear", "apple", "plum"}));
  EXPECT_EQ(camber::enum_name_list(fruit_names), "pear, apple, plum");
}

TEST(EnumNames, UnknownNameIsBadInputNamingTheValidOnes) {
  try {
    camber::enum_from_name(fruit_names, "Pear", "basket.fruit");
    FAIL() << "an unknown name was accepted";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown basket.fruit 'Pear'; valid: pear, apple, plum"), std::string::npos)
        << what;
  }
}

TEST(EnumNames, ValueMissingFromTableIsAFailure) {
  constexpr std::array<camber::EnumName<Fruit>, 1> partial{{{Fruit::apple, "apple"}}};
  try {
    camber::enum_name(partial, Fruit::plum);
    FAIL() << "a value without a name was named";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::failure);
  }
}

}  // namespace
