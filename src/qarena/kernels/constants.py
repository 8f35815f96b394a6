"""The codes kernels and the code around them share: one home, so no one writes a bare 2."""

#: ``result[code]`` of a position where the game goes on (else -1, 0, 1 for the mover).
NOT_TERMINAL = 2

#: Exploration schedules.
SCHEDULE_CONSTANT = 0
SCHEDULE_LINEAR = 1
SCHEDULE_EXP = 2

#: How exploring starts are chosen: a uniformly drawn position, or every (position, move)
#: pair in turn, each after every position it leads to.
START_UNIFORM = 0
START_SWEEP = 1

#: The learner's seat against a fixed opponent.
SEAT_FIRST = 0
SEAT_SECOND = 1
SEAT_BOTH = 2
