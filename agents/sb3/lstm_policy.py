"""The LSTM policy of ``agent=recurrent_ppo``: sb3-contrib's ``MlpLstmPolicy`` with its
training pass run as one LSTM call per minibatch.

sb3-contrib splits a minibatch into sequences that each start at an episode start or at the
start of the rollout. Whenever any sequence starts an episode, its ``_process_sequence`` steps
the LSTM one time step at a time in Python, resetting the state wherever an episode starts. As
a sequence is cut at every episode start, a start can only be a sequence's first step, and
resetting there is the same as zeroing that sequence's initial state. :class:`LeoLstmPolicy`
does that and runs the whole padded batch through the LSTM at once: the same function, computed
with one batched input projection instead of one per step, so the numbers agree with the
step-by-step pass to float rounding, and a seed still gives the same model bit for bit. The
rollout pass (one step at a time) and any batch with a start after the first step take
sb3-contrib's own path.

The backward pass through one LSTM call instead of one per step is most of the saving; the
``training`` section of ``make bench`` measures the learner's CPU per env step
(docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy

from leogym.agents.sb3.actor_step import SlowActorMixin

__all__ = ["LeoLstmPolicy"]


class LeoLstmPolicy(SlowActorMixin, RecurrentActorCriticPolicy):
    """``MlpLstmPolicy`` whose training pass is one LSTM call (module docstring), with
    ``actor_lr_scale`` (:mod:`leogym.agents.sb3.actor_step`)."""

    @staticmethod
    def _process_sequence(
        features: torch.Tensor,
        lstm_states: tuple[torch.Tensor, torch.Tensor],
        episode_starts: torch.Tensor,
        lstm: torch.nn.LSTM,
    ) -> tuple[torch.Tensor, Any]:  # (output, (h, c)); sb3-contrib annotates a Tensor pair
        n_seq = lstm_states[0].shape[1]
        # (n_seq * length, features) -> (length, n_seq, features), as sb3-contrib lays it out
        sequence = features.reshape((n_seq, -1, lstm.input_size)).swapaxes(0, 1)
        starts = episode_starts.reshape((n_seq, -1)).swapaxes(0, 1)
        if sequence.shape[0] < 2 or bool(torch.any(starts[1:] != 0.0)):
            return RecurrentActorCriticPolicy._process_sequence(
                features, lstm_states, episode_starts, lstm
            )
        keep = (1.0 - starts[0]).view(1, n_seq, 1)
        output, states = lstm(sequence, (keep * lstm_states[0], keep * lstm_states[1]))
        return torch.flatten(output.transpose(0, 1), start_dim=0, end_dim=1), states
