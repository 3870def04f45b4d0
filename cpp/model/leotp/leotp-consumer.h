// SPDX-License-Identifier: GPL-2.0-only
//
// LeotpConsumer: the receiver of a LEOTP flow, which requests its data with Interests (LEOTP,
// ICDCS 2023, sections III.A-III.C).

#ifndef LEOTP_CONSUMER_H
#define LEOTP_CONSUMER_H

#include "leotp-hole-detector.h"
#include "leotp-hop-controller.h"
#include "leotp-interest-pacer.h"
#include "leotp-rto.h"
#include "leotp-settings.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/socket.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

/**
 * @ingroup leotp
 * The Consumer (paper sections III.A-III.C; cpp/doc/leotp.md, "Consumer"): the only node with
 * end-to-end state.
 *
 *  - Interests, one chunk each, in order, from a byte budget that grows at R_int (C1); TR
 *    re-sends come first and spend budget; Interests for holes its own SHR confirms bypass it.
 *  - Timeout retransmission (TR) [P]: an Interest unsatisfied for RTO (RFC 6298, LeotpRto) is
 *    sent again; the n-th re-send is due RTO x 1.5^(n-1) after the previous one. The timer is
 *    event-driven at the earliest deadline [REC]. RTT samples follow Karn's rule: only an
 *    Interest sent once and never reset by a VPH gives one.
 *  - A VPH [a, b) resets the send time of every unsatisfied Interest overlapping it [P], so that
 *    TR waits for the repair; those Interests give no RTT sample [REC].
 *  - Received Data go to a reorder buffer and are delivered in order (goodput); it runs
 *    Algorithm 1 (LeotpHoleDetector) without emitting VPHs, requests confirmed holes from its
 *    upstream neighbour and resets their TR timers [REC, code].
 *  - It is the Requester of the last hop: a LeotpHopController without the backpressure term
 *    sets the sendRate of its Interests (variant C and D: of the whole path).
 *
 * Measurements (the paper's metrics, cpp/doc/leotp.md "Measurements"): the one-way delay of every
 * chunk's first copy from the Producer's first transmission (LeotpTraceTag), split into
 * retransmitted and never retransmitted copies (the recovery time of Fig. 10).
 */
class LeotpConsumer : public Application
{
  public:
    /// Counters and snapshots.
    struct Stats
    {
        uint64_t deliveredBytes{0}; //!< in order, to the application
        uint64_t receivedBytes{0};  //!< new payload bytes received (in order or not)
        uint64_t duplicateBytes{0};
        uint64_t interests{0};         //!< Interests sent (all kinds)
        uint64_t newInterests{0};      //!< first requests of a chunk
        uint64_t trRetransmissions{0}; //!< TR re-sends
        uint64_t shrInterests{0};      //!< requests for holes the Consumer's SHR confirmed
        uint64_t emptyInterests{0};    //!< rate-only Interests
        uint64_t timeouts{0};          //!< TR deadlines that expired
        uint64_t vphs{0};              //!< void headers received
        uint64_t resets{0};            //!< hop-controller resets (new upstream neighbour)
        uint64_t offRouteDataIn{0};    //!< Data from a node that is not the route's last hop
        uint64_t backoffRounds{0};     //!< TR backoff rounds in force now (RFC 6298 rule 5.5)
        uint64_t pending{0};           //!< unsatisfied Interests now
        bool completed{false};
        double completionTimeS{-1};
        double srttS{0};
        double rtoS{0};
        double interestRateBps{0};
        double cwnd{0};
        double hopRttS{0};
        double throughputBps{0};
        double rateBps{0};
    };

    static TypeId GetTypeId();
    LeotpConsumer();
    ~LeotpConsumer() override;

    /// The flow's parameters (payload, target buffer and file size also exist as attributes).
    void SetSettings(const LeotpFlowSettings& settings);
    /// This end's address (the route's client end) and the Producer's.
    void SetEndpoints(Ipv4Address local, Ipv4Address peer);
    Stats GetStats() const;
    uint64_t GetDeliveredBytes() const;
    bool IsComplete() const;
    /// One-way delays (s) of first copies of chunks received so far: never retransmitted, and
    /// retransmitted (served again by the Producer or a cache).
    const std::vector<double>& GetOwdSamples() const;
    const std::vector<double>& GetRecoveredOwdSamples() const;

  protected:
    void DoDispose() override;

  private:
    struct Entry
    {
        double tSent{0};
        uint32_t nTx{0};
        bool sampleable{true};
        bool queued{false}; //!< due for a TR re-send, waiting for budget
    };

    void StartApplication() override;
    void StopApplication() override;
    void HandleRead(Ptr<Socket> socket);
    /// @p iif: the interface the packet arrived on (-1: unknown)
    void OnData(const LeotpHeader& h, Ptr<Packet> payload, int64_t iif);
    /// The interface toward the Producer on the route now (the last hop's upstream end), or -1.
    int64_t UpstreamInterface() const;
    /// Send Interests while the budget allows.
    void TrySend();
    /// Send one Interest for [start, end) and count it.
    void SendInterest(uint64_t start, uint64_t end);
    void TimerFired();
    void ArmTimer();
    void HoleTimerFired();
    void ArmHoleTimer();
    void RequestHole(uint64_t start, uint64_t end);
    /// Restart the TR timers of the unsatisfied Interests overlapping [start, end).
    void ResetTimers(uint64_t start, uint64_t end);
    void Unschedule(uint64_t chunk, const Entry& e);
    void Schedule(uint64_t chunk, const Entry& e);
    /// Add received bytes; returns how many were new.
    uint64_t AddReceived(uint64_t start, uint64_t end);
    bool ChunkReceived(uint64_t chunk) const;
    uint64_t ChunkEnd(uint64_t chunk) const;
    uint64_t Limit() const;
    void UpdateInterestRate();

    LeotpFlowSettings m_settings;
    uint32_t m_flowId{1};
    uint16_t m_port{9};
    uint32_t m_payloadBytes{1451};
    double m_targetPackets{5};
    uint64_t m_fileBytes{0};
    Ipv4Address m_local;
    Ipv4Address m_peer;
    Ptr<Socket> m_socket;
    bool m_running{false};

    std::unique_ptr<LeotpHopController> m_ctrl;
    std::unique_ptr<LeotpHoleDetector> m_detector;
    std::unique_ptr<LeotpInterestPacer> m_pacer;
    std::unique_ptr<LeotpRto> m_rto;
    double m_backlogBytes{0}; //!< BL_tar - BL_P from the latest non-zero report
    double m_lastInterestS{-1e300};
    int64_t m_upstreamIf{-1}; //!< the interface of the hop the controller describes

    uint64_t m_nextChunk{0};
    std::map<uint64_t, Entry> m_pending;                             //!< unsatisfied Interests
    std::map<uint32_t, std::set<std::pair<double, uint64_t>>> m_due; //!< nTx -> (tSent, chunk)
    std::deque<uint64_t> m_retx;                                     //!< due TR re-sends
    EventId m_sendEvent;
    EventId m_timer;
    Time m_timerAt;
    EventId m_holeTimer;

    uint64_t m_rcvNxt{0};
    std::map<uint64_t, uint64_t> m_ooo; //!< received ranges above m_rcvNxt (start -> end)
    std::vector<double> m_owd;
    std::vector<double> m_owdRecovered;
    Stats m_stats;
};

} // namespace ns3

#endif // LEOTP_CONSUMER_H
