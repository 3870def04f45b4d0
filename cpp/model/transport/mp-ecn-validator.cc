// SPDX-License-Identifier: GPL-2.0-only

#include "mp-ecn-validator.h"

namespace ns3
{

const char*
MpEcnStateName(MpEcnState s)
{
    switch (s)
    {
    case MpEcnState::OFF:
        return "off";
    case MpEcnState::TESTING:
        return "testing";
    case MpEcnState::UNKNOWN:
        return "unknown";
    case MpEcnState::CAPABLE:
        return "capable";
    case MpEcnState::FAILED:
        return "failed";
    }
    return "unknown";
}

void
MpEcnValidator::Start(bool enabled)
{
    *this = MpEcnValidator();
    m_state = enabled ? MpEcnState::TESTING : MpEcnState::OFF;
}

void
MpEcnValidator::Fail()
{
    m_state = MpEcnState::FAILED;
}

MpEcnCodepoint
MpEcnValidator::OnPacketSent(MpEcnCodepoint cp)
{
    if ((m_state != MpEcnState::TESTING && m_state != MpEcnState::CAPABLE) ||
        (cp != MpEcnCodepoint::ECT0 && cp != MpEcnCodepoint::ECT1))
    {
        return MpEcnCodepoint::NOT_ECT;
    }
    if (cp == MpEcnCodepoint::ECT0)
    {
        ++m_sentEct0;
    }
    else
    {
        ++m_sentEct1;
    }
    if (m_state == MpEcnState::TESTING && ++m_testingSent >= kTestingPackets)
    {
        m_state = MpEcnState::UNKNOWN;
    }
    return cp;
}

void
MpEcnValidator::OnPtoExpired()
{
    if (m_state == MpEcnState::TESTING && ++m_testingPtos >= kTestingPtos)
    {
        m_state = MpEcnState::UNKNOWN;
        OnPacketsLost(0); // every testing packet may already be lost
    }
}

void
MpEcnValidator::OnPacketsLost(uint64_t ectLost)
{
    // Only testing packets are ECN-capable while testing or unknown.
    if (m_state != MpEcnState::TESTING && m_state != MpEcnState::UNKNOWN)
    {
        return;
    }
    m_testingLost += ectLost;
    if (m_state == MpEcnState::UNKNOWN && m_testingSent > 0 && m_testingLost >= m_testingSent)
    {
        Fail(); // RFC 9000 13.4.2: every ECN-capable packet of the test was lost
    }
}

MpEcnValidator::Feedback
MpEcnValidator::OnAck(uint64_t ackedEct0,
                      uint64_t ackedEct1,
                      bool largestIncreased,
                      bool hasCounts,
                      const MpEcnCounts& counts)
{
    Feedback fb;
    if (m_state == MpEcnState::OFF || m_state == MpEcnState::FAILED || !largestIncreased)
    {
        return fb;
    }
    fb.newlyAckedEct = ackedEct0 + ackedEct1;
    if (!hasCounts)
    {
        if (fb.newlyAckedEct > 0)
        {
            Fail(); // 13.4.2.1: ECN-capable packets acknowledged without counts
        }
        return fb;
    }
    if (counts.ect0 < m_peer.ect0 || counts.ect1 < m_peer.ect1 || counts.ce < m_peer.ce)
    {
        Fail(); // cumulative counts never decrease
        return fb;
    }
    fb.ect0Increase = counts.ect0 - m_peer.ect0;
    fb.ect1Increase = counts.ect1 - m_peer.ect1;
    fb.ceIncrease = counts.ce - m_peer.ce;
    if (fb.ect0Increase + fb.ceIncrease < ackedEct0 || fb.ect1Increase + fb.ceIncrease < ackedEct1)
    {
        Fail(); // 13.4.2.1: marks were removed on the way
        return fb;
    }
    if (counts.ect0 > m_sentEct0 || counts.ect1 > m_sentEct1 ||
        counts.ect0 + counts.ect1 + counts.ce > m_sentEct0 + m_sentEct1)
    {
        Fail(); // 13.4.2.1: more than was sent with that codepoint (or a codepoint never sent)
        return fb;
    }
    m_peer = counts;
    fb.accepted = true;
    if (fb.newlyAckedEct > 0 && (m_state == MpEcnState::TESTING || m_state == MpEcnState::UNKNOWN))
    {
        m_state = MpEcnState::CAPABLE;
    }
    return fb;
}

} // namespace ns3
