"""Theory side of okl: data-dependent quantities and best comparators.

Depends only on numpy and scipy.  Sources (see each docstring for the exact
equation): Li & Liao, AAAI 2023 (kernel alignment, polarization, Theorem 1
spectrum decay; POMDR's bounds: ``theory.pomdr``); Jezequel, Gaillard & Rudi, 2019
(effective dimension, log-determinant term, kernel ridge comparator; Kernel-AWV and
PKAWV: ``theory.awv``; KONS beside them: ``theory.kons``); Kivinen, Smola & Williamson,
IEEE TSP 2004 (NORMA: ``theory.norma``, including the tuning function ``h`` of (30));
Liao, Li, Liao, Hu & Dang, AAAI 2024 (Perceptron, AVP, Ahpatron and the quoted
budgeted baselines: ``theory.ahpatron``); the kernel-selection paper of Li & Liao
(LKMBooks, PFMBooks, BATBooks: ``theory.selection``, their experts ``theory.experts``);
the multiclass learners' bounds (``theory.multiclass``).

What the package exports is read from its modules, not written here a second time:
every public module of ``theory`` is imported, and every name of a module's
``__all__`` is exported flat (``theory.kernel_alignment``) unless
:data:`KEPT_IN_MODULE` keeps it behind its module's name
(``theory.awv.theorem3_bound``) and says why.  A name two modules export for two
different objects must be kept there: importing ``theory`` fails until it is.
``__all__`` is the modules that keep some of their names, then the flat names.
"""
import importlib as _importlib
import pkgutil as _pkgutil

#: What stays behind its module's name instead of being exported flat, and why.  A key
#: ``"module"`` keeps every name of that module, ``"module.name"`` one name.
KEPT_IN_MODULE = {
    # -- whole modules -------------------------------------------------------------------
    "awv": "Jezequel, Gaillard & Rudi's statements are named by their numbers "
           "(theorem3_bound, theorem9_bound, proposition1_bound, corollary7): its "
           "theorem3_bound collides with theory.pomdr's, and a flat number would not say "
           "whose theorem it is",
    "kons": "KONS, Sketched-KONS and Pros-N-KONS beside the comparison of Jezequel, Gaillard "
            "& Rudi's eq. (8) and Table 1: eq8_regret, table1_exponents, max_eta and "
            "round_cost say which paper only through their module",
    "multiclass": "its projectron_mistake_bound and projectronpp_mistake_bound (the "
                  "multiclass Projectron's) collide with theory.ahpatron's (the binary ones)",
    "selection": "the kernel-selection paper of Li & Liao, named by its algorithms and "
                 "its own terms (sampling_rate, budget_tail, memory_lower_bound, "
                 "time_lower_bound) that say which paper only through their module",
    "norma_baselines": "other algorithms' bounds as they stand beside NORMA: read through "
                       "the paper they are the baselines of",
    "pomdr_baselines": "SkeGD's, B(AO)2KS's and FOGD's bounds as Li & Liao (AAAI 2023) "
                       "state them: read through the paper that quotes them",
    "selection_baselines": "OKS's, BOKS's, ISKA's and BOMKR's bounds as the kernel-selection "
                           "paper of Li & Liao states them: read through that paper",
    # -- single names --------------------------------------------------------------------
    "ahpatron.projectron_mistake_bound": "collides with theory.multiclass's (the multiclass "
                                         "Projectron's)",
    "ahpatron.projectronpp_mistake_bound": "collides with theory.multiclass's (the "
                                           "multiclass Projectron++'s)",
    "ahpatron.projectron_dictionary_bound": "stays beside the two Projectron bounds that "
                                            "collide with theory.multiclass's",
    "pomdr.theorem3_bound": "collides with theory.awv.theorem3_bound",
    "pomdr.theorem1_constant": "Li & Liao's numbered statements stay beside their "
                               "theorem3_bound, which collides with theory.awv's: flat, a "
                               "number would not say whose theorem it is",
    "pomdr.theorem1_exponential_bound": "as pomdr.theorem1_constant",
    "pomdr.theorem1_polynomial_bound": "as pomdr.theorem1_constant",
    "pomdr.theorem2_bound": "as pomdr.theorem1_constant",
    "pomdr.theorem2_max_halvings": "as pomdr.theorem1_constant",
    "pomdr.corollary1_bound": "as pomdr.theorem1_constant",
    "pomdr.lemma4_bound": "as pomdr.theorem1_constant",
    "pomdr.ALDDictionary": "no collision: not exported flat before theory.__all__ was read "
                           "from the modules (issue 25), and kept so; its function "
                           "ald_dictionary is flat",
    "pomdr.ald_threshold": "as pomdr.ALDDictionary",
    "pomdr.ald_budget_spectral_bound": "as pomdr.ALDDictionary",
    "experts.msmw_scale_prior": "no collision: not exported flat before theory.__all__ was "
                                "read from the modules (issue 25), and kept so",
    "norma.h": "a one-letter name (the tuning function (30)): theory.h would not say what "
               "it is",
    "decay.MAX_RATIO": "the exponential fit's clipping constant: theory.MAX_RATIO would not "
                       "say of what",
}

#: theory's public modules (packages too), in name order; each is imported here.
MODULES = tuple(m.name for m in _pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def _exports(modules, kept):
    """The flat names and the modules that keep some of theirs, from each module's
    ``__all__`` (``modules`` maps a module's name to it) and ``kept`` (as
    :data:`KEPT_IN_MODULE`).  Raises ImportError when two modules export one name for two
    objects and ``kept`` keeps neither."""
    flat, owner, keeping = {}, {}, []
    for name, module in modules.items():
        names = getattr(module, "__all__", None)
        if names is None:
            raise ImportError(f"theory.{name} has no __all__: theory exports what it lists")
        if name in kept:
            keeping.append(name)
            continue
        if any(f"{name}.{attr}" in kept for attr in names):
            keeping.append(name)
        for attr in names:
            if f"{name}.{attr}" in kept:
                continue
            value = getattr(module, attr)
            if attr in modules:
                raise ImportError(f"theory.{name}.{attr} is named as the module theory.{attr}: "
                                  f"keep it in its module (theory.KEPT_IN_MODULE, with why)")
            if attr in flat and flat[attr] is not value:
                raise ImportError(f"theory.{name}.{attr} and theory.{owner[attr]}.{attr} are "
                                  f"two objects: keep one in its module (theory.KEPT_IN_MODULE, "
                                  f"with why)")
            flat.setdefault(attr, value)
            owner.setdefault(attr, name)
    return flat, keeping


_modules = {name: _importlib.import_module(f"{__name__}.{name}") for name in MODULES}
_flat, _keeping = _exports(_modules, KEPT_IN_MODULE)
globals().update(_flat)
__all__ = _keeping + list(_flat)
