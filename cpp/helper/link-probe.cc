// SPDX-License-Identifier: GPL-2.0-only

#include "link-probe.h"

#include "helper/sim-context.h"
#include "model/link/leo-channel.h"
#include "model/link/leo-net-device.h"

#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

LinkProbeResult
RunLinkProbe(const LeoPathArrays& path,
             LeoDirection dir,
             const std::vector<double>& sendTimesS,
             const std::vector<uint32_t>& sizesBytes,
             uint32_t seed,
             uint64_t run,
             uint16_t mtu,
             int64_t stream)
{
    const std::size_t n = sendTimesS.size();
    if (sizesBytes.size() != n)
    {
        throw std::invalid_argument("sizes_bytes: length " + std::to_string(sizesBytes.size()) +
                                    " does not match send_times_s (length " + std::to_string(n) +
                                    ")");
    }
    if (mtu < 68)
    {
        throw std::invalid_argument("mtu: must be in [68, 65535]");
    }
    if (seed == 0)
    {
        throw std::invalid_argument("seed: must be >= 1");
    }
    if (stream < 0)
    {
        throw std::invalid_argument("stream: must be >= 0");
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        const double t = sendTimesS[i];
        if (!std::isfinite(t) || t < 0.0 || t > 1e7)
        {
            throw std::invalid_argument("send_times_s[" + std::to_string(i) +
                                        "]: must be finite and in [0, 1e7]");
        }
        if (i > 0 && t < sendTimesS[i - 1])
        {
            throw std::invalid_argument("send_times_s[" + std::to_string(i) +
                                        "]: must be non-decreasing");
        }
        if (sizesBytes[i] < 1 || sizesBytes[i] > mtu)
        {
            throw std::invalid_argument("sizes_bytes[" + std::to_string(i) +
                                        "]: must be in [1, mtu]");
        }
    }
    Ptr<const LeoPathSchedule> schedule = Create<LeoPathSchedule>(path, "path");

    std::unique_ptr<SimLease> lease = SimContext::Acquire("probe_link", seed, run);
    Ptr<Node> client = CreateObject<Node>();
    Ptr<Node> server = CreateObject<Node>();
    Ptr<LeoNetDevice> cd = CreateObject<LeoNetDevice>();
    Ptr<LeoNetDevice> sd = CreateObject<LeoNetDevice>();
    for (const auto& dev : {cd, sd})
    {
        dev->SetAddress(Mac48Address::Allocate());
        dev->SetMtu(mtu);
    }
    client->AddDevice(cd);
    server->AddDevice(sd);
    Ptr<LeoChannel> ch = CreateObject<LeoChannel>();
    ch->Connect(cd, sd, schedule);
    sd->AssignStreams(stream + static_cast<int>(LeoDirection::DOWN));
    cd->AssignStreams(stream + static_cast<int>(LeoDirection::UP));

    const bool down = dir == LeoDirection::DOWN;
    Ptr<LeoNetDevice> tx = down ? sd : cd;
    Ptr<LeoNetDevice> rx = down ? cd : sd;
    const uint32_t txContext = (down ? server : client)->GetId();

    LinkProbeResult r;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.sendTimeS = sendTimesS;
    r.recvTimeS.assign(n, nan);
    r.dropTimeS.assign(n, nan);
    r.dropCause.assign(n, -2); // -2: unresolved (never happens once the run ends)
    std::unordered_map<uint64_t, uint32_t> index;
    index.reserve(n);
    // Stop once every packet is resolved: a queue disc's own timers (PIE's drop-probability
    // update) would keep the simulator running forever.
    std::size_t resolved = 0;
    auto resolve = [&]() {
        if (++resolved == n)
        {
            Simulator::Stop();
        }
    };

    rx->SetReceiveCallback(NetDevice::ReceiveCallback(
        [&](Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&) -> bool {
            auto it = index.find(p->GetUid());
            if (it != index.end())
            {
                r.recvTimeS[it->second] = Simulator::Now().GetSeconds();
                r.dropCause[it->second] = -1;
                resolve();
            }
            return true;
        }));
    tx->TraceConnectWithoutContext(
        "Drop",
        Callback<void, Ptr<const Packet>, uint8_t>([&](Ptr<const Packet> p, uint8_t cause) {
            auto it = index.find(p->GetUid());
            if (it != index.end())
            {
                r.dropTimeS[it->second] = Simulator::Now().GetSeconds();
                r.dropCause[it->second] = static_cast<int8_t>(cause);
                resolve();
            }
        }));
    const Address dest = rx->GetAddress();
    for (std::size_t i = 0; i < n; ++i)
    {
        const uint32_t k = static_cast<uint32_t>(i);
        const uint32_t size = sizesBytes[i];
        Simulator::ScheduleWithContext(txContext, Seconds(sendTimesS[i]), [&, k, size]() {
            Ptr<Packet> p = Create<Packet>(size);
            index.emplace(p->GetUid(), k);
            tx->Send(p, dest, 0x0800);
        });
    }
    Simulator::Run();
    r.counters = ch->GetCounters(dir);
    return r;
}

} // namespace ns3
