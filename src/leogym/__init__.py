"""leogym: an RL gym and trainer for congestion control and multipath scheduling over LEO.

Importing ``leogym`` is cheap: it does not load the ns-3 core. The compiled core is loaded on
first use through :func:`leogym.native.core`, so trainer processes can fork or spawn workers
before any simulator exists.

Subpackages:

* :mod:`leogym.scenario`   scenario configs, orbital geometry and the fast timeline API
* :mod:`leogym.envs`       Gymnasium environments (registered on import of this package)
* :mod:`leogym.baselines`  analytic baselines and classic algorithms, ``predict(obs)`` policies
* :mod:`leogym.agents`     Hydra apps: training and evaluation
* :mod:`leogym.conf`       Hydra configs
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]


def _register_envs() -> None:
    # Registration only records entry points (strings); it imports no simulator code.
    try:
        from leogym.envs import registration
    except ImportError:  # pragma: no cover - envs not built yet in a partial checkout
        return
    registration.register_all()


_register_envs()
