"""Build the typed core of the kernel PA against okl's .pxd files:

    python setup.py build_ext --inplace
"""
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

import okl

setup(ext_modules=cythonize(
    [Extension("_kernel_pa", ["_kernel_pa.pyx"], include_dirs=[np.get_include()])],
    include_path=[okl.get_include()], language_level=3))
