"""leogym's benchmark suite: ``python -m benchmarks`` (``make bench``).

Speed, scale and memory figures, each measured side by side with what it is compared to in the
same run, printed as one table and written as CSV: a full run adds a dated record
(``benchmarks/results/records/<UTC time>.csv``), from which :mod:`benchmarks.render` generates
the docs' figure blocks (``python -m benchmarks --render``). Targets live here, never in timed
tests. Method, figures and profiling findings: ``docs/benchmarks.md``.

Modules (each also runs on its own with ``python -m benchmarks.<module>``):

* :mod:`benchmarks.bench_env`: env speed per scenario, fidelity knobs, memory;
* :mod:`benchmarks.bench_transport`: packets per second, ours against ns-3 TCP and raw UDP;
* :mod:`benchmarks.bench_overhead`: in-process step against the ns3-gym ZMQ bridge
  (:mod:`benchmarks.bench_ns3gym` drives the bridge);
* :mod:`benchmarks.bench_vec`: vectorised scaling and PPO training throughput;
* :mod:`benchmarks.bench_sweep`: a Hydra multirun locally and on Ray, results compared;
* :mod:`benchmarks.bench_hops`: the hop topology against ns-3's own point-to-point chain, hop
  scenarios' speed, and memory over repeated resets;
* :mod:`benchmarks.bench_network`: link-level packet rates (not part of the suite's table);
* :mod:`benchmarks.common`: rows, medians, machine load, CSV and table output;
* :mod:`benchmarks.render`: the figure blocks of README.md and docs/benchmarks.md.
"""
