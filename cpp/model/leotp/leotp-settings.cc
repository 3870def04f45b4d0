// SPDX-License-Identifier: GPL-2.0-only

#include "leotp-settings.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
{
/// UDP (8) and IPv4 (20) headers.
constexpr uint32_t kUdpIpBytes = 28;
} // namespace

uint32_t
LeotpFlowSettings::WireBytes(uint32_t payload, bool withBacklog)
{
    return payload + (withBacklog ? LeotpHeader::kSizeWithBacklog : LeotpHeader::kSize) +
           kUdpIpBytes;
}

uint32_t
LeotpFlowSettings::WirePacketBytes() const
{
    return WireBytes(payloadBytes, true);
}

double
LeotpFlowSettings::TargetBytes() const
{
    return targetBufferPackets * WirePacketBytes();
}

void
LeotpFlowSettings::Finalize()
{
    hop.packetBytes = WirePacketBytes();
    hole.chunkBytes = payloadBytes;
}

void
LeotpFlowSettings::Check(const std::string& prefix) const
{
    if (payloadBytes < 1 || payloadBytes > 65535 - LeotpHeader::kSizeWithBacklog - kUdpIpBytes)
    {
        throw std::invalid_argument(prefix + ".payload_bytes: must be in [1, 65486] (the UDP "
                                             "payload less the 21-byte LEOTP header)");
    }
    if (!std::isfinite(minInterestRateBps) || !(minInterestRateBps > 0) ||
        minInterestRateBps > 1e12)
    {
        throw std::invalid_argument(prefix + ".min_interest_rate_bps: must be in (0, 1e12]");
    }
    if (!std::isfinite(idleTimeoutS) || !(idleTimeoutS > 0) || idleTimeoutS > 3600)
    {
        throw std::invalid_argument(prefix + ".idle_timeout_s: must be in (0, 3600] s");
    }
    if (!std::isfinite(emptyInterestRtts) || !(emptyInterestRtts > 0) || emptyInterestRtts > 100)
    {
        throw std::invalid_argument(prefix + ".empty_interest_rtts: must be in (0, 100]");
    }
    if (maxBufferBytes < WirePacketBytes())
    {
        throw std::invalid_argument(prefix + ".max_buffer_bytes: must hold one packet");
    }
    hop.Check(prefix);
    hole.Check(prefix);
    rto.Check(prefix);
}

LeotpVariant
LeotpFlowSettings::ParseVariant(const std::string& name, const std::string& field)
{
    if (name == "A")
    {
        return LeotpVariant::A;
    }
    if (name == "B")
    {
        return LeotpVariant::B;
    }
    if (name == "C")
    {
        return LeotpVariant::C;
    }
    if (name == "D")
    {
        return LeotpVariant::D;
    }
    throw std::invalid_argument(field + ": must be 'A', 'B', 'C' or 'D', got '" + name + "'");
}

std::string
LeotpFlowSettings::VariantName(LeotpVariant v)
{
    switch (v)
    {
    case LeotpVariant::A:
        return "A";
    case LeotpVariant::B:
        return "B";
    case LeotpVariant::C:
        return "C";
    case LeotpVariant::D:
        return "D";
    }
    return "?";
}

} // namespace ns3
