// SPDX-License-Identifier: GPL-2.0-only

#include "leo-channel.h"

#include "leo-net-device.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeoChannel");
NS_OBJECT_ENSURE_REGISTERED(LeoChannel);

const char*
LeoDropCauseName(uint8_t cause)
{
    switch (cause)
    {
    case LEO_DROP_OUTAGE:
        return "OUTAGE";
    case LEO_DROP_RANDOM:
        return "RANDOM";
    case LEO_DROP_OVERFLOW:
        return "OVERFLOW";
    case LEO_DROP_AQM:
        return "AQM";
    case LEO_DROP_ECN:
        return "ECN";
    default:
        return "UNKNOWN";
    }
}

TypeId
LeoChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeoChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Leo")
                            .AddConstructor<LeoChannel>();
    return tid;
}

LeoChannel::LeoChannel()
{
    NS_LOG_FUNCTION(this);
}

LeoChannel::~LeoChannel()
{
    NS_LOG_FUNCTION(this);
}

void
LeoChannel::DoDispose()
{
    m_client = nullptr;
    m_server = nullptr;
    m_schedule = nullptr;
    Channel::DoDispose();
}

void
LeoChannel::Connect(Ptr<LeoNetDevice> client,
                    Ptr<LeoNetDevice> server,
                    Ptr<const LeoPathSchedule> schedule)
{
    if (!client || !server || !schedule)
    {
        throw std::invalid_argument("LeoChannel::Connect: client, server and schedule must be set");
    }
    if (client == server)
    {
        throw std::invalid_argument("LeoChannel::Connect: client and server must differ");
    }
    if (m_client || m_server)
    {
        throw std::invalid_argument("LeoChannel::Connect: channel is already connected");
    }
    if (client->GetChannel() || server->GetChannel())
    {
        throw std::invalid_argument("LeoChannel::Connect: a device is already on a channel");
    }
    m_schedule = schedule;
    m_client = client;
    m_server = server;
    client->Attach(this, LeoDirection::UP);
    server->Attach(this, LeoDirection::DOWN);
}

Ptr<const LeoPathSchedule>
LeoChannel::GetSchedule() const
{
    return m_schedule;
}

Ptr<LeoNetDevice>
LeoChannel::GetClientDevice() const
{
    return m_client;
}

Ptr<LeoNetDevice>
LeoChannel::GetServerDevice() const
{
    return m_server;
}

Ptr<LeoNetDevice>
LeoChannel::GetPeer(Ptr<const LeoNetDevice> dev) const
{
    if (dev == m_client)
    {
        return m_server;
    }
    if (dev == m_server)
    {
        return m_client;
    }
    return nullptr;
}

const LeoDirectionCounters&
LeoChannel::GetCounters(LeoDirection dir) const
{
    return m_counters[static_cast<int>(dir)];
}

LeoDirectionCounters&
LeoChannel::MutableCounters(LeoDirection dir)
{
    return m_counters[static_cast<int>(dir)];
}

std::size_t
LeoChannel::GetNDevices() const
{
    return (m_client ? 1 : 0) + (m_server ? 1 : 0);
}

Ptr<NetDevice>
LeoChannel::GetDevice(std::size_t i) const
{
    if (i == 0)
    {
        return m_client;
    }
    if (i == 1)
    {
        return m_server;
    }
    return nullptr;
}

} // namespace ns3
