// SPDX-License-Identifier: GPL-2.0-only
//
// LeoNetDevice: one end of a LeoChannel (time-varying rate, delay, loss and outages).

#ifndef LEO_NET_DEVICE_H
#define LEO_NET_DEVICE_H

#include "leo-link-counters.h"
#include "leo-path-schedule.h"
#include "model/queue/leo-queue-config.h"

#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <deque>

namespace ns3
{

class LeoChannel;

/**
 * @ingroup leo-link
 * A point-to-point device on a LeoChannel. It transmits in one direction of the path (the
 * server-side device DOWN, the client-side device UP) and receives the other.
 *
 * Transmit path of a packet handed to Send() at time t:
 *  1. if the path is in an outage at t, it is dropped (LEO_DROP_OUTAGE);
 *  2. if the transmitter is idle it starts serialization at once, otherwise it joins the
 *     drop-tail queue (TxQueue, limit = the schedule's queuePackets; the packet being
 *     serialized is not in the queue), or is dropped (LEO_DROP_OVERFLOW) when the queue is full;
 *     with an AQM discipline (the schedule's LeoQueueConfig) every packet is enqueued into the
 *     ns-3 queue disc instead (GetQueueDisc()), which the device dequeues from whenever the
 *     transmitter is idle; the disc's drops count as LEO_DROP_OVERFLOW (its limit) or
 *     LEO_DROP_AQM (its algorithm), its ECN marks as markPackets;
 *  3. serialization starts at tS and lasts size * 8 / RateAt(dir, tS) (rate frozen for the
 *     packet), ending at tE;
 *  4. the packet arrives at tR = max(tE + DelayAt(dir, tE), previous arrival) (the link is
 *     FIFO: a falling delay never reorders packets);
 *  5. if [tS, tR) overlaps an outage the packet is dropped (LEO_DROP_OUTAGE) at the first
 *     instant of overlap; else with probability LossAt(dir, tE) it is dropped
 *     (LEO_DROP_RANDOM) at tR; else it is delivered to the peer at tR;
 *  6. at each outage start the queue is flushed (LEO_DROP_OUTAGE).
 * A link whose LeoQueueConfig::ecnHandling is BLEACH clears the ECN field of every packet
 * handed to Send() (IPv4 TOS or shim header); DROP drops every ECN-capable one there
 * (LEO_DROP_ECN), after the outage check and before the queue.
 *
 * No framing is added: the wire size is the size of the packet given to Send() (e.g. the
 * IPv4 datagram). The protocol number travels beside the packet, so IPv4/IPv6 over the device
 * work as on PointToPointNetDevice. NeedsArp() is false.
 */
class LeoNetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId();
    LeoNetDevice();
    ~LeoNetDevice() override;

    /// Replace the transmit queue (the helper sets a DropTailQueue<Packet> of queuePackets).
    void SetQueue(Ptr<Queue<Packet>> queue);
    Ptr<Queue<Packet>> GetQueue() const;
    /// The AQM queue disc (null with drop-tail, or before Attach).
    Ptr<QueueDisc> GetQueueDisc() const;
    /// Packets waiting in the transmit queue (drop-tail queue or queue disc).
    uint32_t GetQueuedPackets() const;

    /**
     * Use fixed random-number streams for the loss draws (ns-3 convention).
     * @return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// Direction this device transmits in (valid once connected).
    LeoDirection GetTxDirection() const;
    Ptr<LeoChannel> GetLeoChannel() const;
    /// Counters of the direction this device transmits in.
    const LeoDirectionCounters& GetTxCounters() const;
    /// Counters of the direction this device receives.
    const LeoDirectionCounters& GetRxCounters() const;
    /// True while a packet is being serialized.
    bool IsTransmitting() const;

    /**
     * Called by LeoChannel::Connect: attach to @p channel, transmitting in @p dir, and
     * schedule the outage-start flushes.
     * @throws std::invalid_argument if already attached or not yet added to a node.
     */
    void Attach(Ptr<LeoChannel> channel, LeoDirection dir);

    /// Delivery from the channel (scheduled by the peer, in this node's context).
    void Receive(Ptr<Packet> packet, uint16_t protocol);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    /// Signature of the "Drop" trace: the packet and its LeoDropCause.
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, uint8_t cause);

  protected:
    void DoDispose() override;

  private:
    void StartTransmission(Ptr<Packet> packet, uint16_t protocol);
    void TransmitComplete();
    void DropNow(Ptr<Packet> packet, LeoDropCause cause);
    void DropLater(Ptr<Packet> packet, uint8_t cause);
    void OutageStart();
    void ScheduleNextOutage();
    /// Send() with a queue disc.
    bool SendToDisc(Ptr<Packet> packet, uint16_t protocol);
    /// Start the queue disc's next packet, if it has one.
    void StartFromDisc();
    /// The queue disc's drop traces.
    void DiscDrop(Ptr<const QueueDiscItem> item, const char* reason);
    /// The queue disc's mark trace.
    void DiscMark(Ptr<const QueueDiscItem> item, const char* reason);

    Ptr<Node> m_node;
    Ptr<LeoChannel> m_channel;
    Ptr<LeoNetDevice> m_peer;
    const LeoPathSchedule* m_schedule{nullptr}; //!< owned by m_channel
    LeoDirection m_txDir{LeoDirection::DOWN};
    LeoDirectionCounters* m_txCounters{nullptr}; //!< in m_channel
    LeoDirectionCounters* m_rxCounters{nullptr}; //!< in m_channel
    uint32_t m_peerContext{0};

    Ptr<Queue<Packet>> m_queue;

    /// What the device keeps beside each queued packet.
    struct QueuedMeta
    {
        uint16_t protocol; //!< protocol number
        int64_t enqueued;  //!< Time step it joined the queue (LeoDelayTag's queueing time)
    };

    std::deque<QueuedMeta> m_queueMeta; //!< parallel to m_queue
    Ptr<QueueDisc> m_disc;              //!< AQM (replaces m_queue when set)
    LeoQueueDiscipline m_discipline{LeoQueueDiscipline::DROPTAIL};
    /// The link's ECN field handling (queue.ecn_handling).
    LeoEcnHandling m_ecnHandling{LeoEcnHandling::PASS};
    Ptr<Packet> m_current; //!< packet being serialized
    bool m_txBusy{false};
    double m_lastArrivalS{0.0}; //!< FIFO guard
    Ptr<UniformRandomVariable> m_uniform;
    std::size_t m_nextOutage{0};
    EventId m_outageEvent;

    uint32_t m_ifIndex{0};
    Mac48Address m_address;
    uint16_t m_mtu{1500};
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;

    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macTxDropTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxEndTrace;
    TracedCallback<Ptr<const Packet>, uint8_t> m_dropTrace;
};

} // namespace ns3

#endif // LEO_NET_DEVICE_H
