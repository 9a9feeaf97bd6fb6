r"""Streams whose Gram matrix has a prescribed, exactly known spectrum.

Theorem 1 of Li & Liao (AAAI 2023) bounds the ALD budget by how fast the
eigenvalues :math:`\lambda_1 \ge \dots \ge \lambda_T` of the Gram matrix
:math:`K_T` decay: exponentially, :math:`\lambda_i \le R_0 r^i`, or
polynomially, :math:`\lambda_i \le R_0 i^{-p}`.  To check it (and the regret
bounds that rest on it) the decay must be *known*, not estimated.

Construction (the Mercer expansion of a shift-invariant kernel on the circle,
sampled where its eigenfunctions are exactly orthogonal).  Take the periodic
kernel

.. math::

    \kappa(u, u') = \sum_{j=1}^{J} s_j^2 \cos(2\pi j (u - u'))
    = \langle \phi(u), \phi(u') \rangle, \qquad
    \phi(u) = (s_j\cos 2\pi j u,\; s_j \sin 2\pi j u)_{j=1}^J \in \mathbb R^{2J},

and the ``T`` grid points :math:`u_k = k/T`, ``k = 0..T-1``, visited in a random
order.  The stream's inputs are the explicit features :math:`x_t = \phi(u_t)`
and the kernel is ``okl.Linear()``, so every learner sees exactly this kernel.
For frequencies :math:`1 \le j < T/2` the columns :math:`(\cos 2\pi j u_k)_k`
and :math:`(\sin 2\pi j u_k)_k` are orthogonal with squared norm :math:`T/2`
(discrete orthogonality of the Fourier basis), so the eigenvalues of
:math:`K_T = XX^\top` are exactly :math:`Ts_j^2/2`, each twice, and 0
(multiplicity :math:`T - 2J`).  With ``d = 2J`` features the prescribed
normalized eigenvalues :math:`\mu_i = \lambda_i / T` (``i = 1..d``) are

* ``decay="exponential"``: :math:`\mu_{2j-1} = \mu_{2j} = c\,r^{2j}`, hence
  :math:`\lambda_i \le R_0 r^i` with :math:`R_0 = cT` for every ``i`` (equality
  at even ``i``);
* ``decay="polynomial"``: :math:`\mu_{2j-1} = \mu_{2j} = c\,(2j)^{-p}`, hence
  :math:`\lambda_i \le R_0 i^{-p}` with :math:`R_0 = cT` (equality at even ``i``);

with :math:`c` chosen so that :math:`\sum_i \mu_i = 1`, i.e.
:math:`\kappa(x_t, x_t) = \sum_j s_j^2 = 1` on every round: the stream has
:math:`D = A = 1` (the bounds' :math:`\sup\kappa(x,x)` and the lower bound on
the diagonal; the off-diagonal values lie in ``[-1, 1]``).  :math:`R_0 = cT =
\Theta(T)`, as the paper's remark after Theorem 1 says it must be.  (Pairs of
equal eigenvalues make the spectrum a staircase; a least-squares fit of
:math:`\log\lambda_i` against ``i`` or :math:`\log i` recovers ``r`` or ``p``
up to a relative bias of order :math:`1/d^2`.)

Labels: :math:`y_t = \mathrm{sign}\cos(2\pi(u_t - \varphi))` with a random
phase :math:`\varphi` (the circle cut in two halves), then a fraction ``flip``
of them flipped.  The target :math:`\cos(2\pi(u - \varphi)) = \langle w, \phi(u)\rangle`
with :math:`w = (\cos\varphi, \sin\varphi, 0, \dots)/s_1` lies in the RKHS with
norm :math:`1/s_1`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from okl._validation import check_choice, check_int, check_real, check_seed
from okl.kernels import Linear

__all__ = ["SpectralStream", "spectral_stream", "prescribed_spectrum"]


@dataclass(frozen=True, eq=False)
class SpectralStream:
    """A stream with a known Gram spectrum (see :mod:`okl.datasets.spectral`).

    Attributes
    ----------
    X : ndarray, shape (T, d)
        Inputs (the features :math:`\\phi(u_t)`).
    y : ndarray, shape (T,)
        Labels in {-1, +1}.
    kernel : okl.Linear
        The kernel to learn with; :math:`\\kappa(x_t, x_t) = 1` on every round.
    eigenvalues : ndarray, shape (T,)
        The exact eigenvalues of the Gram matrix ``X @ X.T``, decreasing.
    decay : str
        ``"exponential"`` or ``"polynomial"``.
    rate : float
        ``r`` (exponential) or ``p`` (polynomial).
    R0 : float
        Envelope constant: ``eigenvalues[i-1] <= R0 * r**i`` (resp. ``R0 * i**-p``)
        for every ``i = 1..T``, with equality at even ``i <= d``.
    u : ndarray, shape (T,)
        Grid positions :math:`u_t \\in [0, 1)` of the rounds.
    phase : float
        :math:`\\varphi` of the labelling rule.
    D : float
        :math:`\\sup_t \\kappa(x_t, x_t) = 1`.
    """

    X: np.ndarray
    y: np.ndarray
    kernel: Linear
    eigenvalues: np.ndarray
    decay: str
    rate: float
    R0: float
    u: np.ndarray
    phase: float
    D: float = 1.0

    @property
    def T(self) -> int:
        return int(self.X.shape[0])

    def envelope(self, i):
        """``R0 r^i`` or ``R0 i^-p`` at the 1-based indices ``i``."""
        i = np.asarray(i, dtype=float)
        if self.decay == "exponential":
            return self.R0 * np.power(self.rate, i)
        return self.R0 * np.power(i, -self.rate)


def _check(T, decay, r, p, d):
    T = check_int(T, "T", low=4)
    decay = check_choice(decay, "decay", {"exponential", "polynomial"})
    r = check_real(r, "r", low=0, high=1, low_open=True, high_open=True)
    p = check_real(p, "p", low=1)
    d = check_int(d, "d", low=2)
    if d % 2:
        raise ValueError(f"d must be even (features come in cos/sin pairs), got {d}")
    if d // 2 >= T / 2:
        raise ValueError(f"d must be < T (the d/2 frequencies must lie below T/2 for the "
                         f"exact orthogonality on the grid), got d={d}, T={T}")
    return T, decay, r, p, d


def prescribed_spectrum(T, decay="exponential", *, r=0.5, p=2.0, d=32):
    r"""The normalized eigenvalues :math:`\mu_i = \lambda_i / T` (length ``d``) and :math:`c`.

    See the module docstring: :math:`\mu_{2j-1} = \mu_{2j} = c\,r^{2j}` or
    :math:`c\,(2j)^{-p}`, ``j = 1..d/2``, normalized to sum to 1.

    Returns
    -------
    mu : ndarray, shape (d,)
        Decreasing, summing to 1.
    c : float
        The normalizing constant (:math:`R_0 = cT`).
    """
    T, decay, r, p, d = _check(T, decay, r, p, d)
    even = 2.0 * np.arange(1, d // 2 + 1)
    w = r ** even if decay == "exponential" else even ** (-p)
    c = 1.0 / (2.0 * w.sum())
    return np.repeat(c * w, 2), float(c)


def spectral_stream(T, decay="exponential", *, r=0.5, p=2.0, d=32, flip=0.0, seed=0):
    r"""A binary stream whose Gram matrix (linear kernel) has a prescribed spectrum.

    Parameters
    ----------
    T : int
        Number of rounds, ``>= 4``.
    decay : {"exponential", "polynomial"}, default "exponential"
        Decay of the eigenvalues (Theorem 1's two cases).
    r : float in (0, 1), default 0.5
        Ratio of the exponential decay, :math:`\lambda_i \le R_0 r^i`.
    p : float >= 1, default 2.0
        Exponent of the polynomial decay, :math:`\lambda_i \le R_0 i^{-p}`.
    d : int, default 32
        Number of features (even, ``< T``): the Gram matrix has rank ``d``.
    flip : float in [0, 1), default 0.0
        Fraction of labels flipped (each label independently with this probability).
    seed : int, Generator or None
        Seed of the order of the grid points, the phase and the flips.

    Returns
    -------
    SpectralStream
        ``X``, ``y``, ``kernel`` (``okl.Linear()``), the exact ``eigenvalues``,
        ``R0`` and ``rate`` of the envelope, and the construction's ``u``, ``phase``.

    Raises
    ------
    ValueError
        If a parameter is outside its range (named in the message).
    """
    T, decay, r, p, d = _check(T, decay, r, p, d)
    flip = check_real(flip, "flip", low=0, high=1, high_open=True)
    rng = np.random.default_rng(check_seed(seed))
    mu, c = prescribed_spectrum(T, decay, r=r, p=p, d=d)
    s = np.sqrt(2.0 * mu[::2])                        # s_j^2 = 2 mu_{2j}
    u = rng.permutation(T) / T
    angle = 2.0 * np.pi * np.outer(u, np.arange(1, d // 2 + 1))
    X = np.empty((T, d))
    X[:, 0::2] = s * np.cos(angle)
    X[:, 1::2] = s * np.sin(angle)
    phase = float(rng.uniform(0.0, 1.0))
    y = np.where(np.cos(2.0 * np.pi * (u - phase)) >= 0.0, 1.0, -1.0)
    if flip > 0:
        y[rng.random(T) < flip] *= -1.0
    eig = np.zeros(T)
    eig[:d] = T * mu
    return SpectralStream(X=X, y=y, kernel=Linear(), eigenvalues=eig,
                          decay=decay, rate=r if decay == "exponential" else p,
                          R0=float(c * T), u=u, phase=phase)
