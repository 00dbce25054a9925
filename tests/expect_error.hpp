#pragma once
// expect_error<E>(f, substring): expects `f` to throw E (a subclass of fp4gemm::Error) whose
// message contains `substring`. Any other exception escapes and fails the test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace fp4gemm::test {

template <typename E, typename F>
void expect_error(F&& f, std::string_view substring) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one containing: " << substring;
  } catch (const E& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(std::string(substring)));
  }
}

}  // namespace fp4gemm::test
