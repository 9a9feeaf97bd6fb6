r"""KORS, Kernel-Online-Row-Sampling (Calandriello, Lazaric & Valko, *Efficient
second-order online kernel learning with adaptive embedding*, NeurIPS 2017), the
dictionary shared by three okl learners:

* ``PKAWV(basis="nystrom")`` (Jézéquel, Gaillard & Rudi 2019, Section 3.2,
  Proposition 5, Appendix H Algorithm 2; ``okl.learners.awv_nystrom``);
* :class:`~okl.learners.kons.ProsNKONS` (restarts whenever KORS adds a point);
* :class:`~okl.learners.kons.SketchedKONS` uses the same weighted ridge factor
  (:class:`RidgeLeverage`) for its sketched Newton matrix.

The typed core is ``okl.learners._kors`` (``cimport``-able: ``_kors.pxd``); this module
is its Python surface and a standalone sampler, :func:`kors_dictionary`.

Round ``t``, with the dictionary ``I_{t-1}`` and its weights ``w_j`` (``S = diag(w)``):

.. math::

    \tilde\tau_t = \frac{1+\varepsilon}{\mu}\Big(k_{tt} - \bar k^\top
        (\bar S \bar K \bar S + \mu I)^{-1} \bar k\Big)
      = (1+\varepsilon)\,\frac{r_t}{r_t + \mu}, \qquad
    r_t = k_{tt} - k^\top S (S K_{II} S + \mu I)^{-1} S k,

(the temporary dictionary ``I_{t-1} + (t, weight 1)``; the two forms agree by block
inversion), ``p_t = min(beta tau_t, 1)``, ``z_t = [u_t < p_t]`` and, if ``z_t = 1``,
``x_t`` joins with weight ``p_t^{-1/2}`` (KORS' selection matrix, ``E[S S^T] = I``).
The code of Jézéquel et al. (App. H.2; its ``KORS`` function also drives their
Pros-N-KONS) uses the weight ``1/p_t``: ``weights="inverse"`` here.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from okl._core import SupportSet
from okl._validation import as_stream, check_choice, check_real, check_seed
from okl.kernels import check_kernel
from okl.learners._kors import KORS, RidgeLeverage, kors_stream

__all__ = ["KORS", "RidgeLeverage", "KORSDictionary", "kors_dictionary", "WEIGHT_POWERS"]

#: ``weights`` choice -> exponent ``a`` of the weight ``p^{-a}`` of a joining point
WEIGHT_POWERS = {"sqrt": 0.5, "inverse": 1.0}


class KORSDictionary(NamedTuple):
    """What :func:`kors_dictionary` returns."""

    #: 0-based rounds of the dictionary points, in order of arrival
    indices: np.ndarray
    #: their weights ``p^{-1/2}`` (or ``1/p``)
    weights: np.ndarray
    #: ``p_t`` of every round
    probabilities: np.ndarray
    #: lower ``L`` with ``L L^T = S K_II S + mu I``
    factor: np.ndarray


def kors_dictionary(X, kernel=None, *, mu=1.0, beta=1.0, eps=0.5, weights="sqrt",
                    seed=None, uniforms=None) -> KORSDictionary:
    """Run KORS once over the rows of ``X`` (dense or CSR) from an empty dictionary.

    Parameters
    ----------
    X : array_like or sparse matrix, shape (T, d)
        The stream.
    kernel : okl kernel, default ``Gaussian(1.0)``
    mu : float > 0, default 1.0
        KORS regularization (the ``gamma`` of Calandriello et al.; Jézéquel et al.'s
        experiments use 1).
    beta : float > 0 or inf, default 1.0
        Oversampling, ``p_t = min(beta tau_t, 1)``.
    eps : float in (0, 1), default 0.5
        Accuracy.
    weights : {"sqrt", "inverse"}, default "sqrt"
        Weight of a joining point: ``p^{-1/2}`` (KORS) or ``1/p`` (the code of
        Jézéquel et al.).
    seed : int, Generator or None
        Draws ``u_t = Generator.random()`` (one per round) unless ``uniforms`` is given.
    uniforms : array_like, shape (T,), optional
        The draws ``u_t`` in [0, 1) to use instead.

    Returns
    -------
    KORSDictionary
    """
    kernel = check_kernel(kernel)
    mu = check_real(mu, "mu", low=0, low_open=True)
    beta = check_real(beta, "beta", low=0, low_open=True, allow_inf=True)
    eps = check_real(eps, "eps", low=0, high=1, low_open=True, high_open=True)
    power = WEIGHT_POWERS[check_choice(weights, "weights", WEIGHT_POWERS)]
    stream = as_stream(X)
    if uniforms is None:
        u = np.random.default_rng(check_seed(seed)).random(stream.T)
    else:
        u = np.ascontiguousarray(uniforms, dtype=np.float64).reshape(-1)
        if u.shape[0] != stream.T or not np.all((u >= 0) & (u < 1)):
            raise ValueError(f"uniforms must be {stream.T} numbers in [0, 1)")
    kors = KORS(mu, beta, eps, power, 64)
    sv = SupportSet(kernel, stream.d, 64, True)
    p, joined = kors_stream(kors, sv, stream, u)
    return KORSDictionary(indices=np.flatnonzero(joined), weights=kors.weights,
                          probabilities=p, factor=kors.factor)
