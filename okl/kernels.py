"""Kernel specifications.

A kernel spec is a small immutable value: its parameters, ``k(x, x)``'s
supremum (the ``D`` / ``X^2`` of the bounds), and a Gram-matrix routine that
goes through the same typed kernel rows the learners use.  The Gaussian
kernel keeps the papers' parametrization ``exp(-||x - v||^2 / (2 sigma^2))``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Kernel", "Gaussian", "Polynomial", "Linear", "Laplacian", "check_kernel",
           "check_kernels", "gaussian_family", "KERNELS", "make_kernel", "parse_kernel_param"]

#: the kernels by the names the command line and sweeps use: name -> (class name, the
#: parameters a grid may set).  This module loads no NumPy (``okl --help`` reads it).
KERNELS = {
    "gaussian": ("Gaussian", ("sigma",)),
    "laplacian": ("Laplacian", ("sigma",)),
    "polynomial": ("Polynomial", ("degree", "gamma", "coef0")),
    "linear": ("Linear", ()),
}


def check_real(*args, **kwargs):
    from okl._validation import check_real as check      # NumPy only when a kernel is made

    return check(*args, **kwargs)


def check_int(*args, **kwargs):
    from okl._validation import check_int as check

    return check(*args, **kwargs)


def _check_typed(compute, name: str, value, what: str, nonzero: bool = True) -> None:
    """The number the typed kernel computes from parameter ``name`` (``compute()``, the
    expression of ``kernel_params``, described by ``what``) must be finite (and non-zero
    if ``nonzero``): a Gaussian width whose square underflows divides by zero, a tiny one
    gives an infinite ``gamma`` (``exp(-inf * 0)`` is NaN on the diagonal), a huge one
    overflows or leaves ``gamma = 0``.  A ``ValueError`` naming the parameter, raised
    when the kernel is made."""
    try:
        out = compute()
        problem = (None if math.isfinite(out) and (out != 0 or not nonzero)
                   else f"is {out!r}")
    except ZeroDivisionError:
        problem = "divides by zero"
    except OverflowError:
        problem = "overflows in its computation"
    if problem is not None:
        raise ValueError(f"{name}={value!r} is outside what the kernel can compute in double "
                         f"precision: {what} {problem} (it must be finite"
                         f"{' and non-zero' if nonzero else ''})")


def make_kernel(name: str = "gaussian", **params) -> "Kernel":
    """An okl kernel from its name and parameters (``make_kernel("gaussian", sigma=2)``)."""
    key = str(name).lower()
    if key not in KERNELS:
        raise ValueError(f"unknown kernel {name!r}; kernels: {sorted(KERNELS)}")
    cls_name, names = KERNELS[key]
    extra = sorted(set(params) - set(names))
    if extra:
        raise ValueError(f"kernel {key!r} takes {list(names)}, not {extra}")
    return globals()[cls_name](**params)


def parse_kernel_param(name: str, text: str):
    """The value of a kernel parameter given as text on the command line (``degree`` is
    an integer, the others reals); ``ValueError`` naming it otherwise."""
    kind = int if name == "degree" else float
    try:
        return kind(text)
    except ValueError:
        what = "an integer" if kind is int else "a real number"
        raise ValueError(f"the kernel's {name} must be {what}, got {text!r}") from None



class Kernel:
    """Base class of kernel specs."""

    def kernel_params(self) -> tuple[str, float, float, int]:
        """``(kind, gamma, coef0, degree)`` as read by ``okl._core``: the kind by its name
        (``"gaussian"``, ...), which ``okl._kernels`` maps to its typed code (the one
        place the codes are written)."""
        raise NotImplementedError

    @property
    def sup_diag(self) -> float:
        """``sup_x k(x, x)``; ``math.inf`` when unbounded on R^d."""
        raise NotImplementedError

    def __call__(self, X, Y=None):
        """Gram matrix ``[k(x, y)]`` for rows of ``X`` and ``Y`` (dense or CSR)."""
        from okl._core import kernel_matrix

        return kernel_matrix(self, X, X if Y is None else Y)


@dataclass(frozen=True)
class Gaussian(Kernel):
    """Gaussian kernel ``k(x, v) = exp(-||x - v||^2 / (2 sigma^2))``; ``sup k(x,x) = 1``."""

    sigma: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_real(self.sigma, "sigma", low=0, low_open=True))
        _check_typed(lambda: self.kernel_params()[1], "sigma", self.sigma, "1 / (2 sigma^2)")

    def kernel_params(self):
        return ("gaussian", 1.0 / (2.0 * self.sigma ** 2), 0.0, 0)

    @property
    def sup_diag(self):
        return 1.0


@dataclass(frozen=True)
class Laplacian(Kernel):
    """Laplacian kernel ``k(x, v) = exp(-||x - v||_1 / sigma)``; ``sup k(x,x) = 1``.

    The L1 distance follows scikit-learn's ``laplacian_kernel`` with
    ``gamma = 1 / sigma``.
    """

    sigma: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_real(self.sigma, "sigma", low=0, low_open=True))
        _check_typed(lambda: self.kernel_params()[1], "sigma", self.sigma, "1 / sigma")

    def kernel_params(self):
        return ("laplacian", 1.0 / self.sigma, 0.0, 0)

    @property
    def sup_diag(self):
        return 1.0


@dataclass(frozen=True)
class Polynomial(Kernel):
    """Polynomial kernel ``k(x, v) = (gamma <x, v> + coef0)^degree``; unbounded on R^d."""

    degree: int = 2
    gamma: float = 1.0
    coef0: float = 1.0

    def __post_init__(self):
        # degree: a C int in the typed kernel
        object.__setattr__(self, "degree", check_int(self.degree, "degree", low=1,
                                                     high=2**31 - 1))
        object.__setattr__(self, "gamma", check_real(self.gamma, "gamma", low=0, low_open=True))
        object.__setattr__(self, "coef0", check_real(self.coef0, "coef0", low=0))
        if self.coef0 > 0:      # k(0, 0) = coef0^degree, whatever the data
            _check_typed(lambda: self.coef0 ** self.degree, "coef0", self.coef0,
                         f"k(0, 0) = coef0^degree (degree={self.degree})", nonzero=False)

    def kernel_params(self):
        return ("polynomial", self.gamma, self.coef0, self.degree)

    @property
    def sup_diag(self):
        return math.inf


@dataclass(frozen=True)
class Linear(Kernel):
    """Linear kernel ``k(x, v) = <x, v>``; unbounded on R^d."""

    def kernel_params(self):
        return ("linear", 1.0, 0.0, 1)

    @property
    def sup_diag(self):
        return math.inf


def check_kernel(kernel, name: str = "kernel") -> Kernel:
    """``Gaussian(1.0)`` for ``None``; otherwise the spec itself, checked."""
    if kernel is None:
        return Gaussian(1.0)
    if not isinstance(kernel, Kernel):
        raise ValueError(f"{name} must be an okl kernel (Gaussian, Polynomial, Linear, "
                         f"Laplacian), got {kernel!r}")
    return kernel


def gaussian_family(exponents=range(-4, 5)) -> list:
    """Gaussian kernels with ``sigma = 2^i`` for ``i`` in ``exponents``: by default the
    9 kernels, ``sigma`` in ``2^{-4}, ..., 2^4``, of the kernel selection experiments
    (Li & Liao, Sec. 5.1)."""
    return [Gaussian(2.0 ** i) for i in exponents]


def check_kernels(kernels, name: str = "kernels", *, gaussian: bool = False,
                  bounded: bool = False, why: str = ""):
    """The kernel list of a multi-kernel learner, checked.

    ``None`` gives :func:`gaussian_family`.  A list or tuple comes back as the same
    object (scikit-learn's ``clone`` checks that a parameter is stored as passed);
    another iterable is read into a list.  Each entry must be an okl kernel -- a
    ``Gaussian`` when ``gaussian`` (``why`` says why in the message) -- and, when
    ``bounded``, with a finite ``sup_x k(x, x)`` (Assumption 1 of the selection
    paper: ``k(x, x) <= D_i``).
    """
    if kernels is None:
        return gaussian_family()
    if not isinstance(kernels, (list, tuple)):
        if isinstance(kernels, (str, bytes)):
            raise ValueError(f"{name} must be a non-empty list of okl kernels, got {kernels!r}")
        try:
            kernels = list(kernels)
        except TypeError:
            raise ValueError(f"{name} must be a non-empty list of okl kernels, got "
                             f"{kernels!r}") from None
    if not kernels:
        raise ValueError(f"{name} must be a non-empty list of okl kernels, got []")
    for i, k in enumerate(kernels):
        if gaussian and not isinstance(k, Gaussian):
            kind = type(k).__name__ if isinstance(k, Kernel) else repr(k)
            raise ValueError(f"{name}[{i}] must be an okl.Gaussian kernel{why}, got {kind}")
        if not isinstance(k, Kernel):
            raise ValueError(f"{name}[{i}] must be an okl kernel, got {k!r}")
        if bounded and not math.isfinite(k.sup_diag):
            raise ValueError(f"{name}[{i}] must be bounded (k(x, x) <= D), got {k!r} with "
                             f"sup k(x, x) = inf")
    return kernels
