"""Results: the tidy results table, per-episode metrics, the leaderboard, plots and the
analysis helpers the notebooks use."""
