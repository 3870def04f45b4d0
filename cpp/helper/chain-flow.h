// SPDX-License-Identifier: GPL-2.0-only
//
// A saturating UDP flow over a chain of identical hops: leogym's hop topology or ns-3's own
// point-to-point chain with IPv4 static routing (the cost reference of `make bench`).

#ifndef LEO_CHAIN_FLOW_H
#define LEO_CHAIN_FLOW_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * @ingroup leo-helper
 * What to build: @c hops links of @c rateBps and @c delayS each (both directions), drop-tail
 * queues of @c queuePackets, a UDP source at @c offeredBps on the first node and a sink on the
 * last.
 */
struct ChainFlowOptions
{
    std::string link{"leo"}; //!< "leo" (LeoHopTopology) or "p2p" (PointToPoint + static routes)
    uint32_t hops{1};        //!< 1..1024
    double rateBps{10e6};
    double delayS{0.001};
    uint32_t queuePackets{100};
    uint32_t payloadBytes{1372}; //!< UDP payload (1400-byte IP packets)
    double offeredBps{0.0};      //!< 0 = 0.95 x rateBps (no queue build-up: the cost of forwarding)
    double durationS{10.0};
};

/**
 * @ingroup leo-helper
 * Result of a chain flow.
 */
struct ChainFlowResult
{
    uint64_t rxPackets{0};
    double wallSeconds{0};
    double cpuSeconds{0}; //!< process CPU time of Simulator::Run
    uint64_t events{0};
};

/**
 * Run a chain flow on a fresh simulator.
 * @throws std::invalid_argument naming the field for bad input
 * @throws std::runtime_error if another simulation is open in this process
 */
ChainFlowResult RunChainFlow(const ChainFlowOptions& options);

} // namespace ns3

#endif // LEO_CHAIN_FLOW_H
