"""The hop topology (``topology: hops``): the graph of nodes, links and routes
(:mod:`~leogym.scenario.hops.graph`), built from a scenario's geometry
(:mod:`~leogym.scenario.hops.geometry`, with :mod:`~leogym.scenario.hops.geometry_grid` and
:mod:`~leogym.scenario.hops.geometry_links`) or from a controlled network's config
(:mod:`~leogym.scenario.hops.controlled`), and the config's rules
(:mod:`~leogym.scenario.hops.checks`). The native core builds it as ``LeoHopTopology``."""
