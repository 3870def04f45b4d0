// SPDX-License-Identifier: GPL-2.0-only
//
// The ns-3 TCP attribute defaults of a reference flow (ReferenceFlowOptions::tcpAttributes):
// checked and converted before the simulator is touched, set for one run and put back after it.

#ifndef LEO_REFERENCE_TCP_ATTRIBUTES_H
#define LEO_REFERENCE_TCP_ATTRIBUTES_H

#include "helper/reference-flows.h"

#include "ns3/attribute.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * A checked TCP attribute setting: where it lives and the value ns-3 will get.
 */
struct ResolvedTcpAttribute
{
    std::string path;          //!< "ns3::<TypeId>::<Attribute>"
    TypeId tid;                //!< the TypeId that defines the attribute
    uint32_t index{0};         //!< the attribute's index in tid
    Ptr<AttributeValue> value; //!< converted and checked
};

/**
 * Check and convert TCP attribute settings (the rules of ValidateTcpAttributes).
 * @param settings the caller's settings
 * @return one resolved setting per input, in order
 * @throws std::invalid_argument naming the key as "tcp_attributes['<path>']"
 */
std::vector<ResolvedTcpAttribute> ResolveTcpAttributes(
    const std::vector<TcpAttributeSetting>& settings);

/**
 * @ingroup leo-helper
 * Sets attribute defaults for one run and puts the previous ones back when it goes out of
 * scope (also when the run throws), so later simulations in the process are unaffected.
 */
class TcpDefaultsScope
{
  public:
    TcpDefaultsScope() = default;
    TcpDefaultsScope(const TcpDefaultsScope&) = delete;
    TcpDefaultsScope& operator=(const TcpDefaultsScope&) = delete;
    ~TcpDefaultsScope();

    /// Set one (already checked) default, remembering the one it replaces.
    void Set(const ResolvedTcpAttribute& a);

  private:
    std::vector<std::tuple<TypeId, uint32_t, Ptr<const AttributeValue>>> m_saved;
};

} // namespace ns3

#endif // LEO_REFERENCE_TCP_ATTRIBUTES_H
