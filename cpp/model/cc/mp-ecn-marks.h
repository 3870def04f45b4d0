// SPDX-License-Identifier: GPL-2.0-only
//
// MpEcnMarkedBytes: what one ACK frame's ECN feedback says in bytes, for the controllers that
// estimate the fraction of marked bytes (DCTCP, Prague, BBRv3's ECN response).

#ifndef MP_ECN_MARKS_H
#define MP_ECN_MARKS_H

#include "mp-congestion-ops.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

/**
 * @ingroup mp-cc
 * The bytes of an ACK frame's newly acknowledged data that carried CE. QUIC's ECN feedback
 * counts packets (RFC 9000 section 13.4.1), RFC 8257 counts bytes: each CE packet is worth the
 * frame's mean newly acknowledged ECN-capable packet, ev.bytesAcked / ev.newlyAckedEct, and
 * never more than ev.bytesAcked in all; a frame that acknowledged no ECN-capable packet (its
 * CE increase belongs to packets acknowledged before) counts one mss per CE packet.
 */
inline uint64_t
MpEcnMarkedBytes(const MpEcnEvent& ev, uint32_t mss)
{
    if (ev.ceIncrease == 0)
    {
        return 0;
    }
    if (ev.newlyAckedEct == 0 || ev.bytesAcked == 0)
    {
        return ev.ceIncrease * static_cast<uint64_t>(mss);
    }
    uint64_t ce = std::min(ev.ceIncrease, ev.newlyAckedEct);
    return ev.bytesAcked * ce / ev.newlyAckedEct;
}

} // namespace ns3

#endif // MP_ECN_MARKS_H
