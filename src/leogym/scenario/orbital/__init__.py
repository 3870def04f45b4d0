"""The orbital geometry of a scenario: frames and time, orbits (Walker patterns and TLEs), the
constellation presets' resolution, look angles, inter-satellite links and their routes, what
each terminal sees (:mod:`~leogym.scenario.orbital.visibility`), and the scene that ties them
together for one episode (:mod:`~leogym.scenario.orbital.scene`)."""
