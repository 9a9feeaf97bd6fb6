"""The moving-target streams of Kivinen, Smola & Williamson (2004), Sec. VI-A, Fig. 2.

"A mixture of two-dimensional Gaussians for the positive examples and another
for negative ones.  We removed all examples that would be misclassified by the
Bayes-optimal classifier [...] or are close to its decision boundary [...].  In
the *drifting* case, there is a relatively small parameter change after every ten
trials.  In the *switching* case, there is a very large parameter change after
every 1000 trials."

The paper gives no numbers beyond these; the choices made here (documented in
``drifting_mixture``) are:

* each class is an equal-weight mixture of ``n_components`` isotropic Gaussians
  ``N(mu, std^2 I)`` in the plane, with means in the box ``[-bound, bound]^2``;
  the two classes are a priori equally likely;
* an example ``(x, y)`` is kept only if the Bayes log-odds of its label is at
  least ``min_log_odds``: ``y log(p(x | +1) / p(x | -1)) >= min_log_odds``
  (posterior of the label ``>= 1 / (1 + exp(-min_log_odds))``), drawn by
  rejection sampling, so the stream is cleanly separable;
* a parameter change moves *every* mean by exactly ``step`` in a uniformly random
  direction (a coordinate that would leave the box is reflected by flipping the
  sign of that coordinate of the step, which keeps its length); the standard
  deviation stays fixed.  ``"drift"`` changes every 10 rounds by
  ``DRIFT_STEP = 0.1``; ``"switch"`` every 1000 rounds by ``SWITCH_STEP = 2.5``
  (five standard deviations, in a box of side 6).  Over the 10,000 default rounds a
  mean travels 999 x 0.1 ~ 100 when drifting and 9 x 2.5 = 22.5 when switching,
  but the sum of the squared changes, which the bounds of Sec. IV charge for
  (``D_2``), is 999 x 0.01 ~ 10 against 9 x 6.25 ~ 56.  (A drift of 0.025, the
  same path length as switching, left the Perceptron with ~10 mistakes in 10,000
  rounds: too easy to tell the algorithms apart.)
"""
from __future__ import annotations

import numpy as np

from okl._validation import check_choice, check_int, check_real, check_seed

__all__ = ["drifting_mixture", "bayes_log_odds", "DRIFT_STEP", "SWITCH_STEP",
           "DRIFT_PERIOD", "SWITCH_PERIOD"]

DRIFT_PERIOD = 10
DRIFT_STEP = 0.1
SWITCH_PERIOD = 1000
SWITCH_STEP = 2.5

_SCHEDULES = {"drift": (DRIFT_PERIOD, DRIFT_STEP), "switch": (SWITCH_PERIOD, SWITCH_STEP)}


def _log_mixture(X, means, std):
    """``log p(x)`` of the equal-weight mixture of ``N(means[j], std^2 I)``, per row."""
    d2 = ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)  # (n, m)
    z = -d2 / (2.0 * std ** 2)
    zmax = z.max(axis=1, keepdims=True)
    return (zmax[:, 0] + np.log(np.exp(z - zmax).sum(axis=1)) - np.log(means.shape[0])
            - np.log(2.0 * np.pi * std ** 2))


def bayes_log_odds(X, pos_means, neg_means, std):
    """``log p(x | +1) - log p(x | -1)`` for equally likely classes (the Bayes rule's score).

    ``pos_means``/``neg_means`` are ``(m, 2)`` (one parameter setting) or
    ``(n, m, 2)`` (one setting per row of ``X``, as returned in the parameter path).
    """
    X = np.asarray(X, dtype=float)
    pos_means = np.asarray(pos_means, dtype=float)
    neg_means = np.asarray(neg_means, dtype=float)
    if pos_means.ndim == 2:
        return _log_mixture(X, pos_means, std) - _log_mixture(X, neg_means, std)
    out = np.empty(X.shape[0])
    # rows sharing a parameter setting are evaluated together
    change = np.flatnonzero(np.any(pos_means[1:] != pos_means[:-1], axis=(1, 2))
                            | np.any(neg_means[1:] != neg_means[:-1], axis=(1, 2))) + 1
    bounds = np.r_[0, change, X.shape[0]]
    for a, b in zip(bounds[:-1], bounds[1:]):
        out[a:b] = (_log_mixture(X[a:b], pos_means[a], std)
                    - _log_mixture(X[a:b], neg_means[a], std))
    return out


def _move(means, step, bound, rng):
    """Move every mean by exactly ``step`` in a random direction, reflected into the box."""
    theta = rng.uniform(0.0, 2.0 * np.pi, size=means.shape[:-1])
    delta = step * np.stack([np.cos(theta), np.sin(theta)], axis=-1)
    out = means + delta
    outside = np.abs(out) > bound
    # |delta_i| <= step <= bound and |mean_i| <= bound, so means - delta is inside
    out[outside] = means[outside] - delta[outside]
    return out


def _sample(n, pos, neg, std, min_log_odds, rng, max_draws):
    """``n`` examples of one parameter setting, rejection-sampled to the Bayes margin."""
    m = pos.shape[0]
    X = np.empty((n, 2))
    y = np.empty(n)
    got = draws = 0
    while got < n:
        batch = 2 * (n - got) + 16
        draws += batch
        if draws > max_draws:
            raise RuntimeError(
                f"rejection sampling kept {got} of {draws} draws: the classes overlap too "
                f"much for min_log_odds={min_log_odds}")
        lab = np.where(rng.random(batch) < 0.5, 1.0, -1.0)
        comp = rng.integers(0, m, size=batch)
        centers = np.where(lab[:, None] > 0, pos[comp], neg[comp])
        cand = centers + std * rng.standard_normal((batch, 2))
        keep = lab * bayes_log_odds(cand, pos, neg, std) >= min_log_odds
        take = min(int(keep.sum()), n - got)
        X[got:got + take] = cand[keep][:take]
        y[got:got + take] = lab[keep][:take]
        got += take
    return X, y


def drifting_mixture(n_rounds: int = 10_000, schedule: str = "drift", *, seed=0,
                     n_components: int = 2, std: float = 0.5, bound: float = 3.0,
                     period: int | None = None, step: float | None = None,
                     min_log_odds: float = 2.0, return_params: bool = False):
    """The drifting or switching Gaussian-mixture stream of Fig. 2 (Sec. VI-A).

    Parameters
    ----------
    n_rounds : int, default 10,000
    schedule : {"drift", "switch"}
        ``"drift"``: a small change (``step = DRIFT_STEP = 0.1``) every
        ``DRIFT_PERIOD = 10`` rounds; ``"switch"``: a large one
        (``SWITCH_STEP = 2.5``) every ``SWITCH_PERIOD = 1000`` rounds.
    seed : int, Generator or None
        Everything (initial means, moves, examples) comes from
        ``numpy.random.default_rng(seed)``.
    n_components : int, default 2
        Gaussians per class.
    std : float, default 0.5
        Standard deviation of every Gaussian (isotropic).
    bound : float, default 3.0
        Means live in ``[-bound, bound]^2`` (initially uniform there).
    period, step : optional
        Override the schedule's period (rounds between changes) and step (the
        distance every mean moves at a change, ``0 <= step <= bound``).
    min_log_odds : float, default 2.0
        Keep ``(x, y)`` iff ``y (log p(x | +1) - log p(x | -1)) >= min_log_odds``:
        examples the Bayes-optimal classifier gets wrong or nearly wrong are removed.
    return_params : bool, default False
        Also return the parameter path.

    Returns
    -------
    X : (n_rounds, 2) array
    y : (n_rounds,) array of -1.0 / +1.0
    params : dict, only with ``return_params``
        ``pos_means``, ``neg_means``: ``(n_rounds, n_components, 2)``, the means in
        force at each round; ``change_rounds``: the 0-based rounds at which new
        parameters take effect (``period, 2 period, ...``); ``std``,
        ``min_log_odds``, ``period``, ``step``, ``bound``, ``schedule``.
    """
    n_rounds = check_int(n_rounds, "n_rounds", low=1)
    schedule = check_choice(schedule, "schedule", _SCHEDULES)
    default_period, default_step = _SCHEDULES[schedule]
    n_components = check_int(n_components, "n_components", low=1)
    std = check_real(std, "std", low=0, low_open=True)
    bound = check_real(bound, "bound", low=0, low_open=True)
    period = default_period if period is None else check_int(period, "period", low=1)
    step = default_step if step is None else check_real(step, "step", low=0)
    if step > bound:
        raise ValueError(f"step must be <= bound (the reflection keeps means in the box), "
                         f"got step={step}, bound={bound}")
    min_log_odds = check_real(min_log_odds, "min_log_odds", low=0)
    rng = np.random.default_rng(check_seed(seed))

    pos = rng.uniform(-bound, bound, size=(n_components, 2))
    neg = rng.uniform(-bound, bound, size=(n_components, 2))
    X = np.empty((n_rounds, 2))
    y = np.empty(n_rounds)
    pos_path = np.empty((n_rounds, n_components, 2))
    neg_path = np.empty((n_rounds, n_components, 2))
    change_rounds = np.arange(period, n_rounds, period)
    max_draws = 10_000 * (period + 16)
    for start in range(0, n_rounds, period):
        if start > 0:
            pos = _move(pos, step, bound, rng)
            neg = _move(neg, step, bound, rng)
        end = min(start + period, n_rounds)
        X[start:end], y[start:end] = _sample(end - start, pos, neg, std, min_log_odds, rng,
                                             max_draws)
        pos_path[start:end] = pos
        neg_path[start:end] = neg
    if not return_params:
        return X, y
    params = dict(pos_means=pos_path, neg_means=neg_path, change_rounds=change_rounds,
                  std=std, min_log_odds=min_log_odds, period=period, step=step, bound=bound,
                  schedule=schedule)
    return X, y, params
