"""A policy judged from outside, as the environments' users hold one: a function or a table of
qarena positions, or of the observations an agent of ``aec_env(spec, view="mover")`` sees. This
module only turns observations into positions and a spec into a game (the environments' job);
the judging is ``qarena.judging.policy``'s."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from qarena.env.common import game_of
from qarena.env.encoding import check_view, seen_by
from qarena.errors import QarenaError
from qarena.games.base import Game, Position
from qarena.i18n import _
from qarena.judging.policy import Answer, Policy, asker, judge_asked
from qarena.judging.tables import Optimality


def judge_policy(game: Game | str, policy: Policy, view: str | None = None) -> Optimality:
    """The optimality of ``policy`` in ``game`` (a Game or a spec such as ``nim:3,5,7``).

    ``policy`` is asked with qarena positions (tuples: pile sizes, or cells 0 empty / 1 x /
    2 o; ``qarena.env.position_of(obs)`` turns an observation into one). It is either a
    function returning the move id it plays or a mapping ``{move: value}`` of its values, or
    a mapping ``{position: {move: value}}``. Of values, the highest legal one is played, and
    tied best moves count as optimal only if every one of them is; legal moves left out count
    as 0.0 (a table that starts at zero), an unseen position as all zeros, and values of
    illegal moves are ignored. A move that is not legal, or a value that is not a finite
    number, is refused with one line.

    With ``view="mover"`` the policy is asked with observations instead, as an agent of
    ``aec_env(spec, view="mover")`` sees them at its turn (a table is then keyed by the
    observation as a tuple): a policy learned through the environment is judged as it is.
    """
    game = game_of(game)
    if view is not None:
        check_view(view)
        if view != "mover":
            raise QarenaError(
                _(
                    "a policy of observations is judged in the mover's view (view='mover'): "
                    "the absolute view does not tell whose turn it is in every game"
                )
            )
    ask = asker(policy) if view is None else _observing(game, policy)
    return judge_asked(game, ask)


def _observing(game: Game, policy: Policy) -> Callable[[Position], Answer]:
    """``policy`` asked with the mover's observation of each position instead of the position
    (a table is looked up by the observation as a tuple)."""

    def seen(position: Position) -> np.ndarray:
        seat = game.to_move(position)
        mover = 0 if seat is None else seat  # in impartial games the view is the same
        return seen_by(game, position, mover, mover)

    if isinstance(policy, Mapping):
        table = policy
        return lambda position: table.get(tuple(int(v) for v in seen(position)), {})
    if callable(policy):
        return lambda position: policy(seen(position))  # type: ignore[arg-type]
    return asker(policy)  # refused there, in its words


__all__ = ["judge_policy"]
