"""Cross-check tests/oracles/multiclass_reference.py against LIBOL and DOGMA under Octave.

Not a test (needs octave-cli and the fetched repositories, GPL code that okl never ships):
    LIBOL_GIT=<git dir of LIBOL/LIBOL> DOGMA_GIT=<git dir of denizyuret/dogma> \
        python notes/multiclass_crosscheck/crosscheck.py     # prints max differences

Sources: fetch github:LIBOL/LIBOL and github:denizyuret/dogma (DOGMA 0.31, Orabona) with the
search tool's fetch; their .m files are copied to a temporary directory.  Two Octave
compatibility edits to DOGMA (MATLAB tolerates them): k_pa_multi_train.m allocates a new
coefficient column as ``spalloc(1, n_cla, 2)`` (a row; Octave then mis-shapes beta) ->
``spalloc(n_cla, 1, 2)``; k_projectron2_multi_train.m's sparse ``vec`` crashes Octave's
sparse assignment -> ``zeros(n_cla, 1)``.  Neither changes the algorithm.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
from oracles import multiclass_reference as mr          # noqa: E402
import oracles.test_multiclass_reference as T           # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LIBOL = os.environ.get("LIBOL_GIT", "/work/.mirror/LIBOL+LIBOL/repo")
DOGMA = os.environ.get("DOGMA_GIT", "/work/.mirror/denizyuret+dogma/repo")


def git_show(repo, path, dest):
    with open(dest, "w") as f:
        f.write(subprocess.run(["git", "-C", repo, "show", f"HEAD:{path}"], check=True,
                               capture_output=True, text=True, errors="replace").stdout)


def octave(d, script):
    subprocess.run(["octave-cli", "-q", script], cwd=d, capture_output=True, timeout=900)


def libol(d):
    for f in ("M_PerceptronM", "M_PerceptronS", "M_PerceptronU", "M_PA", "M_PA1", "M_PA2"):
        git_show(LIBOL, f"algorithms/{f}.m", os.path.join(d, f"{f}.m"))
    rng = np.random.default_rng(3)
    X1, y1 = T.blobs(150, K=4, noise=0.1, seed=12)
    X2 = rng.integers(-2, 3, size=(150, 3)).astype(float)
    y2 = rng.integers(0, 4, size=150)
    for i, (X, y) in enumerate([(X1, y1), (X2, y2)]):
        np.savetxt(os.path.join(d, f"X{i}.txt"), X, fmt="%.17g")
        np.savetxt(os.path.join(d, f"y{i}.txt"), y + 1, fmt="%d")
    shutil.copy(os.path.join(HERE, "libol_driver.m"), os.path.join(d, "libol_driver.m"))
    octave(d, "libol_driver.m")
    lin = mr.linear_kernel
    for i in (0, 1):
        X = np.loadtxt(os.path.join(d, f"X{i}.txt"))
        y = np.loadtxt(os.path.join(d, f"y{i}.txt")).astype(int) - 1
        runs = {"M_PerceptronM": mr.perceptron_max(X, y, lin, n_classes=4, convention="libol"),
                "M_PerceptronU": mr.perceptron_uniform(X, y, lin, n_classes=4, convention="libol"),
                "M_PerceptronS": mr.perceptron_proportional(X, y, lin, n_classes=4,
                                                            convention="libol"),
                "M_PA": mr.pa(X, y, lin, n_classes=4),
                "M_PA1": mr.pa1(X, y, lin, C=0.3, n_classes=4),
                "M_PA2": mr.pa2(X, y, lin, C=0.3, n_classes=4)}
        for name, r in runs.items():
            P = np.loadtxt(os.path.join(d, f"out_{name}_{i}_pred.txt")).astype(int) - 1
            W = np.loadtxt(os.path.join(d, f"out_{name}_{i}_W.txt"), delimiter=",")
            Wo = r.coef.T @ r.support if r.n_support else np.zeros_like(W)
            print(f"LIBOL stream {i} {name:14s} predictions equal: {np.array_equal(P, r.pred)!s:5s}"
                  f"  max|W - W_oracle| = {np.nanmax(np.abs(W - Wo)):.2e}  NaN in W: {np.isnan(W).any()}")


def dogma(d):
    for f in ("compute_kernel", "model_init", "k_perceptron_multi_train", "k_pa_multi_train",
              "k_projectron2_multi_train"):
        git_show(DOGMA, f"{f}.m", os.path.join(d, f"{f}.m"))
    for f, a, b in (("k_pa_multi_train.m", "model.beta(:,end+1)=spalloc(1,model.n_cla,2);",
                     "model.beta(:,end+1)=spalloc(model.n_cla,1,2);"),
                    ("k_projectron2_multi_train.m", "vec=spalloc(1,model.n_cla,2);",
                     "vec=zeros(model.n_cla,1);")):
        p = os.path.join(d, f)
        s = open(p).read()
        assert a in s
        open(p, "w").write(s.replace(a, b))
    X, y = T.blobs(200, K=4, noise=0.1, seed=21)
    np.savetxt(os.path.join(d, "X.txt"), X, fmt="%.17g")
    np.savetxt(os.path.join(d, "y.txt"), y + 1, fmt="%d")
    shutil.copy(os.path.join(HERE, "dogma_driver.m"), os.path.join(d, "dogma_driver.m"))
    octave(d, "dogma_driver.m")
    k = mr.gaussian_kernel(1.0)                  # DOGMA 'rbf' with gamma = 1/(2 sigma^2) = 0.5
    F = np.loadtxt(os.path.join(d, "perc_pred.txt"), delimiter=",")
    print(f"DOGMA k_perceptron_multi_train (max-score)  max|scores diff| = "
          f"{np.abs(F - mr.perceptron_max(X, y, k).scores).max():.2e}")
    for u, v in ((1, "pa1"), (2, "pa2")):
        F = np.loadtxt(os.path.join(d, f"pa{u}_pred.txt"), delimiter=",")
        r = mr.passive_aggressive(X, y, k, variant=v, C=0.3)
        print(f"DOGMA k_pa_multi_train update={u} ({v})     max|scores diff| = "
              f"{np.abs(F - r.scores).max():.2e}")
    for eta in (0.05, 0.2):
        F = np.loadtxt(os.path.join(d, f"pp_{eta:g}_pred.txt"), delimiter=",")
        S = np.atleast_1d(np.loadtxt(os.path.join(d, f"pp_{eta:g}_S.txt"), delimiter=","))
        r = mr.projectron_pp(X, y, k, eta=eta, convention="dogma")
        o = mr.projectron_pp(X, y, k, eta=eta)
        print(f"DOGMA k_projectron2_multi_train eta={eta}: convention='dogma' max|scores diff| = "
              f"{np.abs(F - r.scores).max():.2e}, same support rounds: "
              f"{np.array_equal(S.astype(int) - 1, r.support_rounds)} ({S.size} SVs); "
              f"okl convention: {o.n_support} SVs, {o.n_errors} errors vs {r.n_errors}")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        libol(d)
    with tempfile.TemporaryDirectory() as d:
        dogma(d)
