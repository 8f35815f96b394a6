"""Train a small tabular Q-learner through qarena's Gymnasium environment, then judge it with
qarena's exact optimality: the share of decision positions (reachable from the start, with
moves of different values) where its greedy move keeps the game's value.

    pip install 'qarena[env]'
    python examples/env_qlearning.py [SPEC] [--opponent random] [--episodes N] [--seed S]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from qarena.env import gym_env, judge_policy, position_of

#: Q[position][move]. Keyed by the qarena position (the observation without its last entry,
#: whose turn it is): the position alone decides these games, so both seats share a table.
Table = dict[tuple[int, ...], dict[int, float]]


def greedy(q: Table, obs: np.ndarray, mask: np.ndarray) -> int:
    values, moves = q[position_of(obs)], np.flatnonzero(mask).tolist()
    return int(max(moves, key=lambda m: values[m]))


def train(spec: str, opponent: str, episodes: int, seed: int) -> Table:
    """ε-greedy Q-learning against a fixed opponent, in a seat drawn for each episode."""
    env = gym_env(spec, opponent=opponent, seat="random")
    rng = np.random.default_rng(seed)
    q: Table = defaultdict(lambda: defaultdict(float))
    alpha, epsilon = 0.5, 0.2
    obs, info = env.reset(seed=seed)
    for _ in range(episodes):
        done = False
        while not done:
            state, mask = position_of(obs), info["action_mask"]
            explore = rng.random() < epsilon
            move = int(rng.choice(np.flatnonzero(mask))) if explore else greedy(q, obs, mask)
            obs, reward, terminated, truncated, info = env.step(move)
            done = terminated or truncated
            # The next state is the agent's next turn: the opponent has already replied.
            later = 0.0 if done else q[position_of(obs)][greedy(q, obs, info["action_mask"])]
            q[state][move] += alpha * (float(reward) + later - q[state][move])
        obs, info = env.reset()
    return q


def wins(q: Table, spec: str, opponent: str, games: int, seed: int) -> float:
    """The share of greedy games won against the opponent, seats drawn at random."""
    env = gym_env(spec, opponent=opponent, seat="random")
    won = 0
    obs, info = env.reset(seed=seed + 1)
    for _ in range(games):
        done = False
        while not done:
            obs, reward, done, _, info = env.step(greedy(q, obs, info["action_mask"]))
        won += float(reward) > 0
        obs, info = env.reset()
    return won / games


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("spec", nargs="?", default="nim:3,5,7")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--episodes", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    q = train(args.spec, args.opponent, args.episodes, args.seed)
    # The table itself is the policy: its values of each move, highest played, untried 0.
    result = judge_policy(args.spec, q)
    print(f"Q-learning on {args.spec}, {args.episodes:,} episodes against {args.opponent}")
    print(f"wins {wins(q, args.spec, args.opponent, 1000, args.seed):.3f} of 1,000 games")
    print(
        f"optimality {result.share:.4f} "
        f"({result.optimal:,} of {result.decisions:,} decision positions keep the value)"
    )


if __name__ == "__main__":
    main()
