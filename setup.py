"""Build the Cython extensions of okl.

Every ``.pyx`` under ``okl/`` becomes one extension module; they share the
typed declarations of ``okl/_core.pxd``.  BLAS and LAPACK come from SciPy's
``cython_blas`` / ``cython_lapack``, so nothing links against a system BLAS.
"""
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent


def extensions():
    mods = []
    for pyx in sorted((HERE / "okl").rglob("*.pyx")):
        rel = pyx.relative_to(HERE)
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
