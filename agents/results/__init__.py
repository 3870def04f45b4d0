"""Results: the tidy results table, per-episode metrics, the leaderboard, cross-scenario
aggregate statistics (rliable), plots and the analysis helpers the notebooks use."""
