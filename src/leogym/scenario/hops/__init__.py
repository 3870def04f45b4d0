"""The hop topology (``topology: hops``): the graph of nodes, links and routes
(:mod:`~leogym.scenario.hops.graph`), built from a scenario's geometry
(:mod:`~leogym.scenario.hops.geometry`) or from a controlled network's config
(:mod:`~leogym.scenario.hops.controlled`), and the config's rules
(:mod:`~leogym.scenario.hops.checks`). The native core builds it as ``LeoHopTopology``."""
