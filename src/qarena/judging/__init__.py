"""Judging a player against the solver, in one package (above the players and the matches):

- ``tables.py``: the measure, optimality, over a table of move values (a table learner's own
  values, a strategy's moves, a policy's answers): the share of decision positions where greedy
  play keeps the value;
- ``evaluation.py``: an ``Evaluation`` (optimality and the records against the game's
  opponents) and complete judging: every decision position, matches through the compiled kernel;
- ``sampled.py``: judging by samples where the game is searched: sampled or given positions
  judged exactly, a Wilson interval, games played move by move;
- ``uniform.py``: judging over decision positions drawn uniformly from all of them where the
  game is enumerated (``qarena eval --uniform N``, a network's curve points there);
- ``along_play.py``: judging along perfect-play games (a network's curve points);
- ``player.py``: ``judge_player``, the one choice between complete and sampled judging, as the
  game's ``exact.Oracle`` says (``qarena eval``, ``qarena.judge``, a sweep's runs);
- ``sets.py``: judging sets, positions stored with every move's value (read from a file or
  shipped for classic Connect Four: the main line and varied openings), judged in seconds;
- ``policy.py``: a policy from outside (a function or a table) asked at every decision position.
"""
