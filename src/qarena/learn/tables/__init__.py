"""The table learners: a value for every position of an enumerated game (``base.py``: the
``Learner`` every one of them is; ``config.py``: their hyperparameters; Q-learning,
afterstate, matchbox, the end-of-game backup; ``files.py``: their policy files)."""
