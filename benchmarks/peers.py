#!/usr/bin/env python
"""okl against its peers, timed on the same stream in the same process.

    python benchmarks/peers.py                 # a9a tables + the 1M-row table (~30 min)
    python benchmarks/peers.py --quick         # small sizes (about 1 min)
    OKL_LIBOKL=/path/to/KOL python benchmarks/peers.py --no-scale

Tables (each time the best of ``--repeat`` calls, the implementations of a table
interleaved call by call so that a change of load hits all of them alike):

1. okl against LIBOKL (``LIBOL/KOL``, the field's C++ library) on a9a in file order
   (``$OKL_DATA/a9a``; without it a synthetic one-hot stream of the same shape, d = 123,
   14 non-zeros a row), Gaussian kernel ``gamma = 0.1``: Perceptron, Projectron,
   Forgetron, RBP and BOGD at B = 300, NOGD at B = 300, k = 60, FOGD at D = 400.
   okl's time is ``learner.run(X, y)`` (validation and trace included); LIBOKL's is the
   "Learning time" its binary prints (its learning loop; the rows come from its
   binary cache, written once beforehand, so text parsing is not counted).  LIBOKL is
   the executable whose path is in ``$OKL_LIBOKL`` (build: see benchmarks/README.md);
   without it the column says why it is missing.
2. FOGD's and NOGD's peers on the same stream: scikit-learn's ``RBFSampler`` /
   ``Nystroem`` + ``SGDClassifier.partial_fit`` and River's
   ``feature_extraction.RBFSampler | linear_model.LogisticRegression(loss=Hinge)``,
   driven by the online protocol (predict the example, then learn it), one example at
   a time, and scikit-learn also in batches of 32 (the batch predicted with the model
   from before it, then learned); okl's own per-example paths (``predict_one`` +
   ``learn_one`` on numpy rows, ``okl.river.Classifier`` on dicts) beside them, on the
   whole stream.  The per-example Python peers run on the first ``--peer-rows`` rows;
   their full-stream time is that time scaled to the stream (marked ``~``).
3. examples/s of every budgeted okl learner at B = 100 and B = 1000 on a synthetic
   dense stream of ``--scale-rows`` rows (default 10^6), d = 18 (``x ~ N(0, I)``,
   labels the sign of a fixed quadratic form plus a linear term plus noise, like
   SUSY's 18 features), Gaussian sigma = 4; FOGD at D = B, NORMA with its window
   tau = B.  A learner whose 2*10^4-row probe projects past ``--max-seconds`` is
   timed on the first rows that fit in it (the "rows" column says how many).
4. NOGD at B = 1000 chunk by chunk along that stream: examples/s, the share of rounds
   that updated, and the form in which the core keeps its linear model.

Hyperparameters follow LIBOKL's defaults where the algorithms share them
(``eta = 0.5``; BOGD ``lambda = 0.001``); mistake rates are printed so that a
difference in speed is not a difference in work (LIBOKL's FOGD seeds its frequencies
with the clock, and its Projectron is a different rule: it adds every mistaken example
until B, then always projects; okl's Projectron is Orabona et al.'s, with ``eta``
chosen so that |S| ends near 300).  No time is asserted.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import _setup  # noqa: F401  (first: reads --blas-threads, pins BLAS before numpy loads)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import okl  # noqa: E402
from ratios import onehot_stream, row  # noqa: E402

GAMMA = 0.1
SIGMA = math.sqrt(1.0 / (2.0 * GAMMA))    # Gaussian(sigma): exp(-||x - v||^2 / (2 sigma^2))
LIBOKL_ENV = "OKL_LIBOKL"


# ----------------------------------------------------------------------------
# streams
# ----------------------------------------------------------------------------

def a9a_or_synthetic(quick):
    """``(X, y, name, path)``: a9a in file order from $OKL_DATA, else a one-hot stream."""
    home = os.environ.get("OKL_DATA")
    path = os.path.join(home, "a9a") if home else None
    if path and os.path.exists(path):
        from okl.datasets import load_libsvm

        X, y = load_libsvm(path, n_features=123)
        name = "a9a (file order)"
    else:
        X, y = onehot_stream(32561)
        name = "synthetic one-hot CSR stream, d = 123 (a9a not in $OKL_DATA)"
        path = None
    if quick:
        X, y = X[:4000], y[:4000]
        name += ", first 4,000 rows"
        path = None
    return sp.csr_matrix(X), np.asarray(y, float), name, path


def dense_stream(T, d=18, seed=7):
    """``x ~ N(0, I_d)``; ``y = sign(x^T A x / sqrt(d) + w^T x + 0.3 noise)``."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d))
    A = (A + A.T) / 2
    w = rng.standard_normal(d) / math.sqrt(d)
    X = rng.standard_normal((T, d))
    score = np.einsum("ij,jk,ik->i", X, A, X) / math.sqrt(d) + X @ w
    y = np.where(score + 0.3 * rng.standard_normal(T) >= 0, 1.0, -1.0)
    return X, y


# ----------------------------------------------------------------------------
# timing
# ----------------------------------------------------------------------------

def interleaved(cases, k, slow=30.0):
    """Best time of each case over ``k`` rounds, one call of every case a round.

    A case is ``(name, fn)``; ``fn()`` returns ``(seconds, info)`` -- it measures its
    own time (wall time for okl and the Python peers, LIBOKL's reported learning
    time) -- or ``None`` when it cannot run.  A case whose calls have taken ``slow``
    seconds in all is not called again (the pure-Python peers: their minimum is
    stable, and k calls of them would take most of the run); ``calls`` counts them."""
    best = {name: math.inf for name, _ in cases}
    info, spent, calls = {}, {name: 0.0 for name, _ in cases}, {name: 0 for name, _ in cases}
    for _ in range(k):
        for name, fn in cases:
            if calls[name] and spent[name] >= slow:
                continue
            start = time.perf_counter()
            out = fn()
            spent[name] += time.perf_counter() - start
            calls[name] += 1
            if out is None:
                continue
            seconds, extra = out
            best[name] = min(best[name], seconds)
            info[name] = dict(extra, calls=calls[name])
    return best, info


def table(header, rows, widths, left=1):
    """Print rows of cells: the first ``left`` columns left-aligned, the rest right."""
    def line(cells):
        return "   " + "  ".join(str(c).ljust(w) if i < left else str(c).rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths)))
    print(line(header))
    for cells in rows:
        print(line(cells))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


# ----------------------------------------------------------------------------
# LIBOKL
# ----------------------------------------------------------------------------

class Libokl:
    """LIBOKL's ``KOL`` binary on one stream: writes the stream (if it is not a file
    already) and LIBOKL's binary cache once, then runs one learner per call and
    returns its own "Learning time"."""

    def __init__(self, X, y, path):
        self.exe = os.environ.get(LIBOKL_ENV)
        self.why = None
        if not self.exe:
            self.why = f"${LIBOKL_ENV} not set"
        elif not (os.path.isfile(self.exe) and os.access(self.exe, os.X_OK)):
            self.why = f"${LIBOKL_ENV}={self.exe} is not an executable"
        if self.why:
            return
        self.tmp = tempfile.mkdtemp(prefix="okl-peers-")
        if path is None:
            from sklearn.datasets import dump_svmlight_file

            path = os.path.join(self.tmp, "stream.libsvm")
            dump_svmlight_file(X, y.astype(int), path, zero_based=False)
        self.cache = os.path.join(self.tmp, "stream.cache")
        # any learner: this run writes the cache (FOGD with one frequency is the cheapest)
        out = self._call(["-i", path, "-c", self.cache, "-opt", "kernel-fogd", "-D", "1"])
        if out is None or not os.path.exists(self.cache):
            self.why = f"{self.exe} did not write its cache: {self.last_error}"

    def _call(self, args):
        try:
            proc = subprocess.run([self.exe, *args], capture_output=True, text=True,
                                  timeout=3600, cwd=self.tmp)
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.last_error = str(exc)
            return None
        if proc.returncode != 0 and "Learning time" not in proc.stdout:
            self.last_error = (proc.stderr or proc.stdout).strip()[-300:]
            return None
        return proc.stdout

    def run(self, opt, **params):
        """``(learning seconds, {"mistake_rate", "size"})`` or None."""
        if self.why:
            return None
        args = ["-c", self.cache, "-opt", opt]
        for key, value in params.items():
            args += [f"-{key}", str(value)]
        out = self._call(args)
        if out is None:
            self.why = f"{opt} failed: {self.last_error}"
            return None
        seconds = float(re.search(r"Learning time:\s*([0-9.eE+-]+)", out).group(1))
        acc = re.search(r"Learn acuracy:\s*([0-9.]+)%", out)
        size = re.search(r"#SV:\s*(\d+)", out)
        return seconds, {"mistake_rate": None if acc is None else 1 - float(acc.group(1)) / 100,
                         "size": None if size is None else int(size.group(1))}

    def close(self):
        if getattr(self, "tmp", None):
            shutil.rmtree(self.tmp, ignore_errors=True)


# ----------------------------------------------------------------------------
# table 1: okl against LIBOKL
# ----------------------------------------------------------------------------

def okl_case(make, X, y):
    def fn():
        learner = make()
        seconds, trace = timed(lambda: learner.run(X, y))
        return seconds, {"mistake_rate": trace.mistake_rate, "size": int(trace.budget[-1])}
    return fn


def libokl_table(X, y, path, k, projectron_eta):
    kern = okl.Gaussian(SIGMA)
    learners = [
        ("Perceptron", lambda: okl.Perceptron(kern), ("kernel-perceptron", {})),
        (f"Projectron (okl eta {projectron_eta}; LIBOKL B 300)",
         lambda: okl.Projectron(kern, eta=projectron_eta), ("kernel-projectron", {"B": 300})),
        ("Forgetron B 300", lambda: okl.Forgetron(kern, B=300), ("kernel-forgetron", {"B": 300})),
        ("RBP B 300", lambda: okl.RBP(kern, B=300, seed=0), ("kernel-rbp", {"B": 300})),
        ("BOGD B 300", lambda: okl.BOGD(kern, B=300, eta=0.5, lam=0.001, seed=0),
         ("kernel-bogd", {"B": 300, "eta": 0.5, "lambda": 0.001})),
        ("NOGD B 300, k 60", lambda: okl.NOGD(kern, B=300, k=60, eta=0.5),
         ("kernel-nogd", {"B": 300, "knogd": 60, "eta": 0.5, "eta1": 0.5})),
        ("FOGD D 400", lambda: okl.FOGD(kern, D=400, eta=0.5, seed=0),
         ("kernel-fogd", {"D": 400, "eta": 0.5})),
    ]
    lib = Libokl(X, y, path)
    try:
        cases = []
        for name, make, (opt, params) in learners:
            cases.append((f"okl {name}", okl_case(make, X, y)))
            cases.append((f"LIBOKL {name}",
                          lambda opt=opt, params=params: lib.run(opt, gamma=GAMMA, **params)))
        best, info = interleaved(cases, k)
    finally:
        lib.close()
    print(f"1. okl against LIBOKL ({'LIBOKL: ' + lib.exe if not lib.why else 'LIBOKL skipped: ' + lib.why})")
    print("   okl: learner.run(X, y); LIBOKL: its reported learning time (binary cache, no "
          "text parsing); best of", k)
    lines, out = [], {}
    for name, _, (opt, _) in learners:
        o, lb = best[f"okl {name}"], best[f"LIBOKL {name}"]
        oi, li = info.get(f"okl {name}", {}), info.get(f"LIBOKL {name}")
        ratio = f"{o / lb:.2f}" if math.isfinite(lb) else "n/a"
        mist = f"{oi['mistake_rate']:.3f} / " + (f"{li['mistake_rate']:.3f}" if li else "-")
        lsize = "-" if not li or opt == "kernel-fogd" else li["size"]   # FOGD: "#SV:0"
        lines.append((name, f"{lb:.3f} s" if math.isfinite(lb) else "-", f"{o:.3f} s", ratio,
                      mist, f"{oi['size']} / {lsize}"))
        out[name] = (o, lb)
    table(("learner", "LIBOKL", "okl", "okl / LIBOKL", "mistakes okl / LIB", "|S| okl / LIB"),
          lines, (44, 10, 10, 12, 19, 13))
    print()
    return out


# ----------------------------------------------------------------------------
# table 2: FOGD's and NOGD's peers
# ----------------------------------------------------------------------------

def sk_online(X, y, make_map, eta, batch):
    """Predict-then-learn with a scikit-learn feature map and SGDClassifier (hinge,
    constant step ``eta``, no penalty, no intercept); returns the mistake count."""
    from sklearn.linear_model import SGDClassifier

    feature_map = make_map()
    clf = SGDClassifier(loss="hinge", penalty=None, learning_rate="constant", eta0=eta,
                        fit_intercept=False, random_state=0)
    classes = np.array([-1.0, 1.0])
    mistakes = 0
    fitted = False
    for start in range(0, X.shape[0], batch):
        xb, yb = X[start:start + batch], y[start:start + batch]
        z = feature_map.transform(xb)
        f = clf.decision_function(z) if fitted else np.zeros(len(yb))
        mistakes += int(np.sum(yb * f <= 0))
        clf.partial_fit(z, yb, classes=classes)
        fitted = True
    return mistakes


def river_online(dicts, labels, n_components, eta):
    from river import feature_extraction, linear_model, optim

    model = (feature_extraction.RBFSampler(gamma=GAMMA, n_components=n_components, seed=0)
             | linear_model.LogisticRegression(optimizer=optim.SGD(eta),
                                               loss=optim.losses.Hinge(threshold=1.0),
                                               intercept_lr=0.0))
    mistakes = 0
    for x, label in zip(dicts, labels):
        mistakes += model.predict_one(x) != label
        model.learn_one(x, label)
    return mistakes


def okl_river_online(dicts, labels, make, d):
    from okl.river import Classifier

    model = Classifier(make(), features=tuple(range(d)))
    mistakes = 0
    for x, label in zip(dicts, labels):
        mistakes += model.predict_one(x) != label
        model.learn_one(x, label)
    return mistakes


def okl_learn_one(X, y, make):
    learner = make()
    mistakes = 0
    for x, label in zip(X, y):
        mistakes += learner.predict_one(x) != label
        learner.learn_one(x, label)
    return mistakes


def peers_table(X, y, k, peer_rows):
    T, d = X.shape
    n = min(peer_rows, T)
    scale = T / n
    kern = okl.Gaussian(SIGMA)
    Xn, yn = X[:n], y[:n]
    X_dense = X.toarray()
    dicts_all = [{int(j): float(v) for j, v in zip(X.indices[X.indptr[i]:X.indptr[i + 1]],
                                                     X.data[X.indptr[i]:X.indptr[i + 1]])}
                 for i in range(T)]
    labels_all = [bool(v > 0) for v in y]
    dicts, labels = dicts_all[:n], labels_all[:n]
    have_sklearn = have_river = True
    try:
        from sklearn.kernel_approximation import Nystroem, RBFSampler
    except ImportError:
        have_sklearn = False
    try:
        import river  # noqa: F401
    except ImportError:
        have_river = False

    def fogd():
        return okl.FOGD(kern, D=400, eta=0.5, seed=0)

    def nogd():
        return okl.NOGD(kern, B=300, k=60, eta=0.5)

    def whole(make):
        def fn():
            learner = make()
            seconds, trace = timed(lambda: learner.run(X, y))
            return seconds, {"mistakes": trace.n_mistakes, "rows": T}
        return fn

    def prefix(fn):
        def run():
            seconds, mistakes = timed(fn)
            return seconds * scale, {"mistakes": mistakes, "rows": n}
        return run

    def full(fn):
        def run():
            seconds, mistakes = timed(fn)
            return seconds, {"mistakes": mistakes, "rows": T}
        return run

    rows = [("FOGD D 400", "okl FOGD", "learner.run, whole stream", whole(fogd)),
            ("FOGD D 400", "okl FOGD", "predict_one + learn_one, numpy rows",
             full(lambda: okl_learn_one(X_dense, y, fogd)))]
    if have_river:
        rows.append(("FOGD D 400", "okl.river.Classifier(FOGD)", "one example (dicts)",
                     full(lambda: okl_river_online(dicts_all, labels_all, fogd, d))))
    if have_sklearn:
        def rbf():
            return RBFSampler(gamma=GAMMA, n_components=800, random_state=0).fit(X[:1])

        rows += [("FOGD D 400", "sklearn RBFSampler(800) + SGDClassifier", "one example",
                  prefix(lambda: sk_online(Xn, yn, rbf, 0.5, 1))),
                 ("FOGD D 400", "sklearn RBFSampler(800) + SGDClassifier", "batches of 32",
                  full(lambda: sk_online(X, y, rbf, 0.5, 32)))]
    if have_river:
        rows.append(("FOGD D 400", "River RBFSampler(800) | LogisticRegression(Hinge)",
                     "one example (dicts)",
                     prefix(lambda: river_online(dicts, labels, 800, 0.5))))
    rows += [("NOGD B 300, k 60", "okl NOGD", "learner.run, whole stream", whole(nogd)),
             ("NOGD B 300, k 60", "okl NOGD", "predict_one + learn_one, numpy rows",
              full(lambda: okl_learn_one(X_dense, y, nogd)))]
    if have_sklearn:
        def nys():
            return Nystroem(gamma=GAMMA, n_components=300, random_state=0).fit(X[:300])

        rows += [("NOGD B 300, k 60", "sklearn Nystroem(300) + SGDClassifier", "one example",
                  prefix(lambda: sk_online(Xn, yn, nys, 0.5, 1))),
                 ("NOGD B 300, k 60", "sklearn Nystroem(300) + SGDClassifier", "batches of 32",
                  full(lambda: sk_online(X, y, nys, 0.5, 32)))]
    cases = [(f"{a}|{b}|{c}", fn) for a, b, c, fn in rows]
    best, info = interleaved(cases, k)
    print(f"2. FOGD's and NOGD's peers, predict-then-learn on the same stream; best of {k} "
          "calls (fewer for a case once its calls took 30 s: 'calls')")
    print(f"   per-example Python peers timed on the first {n:,} rows, scaled to {T:,} (~)")
    if not have_sklearn or not have_river:
        print("   " + ", ".join(x for x, ok in (("scikit-learn", have_sklearn), ("river", have_river))
                                 if not ok) + " not installed: its rows are missing")
    ref = {a: best[f"{a}|{b}|{c}"] for a, b, c, _ in rows if c.startswith("learner.run")}
    lines = []
    for a, b, c, _ in rows:
        key = f"{a}|{b}|{c}"
        s = best[key]
        mark = "~" if info[key]["rows"] < T else ""
        rate = info[key]["mistakes"] / info[key]["rows"]
        lines.append((a, b, c, f"{mark}{s:.3f} s", f"{T / s:,.0f}", f"{s / ref[a]:.1f}",
                      f"{rate:.3f}", info[key]["calls"]))
    table(("learner", "implementation", "protocol", "seconds", "ex/s", "x okl", "mistakes",
           "calls"), lines, (16, 49, 36, 10, 9, 7, 8, 5), left=3)
    print()
    return best


# ----------------------------------------------------------------------------
# table 3: examples/s at B = 100 and 1000 on a long dense stream
# ----------------------------------------------------------------------------

def budgeted_learners(T):
    """``name -> make(B)`` for every okl learner whose memory a budget bounds."""
    kern = okl.Gaussian(4.0)
    family = [okl.Gaussian(s) for s in (2.0, 4.0, 8.0)]
    L = okl.learners
    return {
        "Forgetron": lambda B: L.Forgetron(kern, B=B),
        "RBP": lambda B: L.RBP(kern, B=B, seed=0),
        "BOGD": lambda B: L.BOGD(kern, B=B, eta=0.5, seed=0),
        "BOGDPP": lambda B: L.BOGDPP(kern, B=B, eta=0.5, seed=0),
        "NORMA (tau = B)": lambda B: L.NORMA(kern, tau=B),
        "Ahpatron": lambda B: L.Ahpatron(kern, B=B, seed=0),
        "POMDR (B0 = B/2)": lambda B: L.POMDR(kern, B=B, B0=B // 2, T=T, seed=0),
        "NOGD (k = B/5)": lambda B: L.NOGD(kern, B=B),
        "FOGD (D = B)": lambda B: L.FOGD(kern, D=B, seed=0),
        "SkeGD": lambda B: L.SkeGD(kern, B=B, T=T, seed=0),
        "BAO2KS": lambda B: L.BAO2KS(kern, B=B, T=T, seed=0),
        "LKMBooks (3 kernels)": lambda B: L.LKMBooks(family, B=B, T=T, seed=0),
        "PFMBooks (3 kernels)": lambda B: L.PFMBooks(family, B=B, T=T, seed=0),
        "BATBooks (3 kernels)": lambda B: L.BATBooks(family, B=B, T=T, seed=0),
        "OMKC (3 kernels)": lambda B: L.OMKC(family, B=B, seed=0),
        "BOKS (3 kernels)": lambda B: L.BOKS(family, B=B, T=T, seed=0),
        "ISKA (3 kernels)": lambda B: L.ISKA(family, B=B, T=T, seed=0),
        "BOMKR (3 kernels)": lambda B: L.BOMKR(family, B=B, T=T, seed=0),
        "BOMKRV (3 kernels)": lambda B: L.BOMKRV(family, B=B, T=T, seed=0),
    }


UNBUDGETED = ("Perceptron, KernelOGD, ALMA, AVP, Projectron, ProjectronPP, KernelAWV, POMD, "
              "OKS, SketchedKONS, ProsNKONS (memory grows with the stream), PKAWV (r fixed by "
              "d and M, not by a budget)")


def scale_table(T, budgets, max_seconds, probe, k):
    X, y = dense_stream(T)
    makers = budgeted_learners(T)
    print(f"3. examples/s on a dense stream of {T:,} rows, d = 18 (benchmarks/peers.py "
          f"dense_stream), Gaussian sigma = 4; best of {k}")
    print(f"   not budgeted, not timed here: {UNBUDGETED}")
    widths = (22,) + (22,) * len(budgets)
    print("   " + row(("learner",) + tuple(f"B = {B}: ex/s (rows)" for B in budgets), widths))
    results = {}
    for name, make in makers.items():
        cells = []
        for B in budgets:
            try:
                n = min(probe, T)
                seconds, _ = timed(lambda: make(B).run(X[:n], y[:n]))
                # the whole stream if the probe's rate says it fits in max_seconds
                n = T if seconds * T / n <= max_seconds else max(n, int(n * max_seconds / seconds))
                best = math.inf
                for _ in range(k):
                    learner = make(B)
                    s, _ = timed(lambda: learner.run(X[:n], y[:n]))
                    best = min(best, s)
                results[(name, B)] = (n / best, n)
                cells.append(f"{n / best:,.0f} ({n:,})" if n < T else f"{n / best:,.0f}")
            except Exception as exc:  # a learner that cannot run this setting says why
                results[(name, B)] = None
                cells.append(f"failed: {type(exc).__name__}")
                print(f"   ! {name} at B = {B}: {exc}")
        print("   " + row((name,) + tuple(cells), widths), flush=True)
    print()
    return results


def nogd_curve(T, B, chunks):
    """Table 4: NOGD's examples/s chunk by chunk along one stream (``run`` per chunk: the
    learner's state carries over), with the share of rounds that updated and the form
    its core keeps the linear model in (w, or beta = M^T w) after each chunk."""
    X, y = dense_stream(T)
    learner = okl.NOGD(okl.Gaussian(4.0), B=B)
    step = T // chunks
    print(f"4. NOGD B = {B}, k = {learner.k_}: examples/s per chunk of {step:,} rows of table "
          "3's stream (one learner, run chunk after chunk)")
    lines = []
    updates = 0
    for i in range(chunks):
        seconds, trace = timed(lambda: learner.run(X[i * step:(i + 1) * step],
                                                   y[i * step:(i + 1) * step]))
        done = learner._extras()["n_updates"]
        form = ("beta" if learner.keeps_coefficients else "w") if learner.is_switched else "stage 1"
        lines.append((f"{i * step:,}-{(i + 1) * step:,}", f"{step / seconds:,.0f}",
                      f"{(done - updates) / step:.3f}", form))
        updates = done
    table(("rows", "ex/s", "updated", "kept as"), lines, (22, 10, 8, 8))
    print()


# ----------------------------------------------------------------------------

def build_parser():
    p = _setup.parser("Time okl against LIBOKL, scikit-learn and River on the same streams.",
                      quick_help="small sizes (about a minute)",
                      repeat_default="5, or 2 with --quick")
    p.add_argument("--projectron-eta", type=float, default=0.77,
                   help="okl Projectron's eta in table 1 (0.77 keeps ~280 vectors on a9a)")
    p.add_argument("--peer-rows", type=int, default=None,
                   help="rows for the per-example Python peers of table 2 (default 2000, "
                        "300 with --quick)")
    p.add_argument("--scale-rows", type=int, default=None,
                   help="rows of table 3's stream (default 10^6, 2*10^4 with --quick)")
    p.add_argument("--scale-repeat", type=int, default=None,
                   help="calls per learner in table 3, best taken (default 2, 1 with --quick)")
    p.add_argument("--max-seconds", type=float, default=60.0,
                   help="table 3: time a learner on the rows that fit in this many seconds")
    p.add_argument("--no-peers", action="store_true", help="skip tables 1 and 2")
    p.add_argument("--no-scale", action="store_true", help="skip table 3")
    return p


def main(args) -> int:
    k = args.repeat or (2 if args.quick else 5)
    _setup.header(args, k)
    start = time.perf_counter()
    if not args.no_peers:
        X, y, name, path = a9a_or_synthetic(args.quick)
        print(f"stream: {name}: {X.shape[0]:,} x {X.shape[1]}, {X.nnz / X.shape[0]:.1f} "
              f"non-zeros a row; Gaussian gamma = {GAMMA} (sigma = {SIGMA:.4f})")
        print()
        libokl_table(X, y, path, k, args.projectron_eta)
        peers_table(X, y, k, args.peer_rows or (300 if args.quick else 2000))
    if not args.no_scale:
        T = args.scale_rows or (20_000 if args.quick else 1_000_000)
        scale_table(T, (100, 1000), args.max_seconds, min(20_000, T),
                    args.scale_repeat or (1 if args.quick else 2))
        nogd_curve(T, 1000, 10)
    print(f"total {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(build_parser().parse_args()))
