// SPDX-License-Identifier: GPL-2.0-only
//
// LeoTcpBulkSender: an ns-3 TCP bulk sender whose congestion control is chosen per flow.

#ifndef LEO_TCP_BULK_SENDER_H
#define LEO_TCP_BULK_SENDER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/type-id.h"

#include <limits>

namespace ns3
{

/**
 * @ingroup leo-apps
 * Sends bytes as fast as an ns-3 TCP socket accepts them (like BulkSendApplication), with the
 * socket's congestion control chosen per application (CongestionOps attribute) through
 * TcpL4Protocol::CreateSocket(TypeId). BulkSendApplication always takes the node-wide
 * TcpL4Protocol::SocketType, so two flows with different variants cannot share a node with it.
 */
class LeoTcpBulkSender : public Application
{
  public:
    static TypeId GetTypeId();

    /**
     * Turn ECN on for a TCP socket of either end (before it connects or accepts): its
     * TcpSocketBase::UseEcn On (RFC 3168: data ECT(0)). If @p congestionTid is ns3::TcpDctcp
     * (or another controller with a UseEct0 attribute) the socket's controller is replaced
     * by a fresh one with UseEct0 false, so that its data are ECT(1), L4S (RFC 9331), and a
     * receiver echoes marks the DCTCP way (RFC 8257 section 3.2).
     * @param socket an ns3::TcpSocketBase (anything else is left alone)
     * @param congestionTid the socket's congestion control
     */
    static void EnableEcn(Ptr<Socket> socket, TypeId congestionTid);
    LeoTcpBulkSender();
    ~LeoTcpBulkSender() override;

    /// Bytes accepted by the socket so far.
    uint64_t GetTotalTx() const;
    /// The socket (null before start).
    Ptr<Socket> GetSocket() const;
    /// The socket's congestion window (bytes; 0 before start), from its trace source.
    uint32_t GetCwnd() const;
    /// The socket's latest RTT sample (s; NaN before the first), from its "RTT" trace.
    double GetLatestRttS() const;
    /**
     * The largest number of bytes the socket's transmit buffer held (unsent + unacknowledged,
     * TcpTxBuffer::Size), sampled after every write (acknowledgements only shrink it). The
     * socket's SndBufSize bounds it.
     */
    uint32_t GetMaxBufferedBytes() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void ConnectionSucceeded(Ptr<Socket> socket);
    void ConnectionFailed(Ptr<Socket> socket);
    void DataSend(Ptr<Socket> socket, uint32_t available);
    void SendData();
    void OnCwnd(uint32_t oldValue, uint32_t newValue);
    void OnRtt(Time oldValue, Time newValue);

    Address m_remote;
    TypeId m_congestionTid;
    uint64_t m_maxBytes{0};
    uint32_t m_sendSize{1448};
    uint32_t m_sndBufBytes{0};
    uint32_t m_segmentBytes{0};
    Time m_minRto;           //!< the socket's MinRto; zero: the TcpSocketBase default
    bool m_ecn{false};       //!< ECN on the socket (EnableEcn)
    Time m_clockGranularity; //!< the socket's ClockGranularity; zero: the TcpSocketBase default
    Ptr<Socket> m_socket;
    uint64_t m_totalTx{0};
    uint32_t m_maxBuffered{0};
    bool m_connected{false};
    bool m_closed{false};
    uint32_t m_cwnd{0};
    double m_latestRttS{std::numeric_limits<double>::quiet_NaN()};
};

} // namespace ns3

#endif // LEO_TCP_BULK_SENDER_H
