// SPDX-License-Identifier: GPL-2.0-only
//
// leogym-test-runner: ns-3's test runner over the C++ unit tests that sit beside the models
// (cpp/model/<part>/test/*-test-suite.cc), built only with LEOGYM_TESTING=ON. Each suite
// registers itself when the program starts; ns-3's runner takes one suite per run:
//
//     leogym-test-runner --list
//     leogym-test-runner --suite=leotp-hole-detector --verbose
//
// tests/native/test_cpp_unit_tests.py runs every suite this way (cpp/doc/build.md).

#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
