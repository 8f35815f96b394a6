"""Games people play and watch, shared by ``qarena play``/``qarena watch`` and the web app:
a person against an agent (``session.py``), an agent trained on the spot for them
(``spot.py``), and two players in a duel, judged move by move (``duel.py``)."""
