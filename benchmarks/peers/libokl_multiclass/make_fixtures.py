"""Turn the Octave outputs of run_libokl.m / dump_rounds.m into okl's test fixtures.

    python make_fixtures.py --mat-dir <Online-Kernel-Learning>/multiclass/data \
        --dumps <folder of dump_rounds.m's CSVs> --runs <folder of run_libokl.m's CSVs> \
        --out tests/fixtures/libokl_multiclass

Writes (see tests/fixtures/libokl_multiclass/README.md for the layout):
  <ds>_data.npz            the .mat data and its 20 permutations, compactly and exactly
  <ds>_b20_rounds.npz      dump_rounds(..., run 1, first 400 rounds, Budget 20)
  <ds>_full_rounds.npz     dump_rounds(..., run 1, all rounds, Experiment.m's Budget 200)
  <ds>_runs.csv            run_libokl.m's lines (one per run and learner)
  <ds>_results.csv         their summary per learner (mean, sample std as MATLAB's std,
                           and the fastest run's seconds: the machine was shared)
"""
import argparse
import csv
import os

import numpy as np

LEARNERS = ["perceptron", "ogd", "FouGD", "NyGD", "RBP", "forgetron", "projectron",
            "proplus", "BPAs", "BOGD"]
PAPER_NAMES = {"perceptron": "Perceptron", "ogd": "OGD", "FouGD": "FOGD", "NyGD": "NOGD",
               "RBP": "RBP", "forgetron": "Forgetron", "projectron": "Projectron",
               "proplus": "Projectron++", "BPAs": "BPAs", "BOGD": "BOGD"}
HEAD = 300      # rounds whose float64 scores the full fixture keeps


def data_arrays(mat_dir, name):
    import scipy.io
    m = scipy.io.loadmat(os.path.join(mat_dir, f"{name}.mat"), mat_dtype=True)
    data, ID = m["data"], m["ID_list"].astype(np.uint16)
    X, y = data[:, 1:], data[:, 0].astype(np.uint8)
    out = {"y": y, "ID_list": ID}
    if np.isin(X, (0.0, 1.0)).all():
        out["X_bits"] = np.packbits(X.astype(np.uint8), axis=1)
        out["n_features"] = np.array(X.shape[1])
    else:
        values, index = np.unique(X, return_inverse=True)
        out["values"] = values
        out["X_index"] = index.reshape(X.shape).astype(np.uint16)
    return out


def rounds_arrays(prefix, K, head=None, budget=200, n_rounds=0):
    out = {"budget": np.array(budget), "n_rounds": np.array(n_rounds), "run": np.array(1)}
    for L in LEARNERS:
        R = np.loadtxt(f"{prefix}_{L}_rounds.csv", delimiter=",", skiprows=1)
        scores = R[:, 3:3 + K]
        cum = R[:, 3 + K].astype(np.int64)
        mistakes = np.diff(np.r_[0, cum]) == 1
        pred = np.argmax(scores, axis=1)                  # MATLAB's max: first index
        y0 = R[:, 2].astype(np.int64) - 1
        assert np.array_equal(mistakes, pred != y0), L    # the learner's own count agrees
        out[f"{L}.pred"] = pred.astype(np.uint8)
        out[f"{L}.mistakes"] = mistakes
        out[f"{L}.support_size"] = R[:, 4 + K].astype(np.uint16)
        if head is None:
            out[f"{L}.scores"] = scores
        else:
            s = np.sort(scores, axis=1)
            out[f"{L}.gap"] = (s[:, -1] - s[:, -2]).astype(np.float32)
            out[f"{L}.scores_head"] = scores[:head]
    out["id"] = R[:, 1].astype(np.uint16)
    draws = np.loadtxt(f"{prefix}_RBP_draws.csv", delimiter=",", ndmin=1)
    out["RBP.draws"] = draws.astype(np.int16)
    out["FouGD.gauss_k"] = np.loadtxt(f"{prefix}_FouGD_u.csv", delimiter=",").astype(np.int16)
    return out


def results(runs_csv, results_csv):
    rows = list(csv.reader(open(runs_csv)))
    by = {}
    for ds, run, L, rate, sv, sec in rows:
        by.setdefault(L, []).append((int(run), float(rate), int(sv), float(sec)))
    with open(results_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dataset", "learner", "matlab_file", "runs", "mistake_rate_mean",
                    "mistake_rate_std", "support_size_mean", "seconds_per_run_mean",
                    "seconds_per_run_std", "seconds_per_run_min"])
        for L in LEARNERS:
            v = by.get(L)
            if not v:
                continue
            r = np.array([x[1] for x in v])
            sec = np.array([x[3] for x in v])
            sv = np.array([x[2] for x in v])
            std = lambda a: float(np.std(a, ddof=1)) if len(a) > 1 else float("nan")
            w.writerow([rows[0][0], PAPER_NAMES[L], L + ".m", len(v), f"{r.mean():.6f}",
                        f"{std(r):.6f}", f"{sv.mean():.1f}", f"{sec.mean():.2f}",
                        f"{std(sec):.2f}", f"{sec.min():.2f}"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mat-dir", required=True)
    ap.add_argument("--dumps", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for ds, K in (("dna", 3), ("satimage", 6)):
        np.savez_compressed(os.path.join(a.out, f"{ds}_data.npz"), **data_arrays(a.mat_dir, ds))
        np.savez_compressed(os.path.join(a.out, f"{ds}_b20_rounds.npz"),
                            **rounds_arrays(os.path.join(a.dumps, f"{ds}_b20"), K,
                                            budget=20, n_rounds=400))
        full = os.path.join(a.dumps, f"{ds}_run1")
        if os.path.exists(f"{full}_BOGD_rounds.csv"):
            np.savez_compressed(os.path.join(a.out, f"{ds}_full_rounds.npz"),
                                **rounds_arrays(full, K, head=HEAD))
        runs = os.path.join(a.runs, f"{ds}_runs.csv")
        if os.path.exists(runs):
            import shutil
            shutil.copy(runs, os.path.join(a.out, f"{ds}_runs.csv"))
            results(runs, os.path.join(a.out, f"{ds}_results.csv"))
    for f in sorted(os.listdir(a.out)):
        print(f"{os.path.getsize(os.path.join(a.out, f)):>9,d}  {f}")


if __name__ == "__main__":
    main()
