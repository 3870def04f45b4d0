// SPDX-License-Identifier: GPL-2.0-only
//
// Process-level helpers: ns-3 version and simulator clock.

#include "bindings/registry.h"

#include "ns3/simulator.h"

LEOGYM_REGISTER_BINDINGS(core)
{
    m.def(
        "simulator_now",
        []() { return ns3::Simulator::Now().GetSeconds(); },
        "Current ns-3 simulation time in seconds.");
}
