// SPDX-License-Identifier: GPL-2.0-only
//
// Helpers shared by the C++ unit tests (cpp/model/<part>/test/*-test-suite.cc), which use
// ns-3's TestCase and TestSuite (cpp/doc/build.md, "C++ unit tests").

#ifndef LEOGYM_TEST_H
#define LEOGYM_TEST_H

#include <stdexcept>
#include <string>

namespace ns3
{
namespace leogymtest
{

/**
 * The message of the std::invalid_argument that @p f throws, or "" when it throws none: the
 * models check their parameters by throwing one whose message starts with the field's name.
 */
template <typename F>
std::string
InvalidArgument(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

/// Whether @p text contains @p part (a failed check prints the text).
inline bool
Contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace leogymtest
} // namespace ns3

#endif // LEOGYM_TEST_H
