"""Readers of tests/fixtures/libokl_multiclass/ (LIBOKL's MATLAB multiclass code run under
Octave; the layout is in that folder's README.md).  Plain numpy; nothing of okl."""
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "libokl_multiclass"

#: MATLAB file names, in Experiment.m's order (the keys of the rounds fixtures).
LEARNERS = ["perceptron", "ogd", "FouGD", "NyGD", "RBP", "forgetron", "projectron",
            "proplus", "BPAs", "BOGD"]


def load_data(name):
    """(X float64 (n, d), y int 1..K, ID_list int (20, n) 1-based) of ``<name>.mat``,
    exactly as scipy.io.loadmat reads the .mat file (rows in the file's order)."""
    z = np.load(FIXTURES / f"{name}_data.npz")
    if "X_bits" in z:
        X = np.unpackbits(z["X_bits"], axis=1)[:, :int(z["n_features"])].astype(np.float64)
    else:
        X = z["values"][z["X_index"].astype(np.int64)]
    return X, z["y"].astype(np.int64), z["ID_list"].astype(np.int64)


def load_stream(name, run=1, n_rounds=None):
    """The stream of permutation ``run`` (1-based row of ID_list), as Experiment.m feeds
    it: (X[ID-1], y[ID-1]), optionally its first n_rounds."""
    X, y, ID_list = load_data(name)
    ID = ID_list[run - 1]
    if n_rounds:
        ID = ID[:n_rounds]
    return X[ID - 1], y[ID - 1]


def load_rounds(name, kind):
    """``kind`` = "b20" (first 400 rounds of permutation 1, Budget 20, float64 scores of
    every round) or "full" (all rounds of permutation 1, Experiment.m's Budget 200;
    float64 scores of the first 300 rounds, float32 top-two gaps of all).  Returns a dict
    learner -> dict(pred, mistakes, support_size, scores | scores_head + gap), plus
    "RBP.draws" (1-based removal indices), "FouGD.gauss" (the standard-normal matrix
    FouGD.m used: int16 / 1024), "budget", "n_rounds", "id"."""
    z = np.load(FIXTURES / f"{name}_{kind}_rounds.npz")
    out = {L: {} for L in LEARNERS}
    for key in z.files:
        if "." in key:
            L, what = key.split(".", 1)
            if L in out and what not in ("draws", "gauss_k"):
                out[L][what] = z[key]
    out["RBP.draws"] = z["RBP.draws"].astype(np.int64)
    out["FouGD.gauss"] = z["FouGD.gauss_k"].astype(np.float64) / 1024.0
    out["budget"] = int(z["budget"])
    out["n_rounds"] = int(z["n_rounds"])
    out["id"] = z["id"].astype(np.int64)
    return out
