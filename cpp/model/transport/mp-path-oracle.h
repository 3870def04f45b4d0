// SPDX-License-Identifier: GPL-2.0-only
//
// MpPathOracle: what the scenario knows ahead of time about one path.

#ifndef MP_PATH_ORACLE_H
#define MP_PATH_ORACLE_H

#include <cstdint>
#include <limits>
#include <utility>

namespace ns3
{

/**
 * @ingroup mp-transport
 * Predicted (oracle) knowledge of one path, read from the scenario's timeline: handover and
 * outage instants, and the link parameters at any time. Congestion controllers and schedulers
 * that the literature gives a handover timetable (MACO, the StarQUIC freeze, ALCS) read it
 * through this interface; the transport itself only uses it to deliver handover and outage
 * notifications. All times are simulation seconds; "down" is server -> client (data).
 *
 * An implementation over LeoPathSchedule lives with the simulation facade
 * (LeoScheduleOracle); tests may provide their own.
 */
class MpPathOracle
{
  public:
    /// Link parameters of the path at one instant.
    struct LinkState
    {
        double time{0};       //!< the instant (s)
        double delayDownS{0}; //!< one-way propagation delay server -> client
        double delayUpS{0};   //!< one-way propagation delay client -> server
        double capacityDownBps{0};
        double capacityUpBps{0};
        double snrDb{std::numeric_limits<double>::quiet_NaN()};
        double elevationDeg{std::numeric_limits<double>::quiet_NaN()};
        double slantRangeM{std::numeric_limits<double>::quiet_NaN()};
        int32_t servingSat{-1};
    };

    virtual ~MpPathOracle() = default;

    /// True for a satellite path (false: terrestrial).
    virtual bool IsSatellite() const = 0;
    /// The link parameters at time t.
    virtual LinkState StateAt(double t) const = 0;
    /// The first handover instant strictly after t (+inf if none).
    virtual double NextHandoverAfter(double t) const = 0;
    /// The last handover instant at or before t (-inf if none).
    virtual double LastHandoverAtOrBefore(double t) const = 0;
    /// Handover instants in [t1, t2).
    virtual uint32_t CountHandovers(double t1, double t2) const = 0;
    /// True if t lies in an outage interval [start, end).
    virtual bool InOutage(double t) const = 0;
    /// The first outage starting at or after t ({+inf, +inf} if none).
    virtual std::pair<double, double> NextOutageAfter(double t) const = 0;
    /**
     * The predicted link once the next handover after t is done: the parameters at the
     * first timeline sample after the handover instant and after any outage that covers it.
     * time is +inf when no handover follows.
     */
    virtual LinkState NextPathAfterHandover(double t) const = 0;
};

} // namespace ns3

#endif // MP_PATH_ORACLE_H
