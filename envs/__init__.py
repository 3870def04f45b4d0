"""Gymnasium environments for LEO multipath congestion control and scheduling."""
