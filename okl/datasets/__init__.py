"""Datasets: synthetic streams and LIBSVM files.

LIBSVM and CSV files (``load_libsvm``, ``load_csv``: sparse kept sparse, labels
mapped to {-1, +1}, malformed lines reported with their line number), the papers'
benchmark sets by name with cached, checksummed downloads (``load``, ``fetch_file``,
``available``; directory ``$OKL_DATA``), and the synthetic streams the papers need
(XOR, drifting and switching mixtures, adversarial rescaling, prescribed spectra).
``paper_data(name, paper)`` prepares a dataset as a paper prepares it (files, classes,
uniform row draws, feature selection, scaling, adversarial rescaling, each step with
where its rule comes from); ``iter_chunks`` reads a file in blocks (streams larger than
memory).
"""
from okl.datasets.drifting import bayes_log_odds, drifting_mixture
from okl.datasets.files import load_csv, load_libsvm
from okl.datasets.chunks import scan
from okl.datasets.fetch import (DATASETS, ChecksumError, DatasetNotFoundError, DownloadError,
                                RemoteDataset, Source, available, data_home, fetch_file,
                                iter_chunks, load, load_rows)
from okl.datasets.paper_data import (PAPERS, PaperData, PaperDataset, paper_data,
                                     paper_datasets)
from okl.datasets.synthetic import ADVERSARIAL_SCALE, adversarial_rescaling, xor_stream
from okl.datasets.spectral import SpectralStream, prescribed_spectrum, spectral_stream

__all__ = ["xor_stream", "drifting_mixture", "bayes_log_odds", "load_libsvm", "spectral_stream",
           "prescribed_spectrum", "SpectralStream", "load_csv", "load", "available",
           "fetch_file", "data_home", "DATASETS", "RemoteDataset", "Source",
           "DatasetNotFoundError", "DownloadError", "ChecksumError", "adversarial_rescaling",
           "ADVERSARIAL_SCALE", "load_rows", "iter_chunks", "scan", "paper_data",
           "paper_datasets", "PaperData", "PaperDataset", "PAPERS"]
