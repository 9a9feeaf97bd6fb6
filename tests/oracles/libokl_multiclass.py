"""Plain-numpy oracles of LIBOKL's MATLAB multiclass learners, line by line.

The code followed is the folder ``multiclass/`` of ``jingcoco/Online-Kernel-Learning``
(the code of Lu, Hoi, Wang, Zhao & Liu, "Large scale online kernel learning", JMLR 17(47),
2016), commit fd3d406.  One function per learner, in the order of ``Experiment.m``:

    perceptron  (perceptron.m)   ogd        (ogd.m)        fogd       (FouGD.m)
    nogd        (NyGD.m)         rbp        (RBP.m)        forgetron  (forgetron.m)
    projectron  (projectron.m)   projectron_pp (proplus.m) bpas       (BPAs.m)
    bogd        (BOGD.m)

Each runs a stream as given (row t of ``X`` is round t; permute it beforehand, e.g.
``X[ID - 1]`` with a 1-based ``ID_list`` row of the ``.mat`` files) and returns a
:class:`Run`: the predicted class and the K scores of every round, the mistakes, the
support size after every round, and the final model.  Nothing of okl is imported; okl's
own multiclass learners are checked against these functions and these functions against
the MATLAB code's own per-round output (``tests/fixtures/libokl_multiclass/``).

Conventions shared by all ten (every learner file repeats these lines):

* Labels: any labels, mapped to 0..K-1 by the order of their sorted unique values (the
  MATLAB code takes labels 1..K and ``n_label = max(Y)``; ``n_classes=`` reproduces a K
  larger than the number of labels seen).
* Kernel: ``comp_K.m``, ``k(x, s) = exp(-(x.x + s.s - 2 x.s) / (2 sigma^2))``, the
  Gaussian with width ``sigma`` (Experiment.m: ``sigma = 8``), computed with that same
  expansion (so k(x, x) is 1 only up to rounding, as in MATLAB).
* Prediction: ``[V_max, idx_max] = max(V)``: the first class of largest score
  (``np.argmax``).  Round 1 scores all zero, so it predicts class 0.
* Other class: ``s_t``, the first class of largest score among the classes other than the
  true one (``idx_n = [1:Y-1 Y+1:n_label]; [V_sec, idx_sec] = max(V(idx_n))``).  On a
  mistake it is the predicted class.
* Loss: ``l_t = max(0, 1 - (V(y) - V_sec))``, the multiclass hinge loss against s_t.
* Mistakes: ``hat_y ~= y``, counted before the update, every round.

Randomness: RBP draws the support vector to remove (``perm_t = randperm(B); idx =
perm_t(1)``, uniform on 1..B); :func:`rbp` takes ``draws``, an array of uniforms in [0, 1)
consumed one per removal or a callable returning one, and removes position
``floor(u * B)`` (0-based) of the support list.  :func:`indices_to_uniforms` turns the
1-based indices Octave drew into uniforms that select them.  FOGD draws
``u = (1/sigma) * randn(d, D)``; :func:`fogd` takes the standard-normal matrix ``gauss``
(d, D) or a callable ``gauss(shape)`` (a typed implementation drawing uniforms passes
``scipy.special.ndtri(uniforms)``).  The other eight learners are deterministic (NOGD
included: its Nystrom basis is the top-k eigenpairs of the first B support vectors' Gram
matrix, ``eigs``; the scores do not depend on the eigenvectors' signs).
"""
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Run", "encode_labels", "indices_to_uniforms", "EXPERIMENT_OPTIONS",
    "perceptron", "ogd", "fogd", "nogd", "rbp", "forgetron", "projectron",
    "projectron_pp", "bpas", "bogd", "LEARNERS",
]

#: ``Experiment.m`` lines 19-29 (``n_label`` and ``t_tick`` depend on the data).
EXPERIMENT_OPTIONS = dict(
    eta_fou=0.005,     # FOGD's step
    rou_f=4,           # FOGD: D = round(rou_f * Budget) = 800 random frequencies
    eta=0.5,           # OGD, BOGD, NOGD step
    Budget=200,        # B for every budgeted learner and NOGD
    k=0.2,             # NOGD: rank round(k * B) = 40
    sigma=8.0,         # Gaussian width, exp(-||x-y||^2 / (2 sigma^2))
    lambda_=1e-5,      # BOGD's regularisation (options.lambda)
    gamma=np.inf,      # BOGD's clipping level eta*gamma (inf: no clipping)
    C_BPAs=1.0,        # BPAs' C
)


@dataclass
class Run:
    """What one oracle run returns.

    pred: (T,) predicted class 0..K-1 per round.  mistakes: (T,) bool.  scores: (T, K) the
    scores V the prediction was made from.  support_size: (T,) ``size_SV`` after each
    round (what the MATLAB code records in ``SVs``; FOGD records 0).  support: the rounds
    (0-based rows of the stream) of the final support vectors, in the order of the
    coefficient matrix's columns.  coef: (K, len(support)) the final coefficients (for
    FOGD the (K, 2D) weights; for NOGD after its switch the (K, k) weights).  model: any
    other final state (Nystrom basis, FOGD's frequencies, Forgetron's Q, ...).
    """
    pred: np.ndarray
    mistakes: np.ndarray
    scores: np.ndarray
    support_size: np.ndarray
    support: np.ndarray
    coef: np.ndarray
    model: dict = field(default_factory=dict)

    @property
    def mistake_rate(self):
        return float(np.mean(self.mistakes))


# --------------------------------------------------------------------------- helpers

def encode_labels(y, n_classes=None):
    """Labels -> 0..K-1 by the order of the sorted unique values; returns (codes, K)."""
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    K = len(classes) if n_classes is None else int(n_classes)
    if K < len(classes):
        raise ValueError(f"n_classes={K} < {len(classes)} distinct labels")
    return codes.astype(np.int64), K


def indices_to_uniforms(idx, B):
    """1-based indices in 1..B (as Octave's ``randperm(B)(1)`` drew them) -> uniforms u
    with ``floor(u * B) == idx - 1``."""
    return (np.asarray(idx, dtype=float) - 0.5) / B


def _mround(x):
    """MATLAB's round (half away from zero) of a non-negative number."""
    return int(np.floor(x + 0.5))


def _draw_source(draws):
    """A function returning the next uniform: from a callable or an array."""
    if callable(draws):
        return draws
    it = iter(np.asarray(draws, dtype=float).ravel())

    def nxt():
        try:
            return float(next(it))
        except StopIteration:
            raise ValueError("ran out of random draws") from None
    return nxt


def _comp_K(X, sigma, i, S):
    """comp_K.m: the kernel of row i with rows S, same expansion and order of operations:
    gid = x*x'; gsv = sum(X(SV,:).*X(SV,:),2); gidsv = x*X(SV,:)';
    k = exp(-(gid + gsv - 2*gidsv')/(2*sigma^2))."""
    x = X[i]
    Xs = X[np.asarray(S, dtype=np.int64)]
    gid = x @ x
    gsv = np.sum(Xs * Xs, axis=1)
    gidsv = Xs @ x
    return np.exp(-(gid + gsv - 2.0 * gidsv) / (2.0 * sigma ** 2))


def _comp_K1(X, sigma, A, S):
    """comp_K1.m: the Gram matrix k(X(S,:), X(A,:)) (rows S, columns A), same expansion."""
    XA = X[np.asarray(A, dtype=np.int64)]
    XS = X[np.asarray(S, dtype=np.int64)]
    gid = np.sum(XA * XA, axis=1)
    gsv = np.sum(XS * XS, axis=1)
    gidsv = XA @ XS.T                       # (|A|, |S|)
    return np.exp(-(gid[None, :] + gsv[:, None] - 2.0 * gidsv.T) / (2.0 * sigma ** 2))


class _KernelRows:
    """comp_K.m's values for round t against every earlier round, computed once a round.

    Entry j is ``exp(-(x_t.x_t + x_j.x_j - 2 x_t.x_j) / (2 sigma^2))``: the expression of
    comp_K.m entry by entry (gsv is the same per-row sum), so indexing the row with a
    support list gives what ``comp_K(X, options, id, SV)`` gives for that list (up to the
    order BLAS sums a dot product in).  Only a shortcut for speed: one matrix-vector
    product a round instead of one per class."""

    def __init__(self, X, sigma):
        self.X, self.sigma = X, sigma
        self.sq = np.sum(X * X, axis=1)

    def __call__(self, t):
        x = self.X[t]
        gid = x @ x
        gidsv = self.X[:t] @ x
        return np.exp(-(gid + self.sq[:t] - 2.0 * gidsv) / (2.0 * self.sigma ** 2))


def _predict(V, y):
    """The lines shared by every learner file: prediction, other class s_t, V_sec, loss.
    (MATLAB's max skips NaNs and np.argmax does not; no score is NaN on these data.)"""
    hat_y = int(np.argmax(V))                   # [V_max, idx_max] = max(V)
    V_n = np.delete(V, y)                       # idx_n = [1:Y(id)-1 Y(id)+1:n_label]
    s = int(np.argmax(V_n))                     # [V_sec, idx_sec] = max(V_n)
    V_sec = V_n[s]
    if s >= y:                                  # if s_t >= Y(id), s_t = s_t + 1
        s += 1
    l = max(0.0, 1.0 - (V[y] - V_sec))          # l_t = max(0, 1-(V(Y(id))-V_sec))
    return hat_y, s, l


class _ClassLists:
    """The per-class support lists of perceptron.m, ogd.m, RBP.m, forgetron.m, BOGD.m:
    row i of the MATLAB matrices SV (n_label x N) and alpha, svLength(i) entries long.
    Each update appends the round to the list of the true class (+) and of s_t (-), so
    one example sits in two lists."""

    def __init__(self, K):
        self.sv = [[] for _ in range(K)]
        self.alpha = [[] for _ in range(K)]

    def scores(self, krow, size_SV):
        """Lines 42-55 of perceptron.m (and the same lines of the others):
        V(i) = alpha_i * comp_K(X, options, id, SV_i) for each class with entries;
        ``krow[j]`` is comp_K of this round with round j (see :class:`_KernelRows`)."""
        K = len(self.sv)
        V = np.zeros(K)
        if size_SV == 0:                        # if (size_SV==0), V=zeros(n_label,1)
            return V
        for c in range(K):                      # for i=1:n_label
            if len(self.sv[c]) != 0:            # if size_svi~=0
                V[c] = np.asarray(self.alpha[c]) @ krow[self.sv[c]]
        return V

    def append(self, c, t, a):
        self.sv[c].append(t)
        self.alpha[c].append(a)

    def delete(self, t):
        """[x_find,y_find]=find(SV==SV_delete); remove that entry from each row found."""
        for c in range(len(self.sv)):
            if t in self.sv[c]:
                j = self.sv[c].index(t)
                del self.sv[c][j]
                del self.alpha[c][j]

    def scale(self, factor):
        for c in range(len(self.alpha)):
            self.alpha[c] = [factor * a for a in self.alpha[c]]

    def matrix(self, order=None):
        """(support rounds, K x |S| coefficient matrix) over the union of the lists."""
        if order is None:
            order = sorted({t for lst in self.sv for t in lst})
        pos = {t: j for j, t in enumerate(order)}
        A = np.zeros((len(self.sv), len(order)))
        for c in range(len(self.sv)):
            for t, a in zip(self.sv[c], self.alpha[c]):
                A[c, pos[t]] += a
        return np.asarray(order, dtype=np.int64), A


def _setup(X, y, n_classes):
    X = np.ascontiguousarray(X, dtype=np.float64)
    y, K = encode_labels(y, n_classes)
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError("X must be (T, d) with one label per row")
    T = len(y)
    return X, y, K, T, np.zeros(T, np.int64), np.zeros(T, bool), np.zeros((T, K)), \
        np.zeros(T, np.int64)


# --------------------------------------------------------------------------- learners

def perceptron(X, y, sigma=8.0, n_classes=None):
    """perceptron.m (lines 39-90): Crammer & Singer's max-score multiclass kernel Perceptron.

    Per-class lists; on a mistake (``hat_y_t ~= Y(id)``, line 69) the round joins the true
    class's list with +1 and the list of s_t (= the predicted class) with -1 (lines
    74-80).  No budget: ``size_SV`` counts mistakes."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    L = _ClassLists(K)
    krow = _KernelRows(X, sigma)
    size_SV = 0
    for t in range(T):
        V = L.scores(krow(t), size_SV)                       # lines 42-55
        hat_y, s, _ = _predict(V, y[t])                          # lines 57-67
        if hat_y != y[t]:                                        # line 69
            size_SV += 1
            L.append(y[t], t, 1.0)                               # gamma_t = 1
            L.append(s, t, -1.0)
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    sv, A = L.matrix()
    return Run(pred, mist, scores, ssz, sv, A)


def ogd(X, y, eta=0.5, sigma=8.0, n_classes=None):
    """ogd.m (lines 40-93): multiclass kernel OGD on the hinge loss against s_t, no
    regularisation and a constant step: whenever ``l_t > 0`` (line 75, mistake or margin
    error) the round joins the true class's list with +eta and s_t's with -eta (lines
    78-84).  No budget."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    L = _ClassLists(K)
    krow = _KernelRows(X, sigma)
    size_SV = 0
    for t in range(T):
        V = L.scores(krow(t), size_SV)                       # lines 43-56
        hat_y, s, l = _predict(V, y[t])                          # lines 58-69
        if l > 0:                                                # line 75
            size_SV += 1
            L.append(y[t], t, eta)
            L.append(s, t, -eta)
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    sv, A = L.matrix()
    return Run(pred, mist, scores, ssz, sv, A)


def fogd(X, y, gauss, eta_fou=0.005, sigma=8.0, Budget=200, rou_f=4, n_classes=None):
    """FouGD.m (lines 30-84): Fourier OGD with D = round(rou_f*Budget) random frequencies.

    ``u = (1/sigma)*randn(d, D)`` (line 34; ``gauss`` is that randn matrix, or a callable
    gauss((d, D)) returning it); the feature map is ``[cos(u'x); sin(u'x)]`` (line 50), a
    2D-vector WITHOUT the 1/sqrt(D) factor of the paper, so z(x).z(x') ~ D k(x, x').  The
    weights w (K x 2D) get +eta_fou*z on the true class and -eta_fou*z on s_t whenever
    l_t > 0 (lines 70-74).  ``size_SV`` stays 0 (the code records 0 support vectors)."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    D = _mround(rou_f * Budget)                                  # line 30
    d = X.shape[1]
    G = gauss((d, D)) if callable(gauss) else np.asarray(gauss, dtype=float)
    if G.shape != (d, D):
        raise ValueError(f"gauss must be ({d}, {D})")
    u = (1.0 / sigma) * G                                        # line 34
    w = np.zeros((K, 2 * D))                                     # line 33
    for t in range(T):
        x_t = X[t]
        ux = u.T @ x_t
        nx_t = np.concatenate([np.cos(ux), np.sin(ux)])          # line 50
        V = w @ nx_t                                             # line 52
        hat_y, s, l = _predict(V, y[t])                          # lines 54-65
        if l > 0:                                                # line 70
            w[y[t]] = w[y[t]] + eta_fou * nx_t
            w[s] = w[s] - eta_fou * nx_t
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, 0
    return Run(pred, mist, scores, ssz, np.zeros(0, np.int64), w, {"u": u})


def nogd(X, y, eta=0.5, sigma=8.0, Budget=200, k=0.2, n_classes=None):
    """NyGD.m (lines 38-123): Nystrom OGD.

    Stage 1 (flag = 0, lines 42-85): kernel OGD (as ogd.m, one column of a K x |S| matrix
    per support vector) until B support vectors are held.  At the first round with l_t > 0
    and |S| = B (lines 75-83): ``[V, D] = eigs(k_hat, round(k*B))`` on the Gram matrix of
    the B support vectors (comp_K1.m), ``w = alpha*pinv(D^(-1/2) V')`` (the kernel
    expansion projected on the basis), and that round's update is made in the new features
    ``z = D^(-1/2) V' k_t``.  Stage 2 (lines 86-114): linear OGD on z with the same eta.
    ``eigs`` is taken as numpy's ``eigh`` restricted to the k largest eigenvalues (the Gram
    matrix is symmetric PSD; the scores do not depend on the eigenvectors' signs)."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    B = Budget
    kk = _mround(k * B)                                          # line 26
    alpha = np.zeros((K, 0))
    SV = []
    size_SV = 0
    flag = 0
    w = Vb = Dm = None
    for t in range(T):
        if flag == 0:
            if size_SV == 0:
                Value = np.zeros(K)
            else:
                Value = alpha @ _comp_K(X, sigma, t, SV)         # line 46
            hat_y, s, l = _predict(Value, y[t])
            if l > 0:
                if size_SV < B:                                  # lines 66-73
                    size_SV += 1
                    alpha = np.hstack([alpha, np.zeros((K, 1))])
                    SV.append(t)
                    alpha[y[t], size_SV - 1] = eta
                    alpha[s, size_SV - 1] = -eta
                else:                                            # lines 75-83
                    k_hat = _comp_K1(X, sigma, SV, SV)
                    evals, evecs = np.linalg.eigh(k_hat)
                    top = np.argsort(evals)[::-1][:kk]           # eigs: largest magnitude
                    Vb, Dm = evecs[:, top], np.diag(evals[top])
                    flag = 1
                    Dmh = np.diag(np.diag(Dm) ** -0.5)           # D^(-0.5)
                    w = alpha @ np.linalg.pinv(Dmh @ Vb.T)
                    k_t = _comp_K(X, sigma, t, SV)
                    nx_t = Dmh @ Vb.T @ k_t
                    w[y[t]] = w[y[t]] + eta * nx_t
                    w[s] = w[s] - eta * nx_t
        else:
            k_t = _comp_K(X, sigma, t, SV)                       # line 87
            nx_t = Dmh @ Vb.T @ k_t                              # line 89
            Value = w @ nx_t                                     # line 91
            hat_y, s, l = _predict(Value, y[t])
            if l > 0:                                            # lines 109-113
                w[y[t]] = w[y[t]] + eta * nx_t
                w[s] = w[s] - eta * nx_t
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], Value, size_SV
    sv = np.asarray(SV, dtype=np.int64)
    if flag:
        return Run(pred, mist, scores, ssz, sv, w,
                   {"eigvecs": Vb, "eigvals": np.diag(Dm), "alpha_at_switch": alpha})
    return Run(pred, mist, scores, ssz, sv, alpha)


def rbp(X, y, draws, sigma=8.0, Budget=200, n_classes=None):
    """RBP.m (lines 40-120): the Random Budget Perceptron on the multiclass Perceptron.

    As perceptron.m while fewer than B mistakes are held (lines 73-84, with the FIFO list
    SV_list of the rounds added).  On a mistake with B held (lines 86-108): ``idx =
    randperm(B)(1)``, here ``floor(u*B)`` with u the next of ``draws``; that entry of
    SV_list is removed from SV_list and from every class list, then the new round is
    added as usual.  ``size_SV`` stays B."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    B = Budget
    draw = _draw_source(draws)
    L = _ClassLists(K)
    krow = _KernelRows(X, sigma)
    SV_list = []
    size_SV = 0
    removed = []
    for t in range(T):
        V = L.scores(krow(t), size_SV)
        hat_y, s, _ = _predict(V, y[t])
        if hat_y != y[t]:                                        # line 71
            if size_SV < B:
                size_SV += 1
                SV_list.append(t)
            else:
                idx = int(np.floor(draw() * B))                  # perm_t=randperm(B); idx=perm_t(1)
                SV_delete = SV_list.pop(idx)                     # lines 89-91
                L.delete(SV_delete)                              # lines 92-97
                removed.append(idx)
                SV_list.append(t)                                # line 99
            L.append(y[t], t, 1.0)
            L.append(s, t, -1.0)
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    sv, A = L.matrix(SV_list)
    return Run(pred, mist, scores, ssz, sv, A, {"removed_positions": np.asarray(removed)})


def _forgetron_phi(coeA, coeB, coeC):
    """forgetron.m lines 95-109, verbatim (including its root choice when coeA < 0, which
    gives phi > 1; and for coeA > 0 with coeA+coeB+coeC > 0 and no real root MATLAB
    would go complex: raised here)."""
    if coeA == 0:
        return max(0.0, min(1.0, -coeC / coeB))
    if coeA + coeB + coeC <= 0:
        return 1.0
    disc = coeB ** 2 - 4 * coeA * coeC
    if disc < 0:
        raise FloatingPointError("forgetron.m would take sqrt of a negative number here")
    if coeA > 0:
        return (-coeB + np.sqrt(disc)) / (2 * coeA)
    return (-coeB - np.sqrt(disc)) / (2 * coeA)


def forgetron(X, y, sigma=8.0, Budget=200, n_classes=None):
    """forgetron.m (lines 41-132): a multiclass Forgetron (Dekel, Shalev-Shwartz & Singer).

    On a mistake the round is added as in perceptron.m (lines 72-82, FIFO list SV_list).
    When that makes B+1 (lines 84-122): r = the oldest round; mu = f_{y_r}(x_r), the score
    of r's TRUE CLASS ONLY at x_r under the current (just updated) model (line 90; the
    binary paper's mu is the margin y_r f(x_r)); delta = |first coefficient of class y_r's
    list| (= r's current weight); phi from Q + psi(phi) <= 15/32 M (M = mistakes so far,
    this one included) by forgetron.m's quadratic formula (see :func:`_forgetron_phi`);
    EVERY coefficient of every class is multiplied by phi; Q += psi; r is removed from
    every list."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    B = Budget
    L = _ClassLists(K)
    krow = _KernelRows(X, sigma)
    SV_list = []
    size_SV = 0
    Q = 0.0
    err_count = 0
    phis = []
    for t in range(T):
        V = L.scores(krow(t), size_SV)
        hat_y, s, _ = _predict(V, y[t])
        if hat_y != y[t]:                                        # line 70
            err_count += 1
            size_SV += 1
            SV_list.append(t)
            L.append(y[t], t, 1.0)
            L.append(s, t, -1.0)
            if size_SV > B:                                      # line 84
                r_t = SV_list[0]
                yr = y[r_t]
                SV_i, alpha_i = L.sv[yr], np.asarray(L.alpha[yr])
                mu = alpha_i @ _comp_K(X, sigma, r_t, SV_i)      # line 90
                delta = abs(alpha_i[0])                          # line 91
                coeA = delta ** 2 - 2 * delta * mu
                coeB = 2 * delta
                coeC = Q - 15 / 32 * err_count
                phi = _forgetron_phi(coeA, coeB, coeC)
                L.scale(phi)                                     # line 110
                psi_t = (delta * phi) ** 2 + 2 * delta * phi * (1 - phi * mu)
                Q = Q + psi_t
                L.delete(r_t)                                    # lines 114-119
                SV_list.pop(0)
                size_SV -= 1
                phis.append(phi)
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    sv, A = L.matrix(SV_list)
    return Run(pred, mist, scores, ssz, sv, A, {"Q": Q, "phis": np.asarray(phis)})


def projectron(X, y, sigma=8.0, Budget=200, n_classes=None):
    """projectron.m (lines 41-105): a BUDGETED multiclass Projectron.

    One shared support list, a K x |S| coefficient matrix, and K_t_inver = the inverse
    Gram matrix of the support set.  On a mistake: the first one adds the round (+1 true
    class, -1 s_t; K_t_inver = 1/k(x,x), Kid kept as k(x,x) for all later rounds, lines
    68-75).  Later, with d* = K_t_inver k_t and ||delta||^2 = Kid - k_t'd*: while |S| < B
    the round is ADDED whatever ||delta|| is (lines 79-90; K_t_inver grown by the block
    formula); once |S| = B the update is PROJECTED: alpha(y) += d*', alpha(s_t) -= d*'
    (lines 92-93).  The paper's threshold eta on ||delta|| is not used: the budget decides.

    With Experiment.m's sigma = 8 the support set's Gram matrix becomes numerically
    singular (||delta||^2 ~ 1e-10, then negative), K_t_inver loses all accuracy and the
    run from there on depends on rounding (MATLAB's as much as this oracle's): compare
    round for round only up to the first addition with tiny ||delta||^2, which
    ``model["norm_delta_at_add"]`` ((round, ||delta||^2) per addition) tells."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    B = Budget
    alpha = np.zeros((K, 0))
    SV = []
    size_SV = 0
    K_inv = Kid = None
    nd_add = []                  # (round, ||delta||^2) of every addition after the first
    for t in range(T):
        if size_SV == 0:
            V = np.zeros(K)
        else:
            k_t = _comp_K(X, sigma, t, SV)                       # line 49
            V = alpha @ k_t                                      # line 50
        hat_y, s, _ = _predict(V, y[t])
        if hat_y != y[t]:                                        # line 66
            if alpha.shape[1] == 0:                              # isempty(alpha)
                size_SV += 1
                alpha = np.hstack([alpha, np.zeros((K, 1))])
                alpha[y[t], size_SV - 1] = 1.0
                alpha[s, size_SV - 1] = -1.0
                SV.append(t)
                Kid = _comp_K(X, sigma, t, [t])[0]               # line 74
                K_inv = np.array([[1.0 / Kid]])
            else:
                d_star = K_inv @ k_t                             # line 77
                norm_delta_t = Kid - k_t @ d_star                # line 78
                if size_SV < B:
                    nd_add.append((t, norm_delta_t))
                    size_SV += 1
                    alpha = np.hstack([alpha, np.zeros((K, 1))])
                    alpha[y[t], size_SV - 1] = 1.0
                    alpha[s, size_SV - 1] = -1.0
                    SV.append(t)
                    temp = np.zeros((size_SV, size_SV))          # lines 87-90
                    temp[:size_SV - 1, :size_SV - 1] = K_inv
                    d_til = np.append(d_star, -1.0)
                    K_inv = temp + np.outer(d_til, d_til) / norm_delta_t
                else:
                    alpha[y[t]] = alpha[y[t]] + d_star           # line 92
                    alpha[s] = alpha[s] - d_star                 # line 93
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    return Run(pred, mist, scores, ssz, np.asarray(SV, np.int64), alpha,
               {"K_inv": K_inv, "norm_delta_at_add": np.asarray(nd_add)})


def projectron_pp(X, y, sigma=8.0, Budget=200, n_classes=None, complex_compare="octave"):
    """proplus.m (lines 40-122): a BUDGETED multiclass Projectron++.

    Mistakes as :func:`projectron` (add while |S| < B, project once |S| = B; the mistake
    count and every update wait for the first mistake, lines 66-76).  On a margin error
    (no mistake, l_t > 0, support set not empty; lines 100-110): d* = K_t_inver k_t,
    ||delta||^2 = Kid - k_t'd*, P = k_t'K_t_inver k_t, tau = min(l_t/P, 1),
    beta = tau (2 l_t - tau P - 2 U ||delta||) with U = sqrt((B+1)/log(B+1))/4 (line 37);
    if beta >= 0: alpha(y) += tau d*', alpha(s_t) -= tau d*'.  Margin errors never add.

    When ||delta||^2 < 0 (rounding, once the Gram matrix is numerically singular, which
    Experiment.m's sigma = 8 makes it on dna and satimage) MATLAB's sqrt returns a complex
    number and ``beta_t>=0`` compares: MATLAB, real parts (``complex_compare="matlab"``);
    Octave, moduli, so always true (``"octave"``, the default: the fixtures are Octave's).
    The two differ only when P = k_t'K_t_inver k_t < 0 (tau < 0)."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    B = Budget
    U = (1 / 4) * np.sqrt((B + 1) / np.log(B + 1))               # line 37
    alpha = np.zeros((K, 0))
    SV = []
    size_SV = 0
    K_inv = Kid = None
    nd_add = []                  # (round, ||delta||^2) of every addition after the first
    n_margin_updates = 0
    n_complex = 0
    for t in range(T):
        if size_SV == 0:
            V = np.zeros(K)
        else:
            k_t = _comp_K(X, sigma, t, SV)
            V = alpha @ k_t
        hat_y, s, l_t = _predict(V, y[t])                        # line 64: l_t
        if alpha.shape[1] == 0:                                  # line 66
            if hat_y != y[t]:
                size_SV += 1
                alpha = np.hstack([alpha, np.zeros((K, 1))])
                alpha[y[t], size_SV - 1] = 1.0
                alpha[s, size_SV - 1] = -1.0
                SV.append(t)
                Kid = _comp_K(X, sigma, t, [t])[0]
                K_inv = np.array([[1.0 / Kid]])
        else:
            if hat_y != y[t]:                                    # line 78
                d_star = K_inv @ k_t
                norm_delta_t = Kid - k_t @ d_star
                if size_SV < B:
                    nd_add.append((t, norm_delta_t))
                    size_SV += 1
                    alpha = np.hstack([alpha, np.zeros((K, 1))])
                    alpha[y[t], size_SV - 1] = 1.0
                    alpha[s, size_SV - 1] = -1.0
                    SV.append(t)
                    temp = np.zeros((size_SV, size_SV))
                    temp[:size_SV - 1, :size_SV - 1] = K_inv
                    d_til = np.append(d_star, -1.0)
                    K_inv = temp + np.outer(d_til, d_til) / norm_delta_t
                else:
                    alpha[y[t]] = alpha[y[t]] + d_star
                    alpha[s] = alpha[s] - d_star
            elif l_t > 0:                                        # line 100
                d_star = K_inv @ k_t
                norm_delta_t = Kid - k_t @ d_star
                P = (k_t @ K_inv) @ k_t                          # line 103
                tau_t = min(l_t / P, 1.0)
                # line 105; ||delta||^2 < 0 happens once K_t_inver has lost its accuracy
                # (a numerically singular Gram matrix): sqrt goes complex, and
                # `beta_t>=0` then compares real parts in MATLAB but moduli in Octave.
                beta_t = tau_t * (2 * l_t - tau_t * P
                                  - 2 * U * np.emath.sqrt(norm_delta_t))
                if np.iscomplexobj(beta_t):
                    n_complex += 1
                    ok = (abs(beta_t) >= 0) if complex_compare == "octave" \
                        else (beta_t.real >= 0)
                else:
                    ok = beta_t >= 0
                if ok:                                           # line 106
                    alpha[y[t]] = alpha[y[t]] + tau_t * d_star
                    alpha[s] = alpha[s] - tau_t * d_star
                    n_margin_updates += 1
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    return Run(pred, mist, scores, ssz, np.asarray(SV, np.int64), alpha,
               {"K_inv": K_inv, "U": U, "margin_updates": n_margin_updates,
                "complex_beta": n_complex, "norm_delta_at_add": np.asarray(nd_add)})


def bpas(X, y, C=1.0, sigma=8.0, Budget=200, n_classes=None):
    """BPAs.m (lines 40-111): multiclass Budgeted PA, simple removal (BPA-S of Wang &
    Vucetic 2010), one K-vector of coefficients per support vector.

    Whenever l_t > 0 (line 68): tau = min(C, l_t/2) (the multiclass PA-I step, 2 = the
    squared norm of the update phi(x)(e_y - e_s) for a Gaussian kernel).  While |S| < B the
    round is added with +tau on y, -tau on s_t (lines 69-75).  With B held (lines 77-101):
    for each r = 1..B, the candidate replaces SV r by the new round with the K-vector
    beta = alpha_r k(x_r, x_t) + tau (e_y - e_s) (alpha_r projected on the new point plus
    the PA step); Q_r = ||f - f_r||^2 / 2 + C l(f_r; x_t, y) with
    ||f - f_r||^2 = alpha_r'alpha_r + beta'beta - 2 alpha_r'beta k_rt (line 85) and f_r's
    scores V - alpha_r k_rt + beta (line 87; its loss uses its own best wrong class).
    The first r of smallest Q_r (strict <) is replaced IN PLACE (support order changes)."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    B = Budget
    alpha = np.zeros((K, 0))
    SV = []
    size_SV = 0
    replaced = []
    for t in range(T):
        if size_SV == 0:
            V = np.zeros(K)
        else:
            kt = _comp_K(X, sigma, t, SV[:size_SV])             # line 47
            V = alpha[:, :size_SV] @ kt                          # line 48
        hat_y, s, l_t = _predict(V, y[t])
        if l_t > 0:                                              # line 68
            if len(SV) < B:                                      # line 69
                size_SV += 1
                tau_t = min(C, l_t / 2)
                SV.append(t)
                alpha = np.hstack([alpha, np.zeros((K, 1))])
                alpha[y[t], size_SV - 1] = tau_t
                alpha[s, size_SV - 1] = -tau_t
            else:
                Q_star = np.inf
                tau_t = min(C, l_t / 2)
                star = star_alpha = None
                for r in range(B):                               # lines 79-99
                    k_rt = kt[r]
                    alpha_r = alpha[:, r]
                    beta_t = alpha_r * k_rt
                    beta_t[y[t]] += tau_t
                    beta_t[s] -= tau_t
                    distance_f_rt = (alpha_r @ alpha_r + beta_t @ beta_t
                                     - 2 * (alpha_r @ beta_t) * k_rt)
                    f_rt = V - alpha_r * k_rt + beta_t
                    V_sec_r = np.max(np.delete(f_rt, y[t]))
                    l_rt = max(0.0, 1 - (f_rt[y[t]] - V_sec_r))
                    Q_r = 0.5 * distance_f_rt + C * l_rt
                    if Q_r < Q_star:
                        Q_star, star, star_alpha = Q_r, r, beta_t
                alpha[:, star] = star_alpha                      # line 100
                SV[star] = t                                     # line 101
                replaced.append(star)
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    return Run(pred, mist, scores, ssz, np.asarray(SV, np.int64), alpha,
               {"replaced_positions": np.asarray(replaced)})


def bogd(X, y, eta=0.5, lambda_=1e-5, gamma=np.inf, sigma=8.0, Budget=200,
         n_classes=None):
    """BOGD.m (lines 44-127): multiclass budgeted OGD with OLDEST removal.

    Per-class lists and a FIFO list SV_list.  Every round all coefficients shrink by
    (1 - eta*lambda) (lines 83, 95, 117: on an update before the new entry is written, on
    a no-update round too).  If l_t > 0: while |S| < B the round is added with +eta on y,
    -eta on s_t (lines 79-91); with B held the OLDEST support vector is removed (lines
    94-102; the paper's BOGD removes one uniformly at random and rescales), the round
    added, and every coefficient clipped from above at eta*gamma (line 113; gamma = inf:
    no clipping; negative coefficients are never clipped)."""
    X, y, K, T, pred, mist, scores, ssz = _setup(X, y, n_classes)
    B = Budget
    L = _ClassLists(K)
    krow = _KernelRows(X, sigma)
    SV_list = []
    size_SV = 0
    for t in range(T):
        V = L.scores(krow(t), size_SV)
        hat_y, s, l_t = _predict(V, y[t])
        if l_t > 0:                                              # line 78
            if size_SV < B:
                size_SV += 1
                SV_list.append(t)
                L.scale(1 - eta * lambda_)                       # line 83
                L.append(y[t], t, eta)
                L.append(s, t, -eta)
            else:
                SV_delete = SV_list.pop(0)                       # line 94, 96
                L.scale(1 - lambda_ * eta)                       # line 95
                L.delete(SV_delete)                              # lines 97-102
                SV_list.append(t)
                L.append(y[t], t, eta)
                L.append(s, t, -eta)
                cap = eta * gamma                                # line 113
                for c in range(K):
                    L.alpha[c] = [min(a, cap) for a in L.alpha[c]]
        else:
            L.scale(1 - eta * lambda_)                           # line 117
        pred[t], mist[t], scores[t], ssz[t] = hat_y, hat_y != y[t], V, size_SV
    sv, A = L.matrix(SV_list)
    return Run(pred, mist, scores, ssz, sv, A)


#: MATLAB file name (as in Experiment.m and the fixtures) -> oracle.
LEARNERS = {
    "perceptron": perceptron, "ogd": ogd, "FouGD": fogd, "NyGD": nogd, "RBP": rbp,
    "forgetron": forgetron, "projectron": projectron, "proplus": projectron_pp,
    "BPAs": bpas, "BOGD": bogd,
}
