"""Datasets: synthetic streams and LIBSVM files.

This is the foundation's part; cached downloads, CSV and the papers' streams
(drifting mixtures, adversarial rescaling, prescribed spectra) build on it.
"""
from okl.datasets.drifting import bayes_log_odds, drifting_mixture
from okl.datasets.synthetic import xor_stream
from okl.datasets.files import load_libsvm
from okl.datasets.spectral import SpectralStream, prescribed_spectrum, spectral_stream

__all__ = ["xor_stream", "drifting_mixture", "bayes_log_odds", "load_libsvm", "spectral_stream",
           "prescribed_spectrum", "SpectralStream"]
