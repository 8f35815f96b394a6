"""Compiled kernels: functions over arrays, scalars and seeds only (numba, with a pure-Python
fallback under NUMBA_DISABLE_JIT=1 that gives identical results)."""
