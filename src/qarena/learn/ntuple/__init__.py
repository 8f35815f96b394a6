"""n-tuple networks, for boards too big for tables (``config.py``: a network's settings and a
game's defaults; ``network.py``: ``NTupleNetwork``, TD(λ) self-play and the player;
``files.py``: network files and the network shipped for classic Connect Four)."""
