"""Paper reproductions (``leogym-reproduce``): each seed paper's set-up expressed as an env
config and a scenario, run through :class:`leogym.simulation.Simulation`."""
