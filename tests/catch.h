// The suite's one include of Catch2, whichever generation the system has: v2 (Debian 12's catch2)
// is a single header, v3 (Debian 13's libcatch2-dev) is a library with headers of its own and a few
// names moved. Test files include this and write the v2 spellings; nothing else knows the version.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)

#include <catch2/catch_all.hpp>

#include <string>

// Catch2 v3 moved Approx into namespace Catch and renamed the string matcher `Contains` to
// `ContainsSubstring` (its `Contains` now looks for an element in a range).
using Catch::Approx;

namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string& text,
                                                CaseSensitive case_sensitivity = CaseSensitive::Yes) {
    return Matchers::ContainsSubstring(text, case_sensitivity);
}
using Matchers::StartsWith;
}  // namespace Catch

#else

#include <catch2/catch.hpp>

#endif
