// SPDX-License-Identifier: GPL-2.0-only
//
// TcpPccVivace, its socket hooks: finding the socket, and reading the segments it transmits and
// the ACKs it receives (tcp-pcc-vivace.cc has the type and the attributes).

#include "tcp-pcc-vivace.h"

#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/object-map.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-socket-base.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpPccVivaceSocket");

// --- socket hooks ----------------------------------------------------------------------

void
TcpPccVivace::Attach()
{
    m_attachTried = true;
    // Find the socket whose congestion control is this object. TcpL4Protocol::CreateSocket
    // calls Init before the socket is listed, so this runs at its first transmission.
    Ptr<TcpSocketBase> socket;
    for (auto n = NodeList::Begin(); n != NodeList::End() && !socket; ++n)
    {
        Ptr<TcpL4Protocol> tcp = (*n)->GetObject<TcpL4Protocol>();
        if (!tcp)
        {
            continue;
        }
        ObjectMapValue sockets;
        tcp->GetAttribute("SocketList", sockets);
        for (auto it = sockets.Begin(); it != sockets.End(); ++it)
        {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(it->second);
            if (!s)
            {
                continue;
            }
            PointerValue cc;
            s->GetAttribute("CongestionOps", cc);
            if (PeekPointer(cc.Get<TcpCongestionOps>()) == this)
            {
                socket = s;
                break;
            }
        }
    }
    if (!socket)
    {
        NS_LOG_WARN("TcpPccVivace: socket not found; the rate stays at the initial window");
        return;
    }
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&TcpPccVivace::OnTx, this));
    socket->TraceConnectWithoutContext("Rx", MakeCallback(&TcpPccVivace::OnRx, this));
    // The probing order is drawn from a generator seeded by the run's seed and the socket's
    // node and port: deterministic, and different for each flow.
    Address local;
    uint64_t port = 0;
    if (socket->GetSockName(local) == 0 && InetSocketAddress::IsMatchingType(local))
    {
        port = InetSocketAddress::ConvertFrom(local).GetPort();
    }
    m_rng = (static_cast<uint64_t>(RngSeedManager::GetSeed()) << 32) ^
            (RngSeedManager::GetRun() * 0x9e3779b97f4a7c15ULL) ^
            (static_cast<uint64_t>(socket->GetNode()->GetId()) << 16) ^ port;
    SplitMix64(m_rng);
    m_attached = true;
}

uint64_t
TcpPccVivace::Unwrap(SequenceNumber32 seq) const
{
    const int64_t v = static_cast<int64_t>(m_ref64) + static_cast<int64_t>(seq - m_ref32);
    return v < 0 ? 0 : static_cast<uint64_t>(v);
}

void
TcpPccVivace::OnTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> s)
{
    const uint32_t size = packet->GetSize();
    if (size == 0)
    {
        return; // SYN, pure ACK or bare FIN
    }
    const Time now = Simulator::Now();
    const SequenceNumber32 seq = header.GetSequenceNumber();
    if (!m_seqInit)
    {
        m_seqInit = true;
        m_ref32 = seq;
        m_ref64 = 0;
        m_nextNew = 0;
    }
    const uint64_t begin = Unwrap(seq);
    const uint64_t end = begin + size;
    MaybeStartInterval(now);
    Interval& mi = m_intervals.back();
    mi.bytesTx += size;
    if (begin >= m_nextNew)
    {
        Segment sgm;
        sgm.begin = begin;
        sgm.end = end;
        sgm.sent = now;
        sgm.interval = mi.id;
        m_segments.push_back(sgm);
        mi.bytesSent += size;
        m_nextNew = end;
        m_ref32 = seq + size;
        m_ref64 = end;
    }
    else
    {
        // A retransmission: TCP declared these bytes lost (fast retransmit, RACK-less SACK
        // recovery or an RTO). Their first transmission counts as lost in its MI.
        MarkLost(begin, std::min(end, m_nextNew));
    }
    ProcessResults();
}

void
TcpPccVivace::MarkLost(uint64_t begin, uint64_t end)
{
    auto it = std::upper_bound(m_segments.begin(),
                               m_segments.end(),
                               begin,
                               [](uint64_t v, const Segment& sgm) { return v < sgm.begin; });
    if (it != m_segments.begin())
    {
        --it;
    }
    for (; it != m_segments.end() && it->begin < end; ++it)
    {
        if (it->end <= begin || it->delivered || it->lost)
        {
            continue;
        }
        it->lost = true;
        if (Interval* mi = FindInterval(it->interval))
        {
            mi->bytesLost += it->end - it->begin;
        }
    }
}

void
TcpPccVivace::Deliver(Segment& segment, const Segment** newest)
{
    if (segment.delivered || segment.lost)
    {
        return;
    }
    segment.delivered = true;
    if (Interval* mi = FindInterval(segment.interval))
    {
        mi->bytesDelivered += segment.end - segment.begin;
    }
    if (*newest == nullptr || segment.sent > (*newest)->sent)
    {
        *newest = &segment;
    }
}

void
TcpPccVivace::OnRx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> s)
{
    if (!(header.GetFlags() & TcpHeader::ACK) || !m_seqInit || m_segments.empty())
    {
        return;
    }
    const Time now = Simulator::Now();
    const uint64_t cum = Unwrap(header.GetAckNumber());
    // The newest segment this ACK newly delivers gives the RTT sample; a copy, since the
    // cumulatively acknowledged ones leave the deque below.
    Segment newestCopy;
    bool haveNewest = false;
    const Segment* newest = nullptr;
    while (!m_segments.empty() && m_segments.front().end <= cum)
    {
        Deliver(m_segments.front(), &newest);
        if (newest == &m_segments.front())
        {
            newestCopy = *newest;
            haveNewest = true;
            newest = nullptr;
        }
        m_segments.pop_front();
    }
    if (header.HasOption(TcpOption::SACK))
    {
        Ptr<const TcpOptionSack> sack =
            DynamicCast<const TcpOptionSack>(header.GetOption(TcpOption::SACK));
        for (const auto& block : sack->GetSackList())
        {
            const uint64_t lo = Unwrap(block.first);
            const uint64_t hi = Unwrap(block.second);
            auto it =
                std::lower_bound(m_segments.begin(),
                                 m_segments.end(),
                                 lo,
                                 [](const Segment& sgm, uint64_t v) { return sgm.begin < v; });
            for (; it != m_segments.end() && it->end <= hi; ++it)
            {
                Deliver(*it, &newest);
            }
        }
    }
    if (newest != nullptr && (!haveNewest || newest->sent > newestCopy.sent))
    {
        newestCopy = *newest;
        haveNewest = true;
    }
    if (haveNewest)
    {
        OnRttSample(newestCopy, now - newestCopy.sent);
    }
    ProcessResults();
}

void
TcpPccVivace::OnRttSample(const Segment& segment, Time rtt)
{
    const double r = rtt.GetSeconds();
    if (!(r > 0.0))
    {
        return;
    }
    if (Interval* mi = FindInterval(segment.interval))
    {
        mi->sampleT.push_back((segment.sent - mi->start).GetSeconds());
        mi->sampleRtt.push_back(r);
    }
    m_srttS = m_srttS > 0.0 ? 0.875 * m_srttS + 0.125 * r : r;
    m_minRttS = std::min(m_minRttS, r);
    if (m_mode == Mode::INITIAL)
    {
        // The initial window took one RTT: r0 = IW / RTT; slow start begins at 2 r0.
        const double iw =
            static_cast<double>(std::max<uint32_t>(m_tcb ? m_tcb->m_initialCWnd : 1, 1)) *
            (m_tcb ? m_tcb->m_segmentSize : 1448);
        m_mode = Mode::STARTING;
        ++m_epoch;
        m_havePrevStart = false;
        m_startNextBps = ClampRate(2.0 * iw * 8.0 / r);
        m_restart = true;
        SetRate(m_startNextBps);
    }
}

} // namespace ns3
