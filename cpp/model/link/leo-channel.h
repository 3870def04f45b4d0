// SPDX-License-Identifier: GPL-2.0-only
//
// LeoChannel: the point-to-point channel of one LEO (or terrestrial) path.

#ifndef LEO_CHANNEL_H
#define LEO_CHANNEL_H

#include "leo-link-counters.h"
#include "leo-path-schedule.h"

#include "ns3/channel.h"
#include "ns3/ptr.h"

namespace ns3
{

class LeoNetDevice;

/**
 * @ingroup leo-link
 * A point-to-point channel between a client-side and a server-side LeoNetDevice, driven by
 * one path's LeoPathSchedule.
 *
 * The channel owns the schedule and the two directions' counters; the devices do the work
 * (queueing, serialization, propagation, loss, outages). Device 0 is the client (user
 * terminal, transmits UP), device 1 the server (transmits DOWN).
 */
class LeoChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    LeoChannel();
    ~LeoChannel() override;

    /**
     * Wire the two devices to this channel and give it its schedule. Each device learns its
     * transmit direction (client: UP, server: DOWN) and schedules its outage-start events.
     *
     * @throws std::invalid_argument if a pointer is null, a device is already attached to a
     *         channel, or this channel is already connected.
     */
    void Connect(Ptr<LeoNetDevice> client,
                 Ptr<LeoNetDevice> server,
                 Ptr<const LeoPathSchedule> schedule);

    Ptr<const LeoPathSchedule> GetSchedule() const;
    Ptr<LeoNetDevice> GetClientDevice() const;
    Ptr<LeoNetDevice> GetServerDevice() const;
    /// The device at the other end of @p dev (null if @p dev is not attached here).
    Ptr<LeoNetDevice> GetPeer(Ptr<const LeoNetDevice> dev) const;

    /// Counters of one direction (DOWN: server->client), readable at any time without tracing.
    const LeoDirectionCounters& GetCounters(LeoDirection dir) const;
    /// Writable counters; for LeoNetDevice only.
    LeoDirectionCounters& MutableCounters(LeoDirection dir);

    // Channel
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    Ptr<const LeoPathSchedule> m_schedule;
    Ptr<LeoNetDevice> m_client;
    Ptr<LeoNetDevice> m_server;
    LeoDirectionCounters m_counters[2];
};

} // namespace ns3

#endif // LEO_CHANNEL_H
