"""Kernel polarization and kernel alignment (Li & Liao, AAAI 2023)."""
import numpy as np

from . import _validation as v

__all__ = ["kernel_polarization", "kernel_alignment"]


def kernel_polarization(K, y):
    r"""Kernel polarization :math:`Y_T^\top K_T Y_T` (Baram 2005).

    Named in Li & Liao, *Improved Kernel Alignment Regret Bound for Online
    Kernel Learning* (AAAI 2023), Section "Problem setting", the remark after
    the definition of :math:`A_T`.

    Parameters
    ----------
    K : array_like, shape (T, T)
        Symmetric kernel matrix :math:`K_T = (\kappa(x_s, x_t))_{s,t}`.
    y : array_like, shape (T,)
        Labels in {-1, +1}.

    Returns
    -------
    float
        :math:`\sum_{s,t} y_s y_t \kappa(x_s, x_t)`; it lies in
        ``[0, T * lambda_max(K)]`` for a PSD ``K``.

    Raises
    ------
    ValueError
        If ``K`` is not square, not symmetric or not finite, or if ``y`` does
        not have length ``T`` or has entries other than -1 and +1.
    """
    K = v.kernel_matrix(K)
    y = v.labels(y, K.shape[0], binary=True)
    return float(y @ K @ y)


def kernel_alignment(K, y):
    r"""Kernel alignment :math:`A_T` of Li & Liao (AAAI 2023).

    Defined in the display after "defined as follows" (Section "Problem
    setting", after Liao & Li 2021):

    .. math:: A_T = \sum_{t=1}^T \kappa(x_t, x_t) - \frac{1}{T} Y_T^\top K_T Y_T .

    The paper says the ideal kernel :math:`K_T = Y_T Y_T^\top` gives
    :math:`A_T = \Theta(1)`; with this exact formula it gives
    :math:`A_T = T - T^2 / T = 0`.  For ``K = I``, :math:`A_T = T - 1`.
    For a PSD ``K`` and labels in {-1, +1},
    :math:`\operatorname{tr} K - \lambda_{\max}(K) \le A_T \le \operatorname{tr} K`
    (because :math:`0 \le Y^\top K Y \le T \lambda_{\max}`), so in particular
    :math:`A_T \ge 0`.

    Parameters
    ----------
    K : array_like, shape (T, T)
        Symmetric kernel matrix.
    y : array_like, shape (T,)
        Labels in {-1, +1}.

    Returns
    -------
    float
        :math:`A_T`.

    Raises
    ------
    ValueError
        As for :func:`kernel_polarization`.
    """
    K = v.kernel_matrix(K)
    y = v.labels(y, K.shape[0], binary=True)
    T = K.shape[0]
    a = float(np.trace(K) - (y @ K @ y) / T)
    # round-off of y^T K y (T^2 terms, divided by T) can take an A_T of about 0 just below
    # it (-4.4e-16 at T = 3); within that error it is returned as 0, which the bounds taking
    # A_T >= 0 accept.  A larger negative value (K not PSD) is returned as computed.
    if 0.0 > a >= -4.0 * T * np.finfo(float).eps * float(np.max(np.abs(K), initial=0.0)):
        return 0.0
    return a
