// SPDX-License-Identifier: GPL-2.0-only
//
// Binding registry for leogym's _core module.
//
// Each bindings translation unit registers itself with a static LEOGYM_REGISTER_BINDINGS(name)
// block, so new components add bindings without editing module.cc.

#ifndef LEOGYM_BINDINGS_REGISTRY_H
#define LEOGYM_BINDINGS_REGISTRY_H

#include <pybind11/pybind11.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace leogym
{

using BindingFn = std::function<void(pybind11::module_&)>;

/// The list of binding functions, in registration order (function-local static, so it is safe
/// to use from other translation units' static initialisers).
inline std::vector<std::pair<std::string, BindingFn>>&
BindingRegistry()
{
    static std::vector<std::pair<std::string, BindingFn>> registry;
    return registry;
}

struct BindingRegistrar
{
    BindingRegistrar(const char* name, BindingFn fn)
    {
        BindingRegistry().emplace_back(name, std::move(fn));
    }
};

} // namespace leogym

#define LEOGYM_CONCAT_INNER(a, b) a##b
#define LEOGYM_CONCAT(a, b) LEOGYM_CONCAT_INNER(a, b)
/// Usage: LEOGYM_REGISTER_BINDINGS(network) { m.def(...); }
#define LEOGYM_REGISTER_BINDINGS(name)                                                             \
    static void LEOGYM_CONCAT(leogymBind_, name)(pybind11::module_ & m);                           \
    static ::leogym::BindingRegistrar LEOGYM_CONCAT(leogymRegistrar_,                              \
                                                    name)(#name,                                   \
                                                          &LEOGYM_CONCAT(leogymBind_, name));      \
    static void LEOGYM_CONCAT(leogymBind_, name)(pybind11::module_ & m)

#endif // LEOGYM_BINDINGS_REGISTRY_H
