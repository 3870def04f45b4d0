// SPDX-License-Identifier: GPL-2.0-only
//
// SimContext: the process-global ns-3 lifecycle (one simulation per process).

#ifndef LEO_SIM_CONTEXT_H
#define LEO_SIM_CONTEXT_H

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

class SimLease;

/**
 * @ingroup leo-helper
 * ns-3 keeps one simulator per process (Simulator, NodeList, ChannelList, Config defaults,
 * RngSeedManager are process-global). SimContext resets that state between simulations and
 * guards against two live simulations in one process.
 *
 * Typical use (the Simulation facade, reference flows, the link probe):
 * @code
 *   std::unique_ptr<SimLease> lease = SimContext::Acquire("Simulation", seed, run);
 *   LeoTopology topo(...);   // build
 *   Simulator::Run();        // ...
 *   lease->Release();        // or let the lease go out of scope
 * @endcode
 */
class SimContext
{
  public:
    /**
     * Start a fresh simulation: Reset(seed, run) and mark the process busy until the returned
     * lease is released or destroyed.
     *
     * @param owner a short name for error messages, e.g. "Simulation"
     * @throws std::runtime_error if another lease is live ("one simulation per process")
     * @throws std::invalid_argument if seed is 0
     */
    static std::unique_ptr<SimLease> Acquire(const std::string& owner, uint32_t seed, uint64_t run);

    /**
     * Destroy the current simulator and reset the process-global ns-3 state so that a new
     * build starts exactly as the first one in the process did: Simulator::Destroy() (which
     * also clears NodeList and ChannelList and therefore the node ids), Config::Reset()
     * (attribute defaults), Ipv4AddressGenerator::Reset(), Mac48Address::ResetAllocationIndex(),
     * RngSeedManager::ResetNextStreamIndex(), then RngSeedManager::SetSeed(seed) / SetRun(run).
     *
     * @throws std::runtime_error if a lease is live (it would destroy that simulation)
     * @throws std::invalid_argument if seed is 0
     */
    static void Reset(uint32_t seed, uint64_t run);

    /// True while a lease is live.
    static bool IsBusy();
    /// Owner of the live lease ("" if none).
    static std::string Owner();

  private:
    friend class SimLease;
    static void DoReset(uint32_t seed, uint64_t run);
};

/**
 * @ingroup leo-helper
 * Ownership of the process simulator. Release() (idempotent; also run by the destructor)
 * destroys the simulator and frees the process for the next simulation.
 */
class SimLease
{
  public:
    ~SimLease();
    SimLease(const SimLease&) = delete;
    SimLease& operator=(const SimLease&) = delete;

    /// Destroy the simulator and free the process; safe to call twice.
    void Release();
    /// True until Release().
    bool IsActive() const;

  private:
    friend class SimContext;
    SimLease() = default;
    bool m_active{true};
};

} // namespace ns3

#endif // LEO_SIM_CONTEXT_H
