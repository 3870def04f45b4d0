// SPDX-License-Identifier: GPL-2.0-only
//
// MpAlgorithmRegistry: the congestion controllers and the schedulers by name, with parameter
// validation. It serves both model/cc/ and model/sched/, so it lives beside them.

#ifndef MP_ALGORITHM_REGISTRY_H
#define MP_ALGORITHM_REGISTRY_H

#include "ns3/attribute.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/type-id.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup mp-registry
 * Named algorithms (congestion controllers or schedulers) and their ns-3 TypeIds.
 *
 * Names are lower case ("newreno", "cubic", ...). A wrapper entry (e.g. a handover freeze)
 * combines with any plain entry as "wrapper+inner" ("freeze+cubic"); one registered with
 * alternates also as "wrapper+inner+alternate" ("residual+bbr3+maco": two controllers fed
 * the same events, MpCongestionOpsWrapper::SetAlternate). Parameters are the
 * algorithms' ns-3 attributes, given as numbers: Double attributes take the value, Uinteger
 * and Integer attributes an integral value, Boolean attributes 0 or 1, Time attributes
 * seconds. Every check (unknown name or parameter, wrong type, range) throws
 * std::invalid_argument naming the field, before any ns-3 object is configured; the range is
 * the attribute's own checker.
 *
 * Other components register more algorithms with a static MpAlgorithmRegistrar.
 */
class MpAlgorithmRegistry
{
  public:
    /// One registered algorithm.
    struct Entry
    {
        std::string name;
        std::string typeId;    //!< e.g. "ns3::MpCubic"
        bool wrapper{false};   //!< combines as "name+inner" (congestion control only)
        bool alternate{false}; //!< a wrapper that also takes "name+inner+alternate"
    };

    /// Parameters as the config gives them.
    using Params = std::map<std::string, double>;

    /// The congestion-control registry.
    static MpAlgorithmRegistry& Cc();
    /// The scheduler registry.
    static MpAlgorithmRegistry& Scheduler();

    /// Add (or replace) an entry.
    void Register(const std::string& name,
                  const std::string& typeId,
                  bool wrapper = false,
                  bool alternate = false);
    /// All entries, sorted by name.
    std::vector<Entry> List() const;
    /// True if name (or "wrapper+inner", or "wrapper+inner+alternate") resolves.
    bool Has(const std::string& name) const;

    /**
     * Check a name and its parameters without creating the configured object.
     * @param field how the name is called in errors ("cc")
     * @param paramsField how the parameters are called ("cc_params")
     * @throws std::invalid_argument naming the field
     */
    void Validate(const std::string& name,
                  const Params& params,
                  const std::string& field,
                  const std::string& paramsField) const;

    /**
     * Create and configure an instance (a wrapper gets its inner controller, and its
     * alternate). A parameter goes to the wrapper if it has it, otherwise to each of the
     * inner controller and the alternate that has it.
     * @throws std::invalid_argument as Validate
     */
    Ptr<Object> Create(const std::string& name,
                       const Params& params,
                       const std::string& field,
                       const std::string& paramsField) const;

    /// Attribute descriptions of an algorithm: name -> (value type, default, help).
    std::map<std::string, std::vector<std::string>> Describe(const std::string& name) const;

  private:
    explicit MpAlgorithmRegistry(const char* kind);

    /// The entries behind a name: "a", "w+a" or "w+a+b".
    struct Parts
    {
        const Entry* outer{nullptr};     //!< the wrapper, if any
        const Entry* inner{nullptr};     //!< the controller
        const Entry* alternate{nullptr}; //!< the wrapper's alternate controller, if any
    };

    /// Split the name into its entries; throws naming field.
    Parts Resolve(const std::string& name, const std::string& field) const;
    /**
     * Check every parameter against the parts that take it (the wrapper if it has it,
     * otherwise each controller that has it) and, with @p factories (wrapper, controller,
     * alternate), set it there.
     */
    void Route(const std::string& name,
               const Parts& parts,
               const Params& params,
               const std::string& field,
               const std::string& paramsField,
               ObjectFactory* factories) const;
    /// Convert and check one parameter against a TypeId; nullptr if the TypeId lacks it.
    static Ptr<AttributeValue> MakeValue(TypeId tid,
                                         const std::string& key,
                                         double value,
                                         const std::string& fieldName,
                                         bool& found);

    std::string m_kind;
    std::map<std::string, Entry> m_entries;
};

/// Static registration helper: `static MpAlgorithmRegistrar r(MpAlgorithmRegistry::Cc(), ...)`.
struct MpAlgorithmRegistrar
{
    MpAlgorithmRegistrar(MpAlgorithmRegistry& reg,
                         const std::string& name,
                         const std::string& typeId,
                         bool wrapper = false,
                         bool alternate = false)
    {
        reg.Register(name, typeId, wrapper, alternate);
    }
};

} // namespace ns3

#endif // MP_ALGORITHM_REGISTRY_H
