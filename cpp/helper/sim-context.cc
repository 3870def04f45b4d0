// SPDX-License-Identifier: GPL-2.0-only

#include "sim-context.h"

#include "ns3/config.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv6-address-generator.h"
#include "ns3/mac48-address.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

namespace
{

bool g_busy = false;
std::string g_owner;

void
CheckSeed(uint32_t seed)
{
    if (seed == 0)
    {
        throw std::invalid_argument("seed: must be >= 1 (ns-3 RngSeedManager rejects 0)");
    }
}

} // namespace

std::unique_ptr<SimLease>
SimContext::Acquire(const std::string& owner, uint32_t seed, uint64_t run)
{
    if (g_busy)
    {
        throw std::runtime_error("ns-3 runs one simulation per process: '" + g_owner +
                                 "' is still open; close it before starting '" + owner +
                                 "' (use subprocesses for parallel simulations)");
    }
    CheckSeed(seed);
    DoReset(seed, run);
    g_busy = true;
    g_owner = owner;
    return std::unique_ptr<SimLease>(new SimLease());
}

void
SimContext::Reset(uint32_t seed, uint64_t run)
{
    if (g_busy)
    {
        throw std::runtime_error("SimContext::Reset: '" + g_owner +
                                 "' is still open; close it first");
    }
    CheckSeed(seed);
    DoReset(seed, run);
}

void
SimContext::DoReset(uint32_t seed, uint64_t run)
{
    // Destroy runs the destroy events, which also dispose NodeList and ChannelList (node ids
    // restart at 0) and the scheduler.
    Simulator::Destroy();
    Config::Reset();
    Ipv4AddressGenerator::Reset();
    Ipv6AddressGenerator::Reset();
    Mac48Address::ResetAllocationIndex();
    RngSeedManager::ResetNextStreamIndex();
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
}

bool
SimContext::IsBusy()
{
    return g_busy;
}

std::string
SimContext::Owner()
{
    return g_busy ? g_owner : std::string();
}

SimLease::~SimLease()
{
    Release();
}

void
SimLease::Release()
{
    if (!m_active)
    {
        return;
    }
    m_active = false;
    Simulator::Destroy();
    g_busy = false;
    g_owner.clear();
}

bool
SimLease::IsActive() const
{
    return m_active;
}

} // namespace ns3
