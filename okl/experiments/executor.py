"""The one executor under ``okl sweep`` and ``okl reproduce``.

Both run many independent *tasks* (one learner configuration on one order of one
stream) and need the same things done the same way, which live here:

* :func:`execute`: dispatch, in this process (``n_jobs=1``), on joblib's worker
  processes (``n_jobs``) or on a Dask cluster (``scheduler``), yielding each task's
  result as it finishes, so that the caller journals it at once.  Dask: the stream is
  scattered to the workers once; a task that fails is raised once every other one has
  come back, so that none of them is lost.
* :func:`fingerprint`: the digest of a stream and its labels (what a resumed run must
  find again).
* :func:`atomic_write`: outputs written to a temporary file renamed into place.
* :class:`Progress`: a tqdm bar over tasks that prints tables between them.
* The orders of the streams and the learners' seeds: :func:`stream_order` (the
  reproductions: one generator per dataset and permutation) and :func:`sweep_order`
  (sweeps: one per permutation).  They are kept apart so that earlier results stay
  reproducible; each makes a task depend on its numbers only, never on a worker or on
  the order tasks finish in.

The journal of finished tasks is :class:`okl.experiments.journal.Journal`.
Learners of your own (``module:Class``) reach worker processes by name: a task puts
the folders the parent added to ``sys.path`` for them (:func:`okl.registry.added_paths`)
on the worker's path before it runs, which serves joblib's workers and Dask workers on
the same machine; a Dask worker elsewhere imports the module, which must be installed
there or uploaded (``client.upload_file("mymodule.py")``, see docs/own_learner.rst).
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["data_fingerprint", "execute", "fingerprint", "atomic_write", "Progress", "stream_order",
           "sweep_order"]


# ----------------------------------------------------------------------------------
# dispatch
# ----------------------------------------------------------------------------------

def _call(i, fn, X, y, kwargs, paths=()):
    for folder in paths:        # where the parent found learners of your own
        if folder not in sys.path:
            sys.path.insert(0, folder)
    return i, fn(X, y, **kwargs)


def execute(tasks, todo, X, y, *, n_jobs=1, scheduler=None):
    """``(i, fn(X, y, **kwargs))`` for ``(fn, kwargs) = tasks[i]``, ``i`` in ``todo``, in
    the order they finish.  ``fn`` is a module-level function (pickled by reference)."""
    if not todo:
        return
    from okl.registry import added_paths

    paths = tuple(added_paths())
    if scheduler is not None:
        yield from _on_dask(tasks, todo, X, y, scheduler, paths)
        return
    if n_jobs == 1:
        for i in todo:
            yield _call(i, tasks[i][0], X, y, tasks[i][1])
        return
    from joblib import Parallel, delayed

    # one task per batch: joblib's automatic batching returns fast tasks in batches, so
    # a kill would lose tasks that had finished but not yet come back to be journaled
    yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1)(
        delayed(_call)(i, tasks[i][0], X, y, tasks[i][1], paths) for i in todo)


def _on_dask(tasks, todo, X, y, scheduler, paths=()):
    """Tasks on a Dask cluster, yielded as they finish.  A worker lost mid-task costs only
    its tasks in flight, which the scheduler reruns elsewhere; a task that fails (or kills
    workers ``distributed.scheduler.allowed-failures`` times) is raised once every other
    task has been collected."""
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ValueError("a Dask scheduler needs the 'distributed' package: "
                         "pip install 'okl[dask]'") from exc
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        X_remote, y_remote = client.scatter([X, y], broadcast=True)
        futures = [client.submit(_call, i, tasks[i][0], X_remote, y_remote, tasks[i][1],
                                 paths, pure=False) for i in todo]
        failed = []
        for future in as_completed(futures):
            try:
                result = future.result()
            except Exception as exc:      # noqa: BLE001 - re-raised once the rest is in
                failed.append(exc)
                continue
            yield result
        if failed:
            raise failed[0]
    finally:
        if client is not scheduler:
            client.close()


# ----------------------------------------------------------------------------------
# data, files, progress
# ----------------------------------------------------------------------------------

def fingerprint(X, y) -> str:
    """BLAKE2 digest (hex) of a stream ``X`` (dense, or CSR by its three arrays) and its
    labels ``y`` (``None``: none), each part with its dtype and shape."""
    digest = hashlib.blake2b(digest_size=20)
    parts = (X.data, X.indices, X.indptr) if hasattr(X, "indptr") else (X,)
    for part in parts + (() if y is None else (np.asarray(y),)):
        part = np.ascontiguousarray(part)
        digest.update(f"{part.dtype.str}{part.shape}".encode())
        if part.size:                 # (an empty array has no bytes; memoryview refuses it)
            digest.update(memoryview(part).cast("B"))
    return digest.hexdigest()


def data_fingerprint(X, y, source=None) -> dict:
    """What a resumed sweep or reproduction must find again (its journal's record of
    the data): the source (where given), the shape, whether ``X`` is sparse, whether
    there are labels, and the BLAKE2 digest of :func:`fingerprint`."""
    out = {} if source is None else {"source": source}
    out.update(shape=list(X.shape), sparse=hasattr(X, "indptr"), labels=y is not None,
               blake2b=fingerprint(X, y))
    return out


def atomic_write(path, text: str, newline=None) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, fsynced and
    renamed into place (a reader sees the old file or the new one, never half of one),
    with the mode ``open(path, "w")`` would give."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    umask = os.umask(0o022)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", newline=newline) as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Progress:
    """A tqdm bar over tasks (``enabled=False``: none), which prints text between them."""

    def __init__(self, enabled, desc=None, total=0, initial=0):
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=initial, unit="run", desc=desc,
                            mininterval=0.5, file=sys.stderr, dynamic_ncols=True)

    def add(self, total, done, desc):
        if self.bar is not None:
            self.bar.total += total
            self.bar.update(done)
            self.bar.set_description(desc)

    def step(self):
        if self.bar is not None:
            self.bar.update(1)

    def write(self, text):
        if self.bar is not None:
            self.bar.write(text, file=sys.stdout)
        else:
            print(text, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()


# ----------------------------------------------------------------------------------
# orders and seeds
# ----------------------------------------------------------------------------------

def stream_order(seed: int, index: int, permutation: int, n: int, n_rounds=None):
    """A reproduction's permutation ``permutation`` of dataset ``index``:
    ``(order, learner_seed)``.

    ``numpy.random.default_rng([seed, index, permutation])`` draws the order of the ``n``
    rows (its first ``n_rounds`` when given: a uniform draw without replacement) and
    then the learner's seed, so that a run depends on these numbers only.
    """
    rng = np.random.default_rng([int(seed), int(index), int(permutation)])
    order = rng.permutation(int(n))
    if n_rounds is not None:
        order = order[:int(n_rounds)]
    return order, int(rng.integers(2 ** 31))


def sweep_order(seed: int, permutation: int, T: int):
    """A sweep's permutation ``permutation`` of its ``T`` rounds: ``(order,
    learner_seed)``, from ``default_rng([seed, permutation])`` and ``default_rng([seed,
    permutation, 1])``."""
    order = np.random.default_rng([seed, permutation]).permutation(T)
    learner_seed = int(np.random.default_rng([seed, permutation, 1]).integers(2 ** 31))
    return order, learner_seed
