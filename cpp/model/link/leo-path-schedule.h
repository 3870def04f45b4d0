// SPDX-License-Identifier: GPL-2.0-only
//
// LeoPathSchedule: one path's timeline (the Timeline contract of docs/architecture.md) with
// O(1) per-packet look-ups.

#ifndef LEO_PATH_SCHEDULE_H
#define LEO_PATH_SCHEDULE_H

#include "model/queue/leo-queue-config.h"

#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup leo-link
 * Direction of travel on a path.
 *
 * DOWN is server -> client (the data direction: the server is the data sender, the client is
 * the user terminal), UP is client -> server (ACKs).
 */
enum class LeoDirection : uint8_t
{
    DOWN = 0,
    UP = 1,
};

/// "down" or "up".
const char* LeoDirectionName(LeoDirection dir);

/**
 * @ingroup leo-link
 * The raw arrays of one PathTimeline (see docs/architecture.md, "The Timeline contract").
 *
 * Plain data, filled by the bindings from NumPy arrays; LeoPathSchedule validates it.
 * Sample j describes time t0S + j * dtS. Required arrays: delay*, rate*, loss* (all of the
 * same length n >= 1). Optional arrays (empty = absent): snrDb and elevationDeg (NaN allowed,
 * e.g. terrestrial paths), servingSat (-1 = none). outages are [start, end) intervals, sorted
 * and non-overlapping; handovers are sorted instants.
 */
struct LeoPathArrays
{
    std::string name{"path"};         //!< used in error messages ("paths[0] 'sat0'")
    double t0S{0.0};                  //!< time of sample 0 (s)
    double dtS{0.01};                 //!< grid step (s), > 0
    std::vector<double> delayDownS;   //!< one-way propagation delay server->client (s), >= 0
    std::vector<double> delayUpS;     //!< one-way propagation delay client->server (s), >= 0
    std::vector<double> rateDownBps;  //!< capacity server->client (bit/s), > 0 outside outages
    std::vector<double> rateUpBps;    //!< capacity client->server (bit/s), > 0 outside outages
    std::vector<double> lossDown;     //!< Bernoulli loss probability in [0, 1]
    std::vector<double> lossUp;       //!< Bernoulli loss probability in [0, 1]
    std::vector<double> snrDb;        //!< optional, NaN allowed
    std::vector<double> elevationDeg; //!< optional, NaN allowed
    std::vector<int32_t> servingSat;  //!< optional, -1 = none
    std::vector<std::pair<double, double>> outages; //!< [start, end) intervals (s)
    std::vector<double> handovers;                  //!< handover instants (s), sorted
    uint32_t queuePackets{100}; //!< queue limit in packets (per direction), >= 1
    LeoQueueConfig queue;       //!< queue discipline of both directions (default drop-tail)
};

/**
 * @ingroup leo-link
 * One path's time-varying link parameters, validated, with constant-time look-ups.
 *
 * Interpolation (as the contract says): delay, rate and elevation are linearly interpolated
 * between samples; loss, SNR and serving satellite are held (sample floor((t - t0) / dt)).
 * Outside the grid the first / last sample is held. Rate samples equal to 0 are only allowed
 * inside outages; they are replaced internally by the nearest positive sample of the same
 * direction (the rate inside an outage is irrelevant: the link drops everything), so RateAt()
 * is always > 0.
 *
 * Outage look-ups (InOutage, OutageOverlaps, FirstOutageOverlap, NextOutageAfter) are binary
 * searches over the sorted intervals: O(log k).
 *
 * All times are simulation seconds (double).
 */
class LeoPathSchedule : public SimpleRefCount<LeoPathSchedule>
{
  public:
    /**
     * Validate and take the arrays.
     *
     * @param arrays the path's arrays (moved in)
     * @param label how the path is named in error messages, e.g. "paths[1]"
     * @throws std::invalid_argument naming the path and the field when an array is missing,
     *         lengths differ, a value is not finite, a rate is <= 0 outside an outage (or
     *         negative anywhere), a loss is outside [0, 1], a delay is negative, outages are
     *         unsorted / overlapping / empty, handovers are unsorted, dt <= 0 or
     *         queuePackets == 0.
     */
    LeoPathSchedule(LeoPathArrays arrays, const std::string& label = "path");

    const std::string& GetName() const;
    double GetT0() const;
    double GetDt() const;
    /// Number of samples n.
    uint32_t GetN() const;
    /// Time of the last sample, t0 + (n - 1) dt.
    double GetEnd() const;
    /// Drop-tail limit of each direction's device queue (packets).
    uint32_t GetQueuePackets() const;
    /// Queue discipline of both directions' device queues (limit: GetQueuePackets()).
    const LeoQueueConfig& GetQueueConfig() const;

    /// One-way propagation delay (s) at time t, linearly interpolated.
    double DelayAt(LeoDirection dir, double t) const;
    /// Link capacity (bit/s) at time t, linearly interpolated; always > 0.
    double RateAt(LeoDirection dir, double t) const;
    /// Bernoulli loss probability at time t (held).
    double LossAt(LeoDirection dir, double t) const;
    /// SNR (dB) at time t (held); NaN where unknown.
    double SnrAt(double t) const;
    /// Elevation (deg) at time t, linearly interpolated; NaN where unknown.
    double ElevationAt(double t) const;
    /// Serving satellite index at time t (held); -1 = none.
    int32_t ServingSatAt(double t) const;

    /// True if t lies in an outage interval [start, end).
    bool InOutage(double t) const;
    /// True if [t1, t2) intersects an outage interval (t1 <= t2; t1 == t2 tests the point t1).
    bool OutageOverlaps(double t1, double t2) const;
    /**
     * The first instant of [t1, t2) that lies in an outage: max(t1, start) of the first
     * intersecting interval, or +infinity if none intersects.
     */
    double FirstOutageOverlap(double t1, double t2) const;
    /// The first outage with start >= t, or {+inf, +inf} if none.
    std::pair<double, double> NextOutageAfter(double t) const;
    /// The first handover instant strictly after t, or +infinity if none.
    double NextHandoverAfter(double t) const;
    /// Number of handover instants in [t1, t2).
    uint32_t CountHandovers(double t1, double t2) const;

    const std::vector<std::pair<double, double>>& GetOutages() const;
    const std::vector<double>& GetHandovers() const;

  private:
    /// Sample index and fraction for linear interpolation at t.
    inline void Locate(double t, uint32_t& i, double& frac) const;
    /// Sample index for held values at t.
    inline uint32_t HeldIndex(double t) const;
    /// Index of the first outage whose end is > t (== size() if none).
    std::size_t FirstOutageEndingAfter(double t) const;

    std::string m_name;
    double m_t0;
    double m_dt;
    double m_invDt;
    uint32_t m_n;
    uint32_t m_queuePackets;
    LeoQueueConfig m_queueConfig;
    std::vector<double> m_delay[2];
    std::vector<double> m_rate[2];
    std::vector<double> m_loss[2];
    std::vector<double> m_snr;
    std::vector<double> m_elevation;
    std::vector<int32_t> m_servingSat;
    std::vector<std::pair<double, double>> m_outages;
    std::vector<double> m_outageEnds; //!< ends of m_outages, for binary search
    std::vector<double> m_handovers;
};

} // namespace ns3

#endif // LEO_PATH_SCHEDULE_H
