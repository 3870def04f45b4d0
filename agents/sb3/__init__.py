"""Stable-Baselines3 glue: algorithms, callbacks, checkpoints and the env factory."""
