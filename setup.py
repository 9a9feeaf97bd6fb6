"""Build the Cython extensions of okl.

Every ``.pyx`` under ``okl/`` becomes one extension module; they share the
typed declarations of ``okl/_core.pxd``.  BLAS and LAPACK come from SciPy's
``cython_blas`` / ``cython_lapack``, so nothing links against a system BLAS.
"""
import os
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent


def extensions():
    # OKL_BUILD_ONLY="okl/learners/_alma.pyx" (a glob) rebuilds just those modules in
    # place, so that work on one learner does not recompile (or race on) the others.
    only = os.environ.get("OKL_BUILD_ONLY")
    mods = []
    for pyx in sorted((HERE / "okl").rglob("*.pyx")):
        rel = pyx.relative_to(HERE)
        if only and not fnmatch(str(rel), only):
            continue
        name = ".".join(rel.with_suffix("").parts)
        mods.append(
            Extension(
                name,
                [str(rel)],
                include_dirs=[np.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                extra_compile_args=["-O3"],
            )
        )
    return cythonize(
        mods,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "embedsignature": True,
        },
    )


setup(ext_modules=extensions())
