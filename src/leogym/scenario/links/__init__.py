"""The links of a scenario: link budget, handovers, the satellite path, per-slot dynamics,
measured-trace replay, terrestrial capacity, and the per-direction arrays they make
(:mod:`leogym.scenario.links.arrays`)."""
