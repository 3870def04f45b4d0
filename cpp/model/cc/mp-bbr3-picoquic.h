// SPDX-License-Identifier: GPL-2.0-only
//
// MpBbr3Picoquic: MpBbr3 with picoquic's constants. Its members are defined in mp-bbr3.cc,
// beside the attributes of MpBbr3 that it registers with other defaults.

#ifndef MP_BBR3_PICOQUIC_H
#define MP_BBR3_PICOQUIC_H

#include "mp-bbr3.h"

namespace ns3
{

/**
 * @ingroup mp-cc
 * BBRv3 with the constants of picoquic's "BBR3 tuned for picoquic" as the StarQUIC fork ran it
 * (docs/specs/testbed-transports.md#starquic-picoquic-with-bbrv3): LossThresh 0.20, a loss response
 * only when more than 3 packets were lost in the round, and Startup again when a
 * retransmission-timeout episode ends.
 */
class MpBbr3Picoquic : public MpBbr3
{
  public:
    static TypeId GetTypeId();
    MpBbr3Picoquic();
};

} // namespace ns3

#endif // MP_BBR3_PICOQUIC_H
