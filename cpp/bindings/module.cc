// SPDX-License-Identifier: GPL-2.0-only
//
// leogym._core: the in-process ns-3 core.
//
// ns-3 keeps one simulator per process (Simulator, NodeList, Config are process-global), so this
// module declares neither free-threading nor sub-interpreter safety. Python-facing objects are
// registered by the bindings translation units through registry.h.

#include "bindings/registry.h"

#include <pybind11/stl.h>

#include "ns3/core-module.h"

namespace py = pybind11;

PYBIND11_MODULE(_core, m)
{
    m.doc() = "leogym native core: ns-3 3.44 LEO multipath scenario, transport and algorithms";
    m.attr("NS3_VERSION") = "3.44";

    std::vector<std::string> names;
    for (auto& [name, fn] : leogym::BindingRegistry())
    {
        fn(m);
        names.push_back(name);
    }
    m.attr("COMPONENTS") = names;
}
