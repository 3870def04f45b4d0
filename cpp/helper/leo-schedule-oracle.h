// SPDX-License-Identifier: GPL-2.0-only
//
// LeoScheduleOracle: MpPathOracle over a path's LeoPathSchedule.

#ifndef LEO_SCHEDULE_ORACLE_H
#define LEO_SCHEDULE_ORACLE_H

#include "model/link/leo-path-schedule.h"
#include "model/transport/mp-path-oracle.h"

#include "ns3/ptr.h"

#include <vector>

namespace ns3
{

/**
 * @ingroup leo-helper
 * The transport's oracle view of one path, read from the same LeoPathSchedule that drives the
 * link: so what congestion controllers and schedulers "predict" is exactly what the link will
 * do. The slant range (UT to serving satellite, metres) is not part of the link's timeline; it
 * comes from an optional `slant_range_m` array on the timeline grid (linear interpolation),
 * NaN when absent.
 */
class LeoScheduleOracle : public MpPathOracle
{
  public:
    /**
     * @param schedule the path's schedule
     * @param satellite true for a satellite path
     * @param slantRangeM optional slant-range samples (empty, or the schedule's length)
     * @throws std::invalid_argument if slantRangeM has the wrong length
     */
    LeoScheduleOracle(Ptr<const LeoPathSchedule> schedule,
                      bool satellite,
                      std::vector<double> slantRangeM = {});

    bool IsSatellite() const override;
    LinkState StateAt(double t) const override;
    double NextHandoverAfter(double t) const override;
    double LastHandoverAtOrBefore(double t) const override;
    uint32_t CountHandovers(double t1, double t2) const override;
    bool InOutage(double t) const override;
    std::pair<double, double> NextOutageAfter(double t) const override;
    LinkState NextPathAfterHandover(double t) const override;

    Ptr<const LeoPathSchedule> GetSchedule() const;

  private:
    double SlantAt(double t) const;

    Ptr<const LeoPathSchedule> m_schedule;
    bool m_satellite;
    std::vector<double> m_slant;
};

} // namespace ns3

#endif // LEO_SCHEDULE_ORACLE_H
