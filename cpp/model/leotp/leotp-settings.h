// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpFlowSettings: the parameters of one LEOTP flow, shared by its Consumer, Producer and
// Midnodes (cpp/doc/leotp.md, "Parameters").

#ifndef LEOTP_SETTINGS_H
#define LEOTP_SETTINGS_H

#include "leotp-header.h"
#include "leotp-hole-detector.h"
#include "leotp-hop-controller.h"
#include "leotp-rto.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * @ingroup leotp
 * The variants of the paper's ablation (section V.C, Table II) and its end-to-end mode:
 *
 *  - A: full LEOTP (Midnodes with cache, SHR and VPH; hop-by-hop congestion control);
 *  - B: hop-by-hop congestion control, no cache (so no in-network repair, no SHR or VPH at
 *    Midnodes: they forward Data and Interests through their rate-limited buffers);
 *  - C: cache, SHR and VPH at Midnodes, end-to-end congestion control: Midnodes neither
 *    rate-limit nor re-stamp, pass the Consumer's timestamp and sendRate upstream unchanged
 *    and forward Data at once; the Consumer runs the hop controller over the whole path;
 *  - D: no Midnodes (the end-to-end LEOTP of Fig. 14).
 *
 * In every variant the Consumer runs SHR (its requests go to the nearest cache) and TR.
 */
enum class LeotpVariant : uint8_t
{
    A = 0,
    B = 1,
    C = 2,
    D = 3,
};

/**
 * @ingroup leotp
 * Parameters of one LEOTP flow. Defaults are the paper's values and the recommended readings
 * [REC] of cpp/doc/leotp.md. Sizes on the wire: a full Data packet is payloadBytes + 21 (the
 * LEOTP header with srcBacklog) + 28 (UDP and IPv4) bytes; with the default payload, 1500.
 * Rates, buffers and the window count these wire bytes.
 */
struct LeotpFlowSettings
{
    LeotpVariant variant{LeotpVariant::A};
    /// Data payload of a chunk (MSS), bytes: the scenario's UDP payload minus the 21-byte header.
    uint32_t payloadBytes{1451};
    /// BL_tar of eqs. (9) and (C1), in full packets (>= 1; the range is the Python schema's,
    /// applied by the config parser from bindings/config-ranges.h, as for the next two).
    double targetBufferPackets{5};
    /// Cache size of every Midnode the flow installs, in 4096-byte blocks (>= 1).
    uint64_t cacheBlocks{65536};
    /// Share of the route's non-ground-station inner nodes that host a Midnode, [0, 1].
    double midnodeFraction{1.0};
    LeotpHopParams hop;
    LeotpHoleParams hole;
    LeotpRtoParams rto;
    /// R_min of (C1), bit/s.
    double minInterestRateBps{1e5};
    /// Midnode soft state expires after this long without packets (s) [REC].
    double idleTimeoutS{2.0};
    /// A rate-only Interest goes upstream after this many hopRTTs without one [REC, code].
    double emptyInterestRtts{0.9};
    /// A sending buffer drops (tail) beyond this many bytes [REC].
    uint64_t maxBufferBytes{10000000};

    /// Bytes of a full Data packet on the wire (payload + LEOTP header + UDP + IPv4).
    uint32_t WirePacketBytes() const;
    /// BL_tar in bytes.
    double TargetBytes() const;
    /// Bytes of a packet on the wire carrying @p payload bytes of Data.
    static uint32_t WireBytes(uint32_t payload, bool withBacklog);
    /// Derive the unit sizes of the hop controller and the detector from payloadBytes.
    void Finalize();
    /// The fields the config dict cannot set (or sets without a schema range) and the
    /// sub-parameters. @throws std::invalid_argument naming "<prefix>.<field>" for a value out
    /// of range
    void Check(const std::string& prefix) const;
    /// "A" .. "D". @throws std::invalid_argument naming @p field otherwise
    static LeotpVariant ParseVariant(const std::string& name, const std::string& field);
    static std::string VariantName(LeotpVariant v);
};

} // namespace ns3

#endif // LEOTP_SETTINGS_H
