"""One BLAS thread around a learner's round loop (the BLAS/LAPACK calls a round makes on
matrices of a few hundred rows are slower when OpenBLAS spreads them over its threads).

``one_blas_thread()`` is the guard: two C calls with OpenBLAS (bound once through
threadpoolctl, ``okl._core._blas_bind``), threadpoolctl's ``limit`` otherwise.
"""
from __future__ import annotations

import contextlib
import threading

from okl import _core

__all__ = ["one_blas_thread"]


_BLAS_MODE = None           # "fast" (okl._core binds OpenBLAS), "slow" (threadpoolctl), "none"
_BLAS_SLOW = {"users": 0, "limiter": None, "controller": None}
_BLAS_SLOW_LOCK = threading.Lock()


def _bind_blas() -> str:
    """Find the BLAS libraries once: OpenBLAS with its own threads (the wheels of
    numpy and scipy) is driven through ``okl._core._blas_enter``/``_blas_exit`` (two C
    calls); anything else (OpenMP builds, MKL, BLIS) through threadpoolctl."""
    global _BLAS_MODE
    if _BLAS_MODE is not None:
        return _BLAS_MODE
    mode = "none"
    try:
        import ctypes

        from threadpoolctl import ThreadpoolController

        ctl = ThreadpoolController()
        blas = [lc for lc in ctl.lib_controllers if lc.user_api == "blas"]
        pairs = []
        for lc in blas:
            get = set_ = None
            if lc.internal_api == "openblas" and getattr(lc, "threading_layer", "") != "openmp":
                get = lc._get_symbol("openblas_get_num_threads")
                set_ = lc._get_symbol("openblas_set_num_threads")
            if get is None or set_ is None:
                pairs = None
                break
            pairs.append((ctypes.cast(get, ctypes.c_void_p).value,
                          ctypes.cast(set_, ctypes.c_void_p).value))
        if pairs is None:
            _BLAS_SLOW["controller"] = ctl
            mode = "slow"
        elif pairs and _core._blas_bind(pairs) == len(pairs):
            mode = "fast"
    except Exception:  # threadpoolctl missing, or unable to act: run as is
        mode = "none"
    _BLAS_MODE = mode
    return mode


class _OneBlasThread:
    """BLAS/LAPACK limited to one thread while at least one guarded call runs.

    Process-wide and re-entrant: the first call in sets the limit, the last one out
    restores what it found, so two threads running learners never restore each
    other's limit halfway through a run (threadpoolctl's ``limit`` per call would).
    """

    __slots__ = ()

    def __enter__(self):
        mode = _BLAS_MODE or _bind_blas()
        if mode == "fast":
            _core._blas_enter()
        elif mode == "slow":
            with _BLAS_SLOW_LOCK:
                if _BLAS_SLOW["users"] == 0:
                    try:
                        _BLAS_SLOW["limiter"] = _BLAS_SLOW["controller"].limit(
                            limits=1, user_api="blas")
                    except Exception:
                        _BLAS_SLOW["limiter"] = None
                _BLAS_SLOW["users"] += 1
        return self

    def __exit__(self, *exc):
        mode = _BLAS_MODE
        if mode == "fast":
            _core._blas_exit()
        elif mode == "slow":
            with _BLAS_SLOW_LOCK:
                _BLAS_SLOW["users"] -= 1
                if _BLAS_SLOW["users"] == 0 and _BLAS_SLOW["limiter"] is not None:
                    _BLAS_SLOW["limiter"].restore_original_limits()
                    _BLAS_SLOW["limiter"] = None
        return False


_ONE_BLAS_THREAD = _OneBlasThread()
_NO_GUARD = contextlib.nullcontext()


def one_blas_thread():
    """A context limiting BLAS/LAPACK to one thread (threadpoolctl's libraries; no-op
    without threadpoolctl).

    For learners whose round calls BLAS/LAPACK on matrices of a few hundred rows
    (an incremental Gram inverse, Ahpatron's halving solve): OpenBLAS hands those
    to its thread pool, which on a busy 2-core machine made them up to ~100x
    slower than one thread (Ahpatron, B = 400: 45 s against 0.4 s for 50,000
    rounds), while the round loop itself is sequential.  Entering costs about a
    microsecond with OpenBLAS (see ``_OneBlasThread``), so ``learn_one`` can pay it.
    """
    return _ONE_BLAS_THREAD
