"""The AlphaZero learner, from the ``qarena[deep]`` extra (``net.py``: the policy-value network;
``search.py``: self-play through PUCT; ``workers.py``: its games on several cores; ``loop.py``:
self-play then learning; ``files.py``: its files; ``player.py``: how it plays and what it gives a
search; ``learner.py``: ``AlphaZeroLearner``, the kind)."""
