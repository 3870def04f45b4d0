// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpMidnode, the packets: intercepting them, Interests from downstream (cache hits, the miss
// upstream), Data and VPHs from upstream (hop samples, Algorithm 1, caching, the sending
// buffer), sending through UDP and IPv4, and hole repair (leotp-midnode.cc has the type, the
// set-up and the soft state).

#include "leotp-midnode.h"
#include "leotp-route-interface.h"
#include "leotp-trace-tag.h"
#include "model/link/leo-delay-tag.h"
#include "model/network/leo-timetable-routing.h"

#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

bool
LeotpMidnode::Intercept(Ptr<const Packet> packet, const Ipv4Header& ip, uint32_t iif)
{
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER ||
        packet->GetSize() < UdpHeader().GetSerializedSize() + LeotpHeader::kSize)
    {
        return false;
    }
    UdpHeader udp;
    packet->PeekHeader(udp);
    auto it = m_flows.find(udp.GetDestinationPort());
    if (it == m_flows.end())
    {
        return false; // not a flow of ours: forwarded as usual
    }
    Flow& f = *it->second;
    Ptr<Packet> p = packet->Copy();
    p->RemoveHeader(udp);
    LeotpHeader h;
    p->RemoveHeader(h);
    if (!h.valid || h.flowId != f.flowId || h.rangeEnd < h.rangeStart)
    {
        return false;
    }
    if (ip.GetTtl() <= 1)
    {
        ++f.stats.ttlDrops; // as a router would (a loop between an old and a new route)
        return true;
    }
    const auto ttl = static_cast<uint8_t>(ip.GetTtl() - 1);
    State(f, ip, h.IsInterest());
    Touch(f);
    if (h.IsInterest())
    {
        OnInterest(f, h, iif, ttl);
    }
    else
    {
        OnData(f, h, p, iif, ttl);
    }
    return true;
}

double
LeotpMidnode::HopRate(const Flow& f) const
{
    // eqs. (9)-(10): this node has a sending buffer and a next hop
    return f.ctrl->Rate(true,
                        static_cast<double>(f.buf->GetBytes()),
                        f.s.TargetBytes(),
                        f.buf->GetRate());
}

void
LeotpMidnode::SendUdp(Flow& f, Ptr<Packet> p, bool towardConsumer, uint8_t ttl)
{
    const Ipv4Address src = towardConsumer ? f.server : f.client;
    const Ipv4Address dst = towardConsumer ? f.client : f.server;
    Ipv4Header h;
    h.SetSource(src);
    h.SetDestination(dst);
    h.SetProtocol(UdpL4Protocol::PROT_NUMBER);
    Socket::SocketErrno err;
    Ptr<Ipv4Route> route = m_routing->RouteOutput(p, h, nullptr, err);
    if (!route)
    {
        ++f.stats.noRoute; // off every recent step of the route (cause ROUTE)
        return;
    }
    SocketIpTtlTag tt;
    tt.SetTtl(ttl);
    p->ReplacePacketTag(tt);
    // The endpoints' addresses and the flow's port on both sides (IP_TRANSPARENT).
    m_udp->Send(p, src, dst, f.port, f.port, route);
}

int64_t
LeotpMidnode::UpstreamInterface(const Flow& f) const
{
    return InterfaceToward(f.client, f.server);
}

int64_t
LeotpMidnode::DownstreamInterface(const Flow& f) const
{
    return InterfaceToward(f.server, f.client);
}

int64_t
LeotpMidnode::InterfaceToward(Ipv4Address src, Ipv4Address dst) const
{
    return LeotpInterfaceToward(m_node, src, dst);
}

void
LeotpMidnode::SendInterest(Flow& f,
                           uint64_t start,
                           uint64_t end,
                           uint8_t ttl,
                           const LeotpHeader* passOn)
{
    const double now = Simulator::Now().GetSeconds();
    LeotpHeader h;
    if (passOn)
    {
        h = *passOn; // variant C: the Consumer's timestamp and sendRate go upstream unchanged
        h.rangeStart = static_cast<uint32_t>(start);
        h.rangeEnd = static_cast<uint32_t>(end);
    }
    else
    {
        // Variant C Midnodes send no rate of their own (0: no change).
        const uint16_t rate =
            f.RateControlled() ? LeotpHeader::RateField(HopRate(f)) : static_cast<uint16_t>(0);
        h = LeotpHeader::Interest(f.flowId,
                                  static_cast<uint32_t>(start),
                                  static_cast<uint32_t>(end),
                                  LeotpHeader::TimestampUs(now),
                                  rate);
        f.stats.sendRateBps = LeotpHeader::FieldRate(rate);
    }
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    SendUdp(f, p, false, ttl);
    f.lastInterestS = now;
    ++f.stats.interestsOut;
}

void
LeotpMidnode::RequestHole(Flow& f, uint64_t start, uint64_t end)
{
    for (const LeotpRange& r : LeotpHoleDetector::SplitChunks(start, end, f.s.payloadBytes))
    {
        SendInterest(f, r.first, r.second, 64, nullptr);
        ++f.stats.shrInterests;
    }
}

void
LeotpMidnode::OnInterest(Flow& f, const LeotpHeader& h, uint32_t iif, uint8_t ttl)
{
    ++f.stats.interestsIn;
    const double now = Simulator::Now().GetSeconds();
    if (f.RateControlled())
    {
        f.buf->OnInterest(h, LeotpHeader::TimestampUs(now)); // OWD_I and Rate_nextHop
        if (h.rateOrLength > 0)
        {
            f.interestIf = iif; // the hop OWD_I was measured on
        }
    }
    const LeotpHeader* passOn = f.RateControlled() ? nullptr : &h;
    if (h.rangeStart >= h.rangeEnd)
    {
        if (passOn)
        {
            SendInterest(f, 0, 0, ttl, passOn); // the Consumer's rate goes to the Producer
        }
        return;
    }
    uint64_t served = h.rangeStart;
    if (f.Repairs())
    {
        LeotpCacheStamp st;
        served = m_cache->LookupPrefix(f.flowId, h.rangeStart, h.rangeEnd, &st);
        if (served > h.rangeStart)
        {
            // A hit: the longest contiguous cached prefix goes downstream from here.
            const auto a = h.rangeStart;
            const auto b = static_cast<uint32_t>(served);
            LeotpQueued q;
            q.header = LeotpHeader::Data(f.flowId, a, b, passOn ? h.timestamp : 0, true, 0);
            q.payload = Create<Packet>(b - a);
            if (st.traced)
            {
                LeotpTraceTag tag;
                tag.firstSentTicks = st.firstSentTicks;
                tag.retransmitted = 1;
                q.payload->AddPacketTag(tag);
            }
            if (st.measured)
            {
                // Timed from the packet's transmission it was cached from; the time in the
                // cache counts as waiting.
                LeoDelayTag dt;
                dt.sentTicks = st.sentTicks;
                dt.queueTicks = st.queueTicks + (Simulator::Now().GetTimeStep() - st.arrivalTicks);
                q.payload->AddPacketTag(dt);
            }
            q.enqueuedS = now;
            q.wireBytes = LeotpFlowSettings::WireBytes(b - a, true);
            f.stats.cacheHitBytes += b - a;
            f.buf->Enqueue(std::move(q)); // a full buffer drops (counted by the buffer)
            AccountBuffer(f);
        }
    }
    if (served < h.rangeEnd)
    {
        SendInterest(f, served, h.rangeEnd, ttl, passOn); // the miss, as this node's Interest
    }
}

void
LeotpMidnode::OnData(Flow& f, const LeotpHeader& h, Ptr<Packet> payload, uint32_t iif, uint8_t ttl)
{
    ++f.stats.dataIn;
    const double now = Simulator::Now().GetSeconds();
    const uint32_t nowUs = LeotpHeader::TimestampUs(now);
    const bool vph = h.IsVph();
    const uint32_t len = vph ? 0 : h.rangeEnd - h.rangeStart;
    if (f.RateControlled())
    {
        // The hop this node measures is the one to its upstream neighbour on the route now,
        // where its Interests go. A node left off the route drains its buffer toward here
        // (section 1.10 of the spec): those packets are forwarded as usual but describe no hop
        // of the route, and their arrival changes no neighbour.
        const int64_t up = UpstreamInterface(f);
        if (up < 0 || up == static_cast<int64_t>(iif))
        {
            if (f.upstreamIf >= 0 && f.upstreamIf != static_cast<int64_t>(iif))
            {
                // A new upstream neighbour: the hop state describes the old hop [REC].
                f.ctrl->Reset();
                ++f.stats.resets;
            }
            f.upstreamIf = iif;
            if (h.timestamp != LeotpHeader::kNoTimestamp)
            {
                f.ctrl->OnSample(now, LeotpHeader::ElapsedS(nowUs, h.timestamp));
            }
            f.ctrl->OnReceive(now, LeotpFlowSettings::WireBytes(len, h.type == LeotpType::DATA_BL));
        }
        else
        {
            ++f.stats.offRouteDataIn;
        }
    }
    LeotpHoleDetector::Result r;
    if (f.Repairs())
    {
        r = f.det->OnPacket(h.rangeStart, h.rangeEnd, now);
        if (r.vph)
        {
            // Announce the hole downstream, before this packet (Algorithm 1).
            for (const LeotpRange& v : LeotpHoleDetector::SplitChunks(r.vphRange.first,
                                                                      r.vphRange.second,
                                                                      f.s.payloadBytes))
            {
                LeotpQueued q;
                q.header = LeotpHeader::Vph(f.flowId,
                                            static_cast<uint32_t>(v.first),
                                            static_cast<uint32_t>(v.second),
                                            f.RateControlled() ? 0 : h.timestamp);
                q.payload = Create<Packet>();
                q.enqueuedS = now;
                q.wireBytes = LeotpFlowSettings::WireBytes(0, false);
                ++f.stats.vphsSent;
                f.buf->Enqueue(std::move(q));
            }
        }
        if (!vph)
        {
            LeotpCacheStamp st;
            st.arrivalTicks = Simulator::Now().GetTimeStep();
            LeotpTraceTag tag;
            if (payload->PeekPacketTag(tag))
            {
                st.traced = true;
                st.firstSentTicks = tag.firstSentTicks;
            }
            LeoDelayTag dt;
            if (payload->PeekPacketTag(dt))
            {
                st.measured = true;
                st.sentTicks = dt.sentTicks;
                st.queueTicks = dt.queueTicks;
            }
            m_cache->Insert(f.flowId, h.rangeStart, h.rangeEnd, st);
        }
    }
    LeotpQueued q;
    q.header = h; // srcBacklog passes on unchanged
    q.payload = payload;
    q.enqueuedS = now;
    q.wireBytes = LeotpFlowSettings::WireBytes(len, h.type == LeotpType::DATA_BL);
    q.ttl = ttl;
    f.buf->Enqueue(std::move(q));
    AccountBuffer(f);
    for (const LeotpRange& req : r.requests)
    {
        RequestHole(f, req.first, req.second);
    }
    if (f.Repairs())
    {
        ArmHoleTimer(f);
    }
    if (f.RateControlled() && f.ctrl->HasSample() &&
        now - f.lastInterestS >= f.s.emptyInterestRtts * f.ctrl->GetHopRttS())
    {
        SendInterest(f, 0, 0, 64, nullptr); // rate only [REC, code]
        ++f.stats.emptyInterests;
    }
}

void
LeotpMidnode::Release(Flow& f, LeotpQueued&& q)
{
    const Time now = Simulator::Now();
    if (f.RateControlled())
    {
        // timestamp = t_send - OWD_I, OWD_I being the latest Interest's "on this hop" (spec
        // section 1.8): if the Data now leave toward another neighbour than the one that
        // Interest came from (a route change below this node), there is no OWD_I of the hop.
        q.header.timestamp = f.interestIf == DownstreamInterface(f)
                                 ? f.buf->DataTimestamp(LeotpHeader::TimestampUs(now.GetSeconds()))
                                 : LeotpHeader::kNoTimestamp;
    }
    LeoDelayTag dt;
    if (q.payload->PeekPacketTag(dt))
    {
        // The wait in this sending buffer counts as queueing, as a device queue's does.
        dt.queueTicks += (now - Seconds(q.enqueuedS)).GetTimeStep();
        q.payload->ReplacePacketTag(dt);
    }
    q.payload->AddHeader(q.header);
    SendUdp(f, q.payload, true, q.ttl);
    ++f.stats.dataOut;
    Touch(f);
    AccountBuffer(f);
}

void
LeotpMidnode::ArmHoleTimer(Flow& f)
{
    if (f.holeTimer.IsPending())
    {
        return;
    }
    const double t = f.det->NextExpiryS();
    if (!std::isfinite(t))
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    f.holeTimer = Simulator::Schedule(Seconds(std::max(0.0, t - now)),
                                      &LeotpMidnode::HoleTimerFired,
                                      this,
                                      f.port);
}

void
LeotpMidnode::HoleTimerFired(uint16_t port)
{
    auto it = m_flows.find(port);
    if (it == m_flows.end() || !it->second->active)
    {
        return;
    }
    Flow& f = *it->second;
    for (const LeotpRange& r : f.det->Expire(Simulator::Now().GetSeconds()))
    {
        RequestHole(f, r.first, r.second); // open too long: requested anyway [REC]
    }
    ArmHoleTimer(f);
}

} // namespace ns3
