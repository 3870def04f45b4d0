"""Run-time support of the apps: Hydra app set-up, run records, resolvers, atomic
storage, progress, episode rollouts, and the worker processes with their supervision."""
