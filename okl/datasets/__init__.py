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
# Names are imported on first use (PEP 562), as in ``okl``: ``okl --help`` reads
# ``okl.datasets.streams.SYNTHETIC`` without loading NumPy.
_LAZY = {
    "bayes_log_odds": "okl.datasets.drifting",
    "drifting_mixture": "okl.datasets.drifting",
    "load_csv": "okl.datasets.files",
    "load_libsvm": "okl.datasets.files",
    "load_keel": "okl.datasets.files",
    "scan": "okl.datasets.chunks",
    "DATASETS": "okl.datasets.fetch",
    "ChecksumError": "okl.datasets.fetch",
    "DatasetNotFoundError": "okl.datasets.fetch",
    "DownloadError": "okl.datasets.fetch",
    "RemoteDataset": "okl.datasets.fetch",
    "Source": "okl.datasets.fetch",
    "available": "okl.datasets.fetch",
    "data_home": "okl.datasets.fetch",
    "fetch_file": "okl.datasets.fetch",
    "iter_chunks": "okl.datasets.fetch",
    "load": "okl.datasets.fetch",
    "load_rows": "okl.datasets.fetch",
    "PAPERS": "okl.datasets.papers",
    "PaperData": "okl.datasets.papers",
    "PaperDataset": "okl.datasets.papers",
    "paper_data": "okl.datasets.papers",
    "paper_datasets": "okl.datasets.papers",
    "ADVERSARIAL_SCALE": "okl.datasets.synthetic",
    "adversarial_rescaling": "okl.datasets.synthetic",
    "xor_stream": "okl.datasets.synthetic",
    "gauss_mixture_stream": "okl.datasets.synthetic",
    "checkerboard_stream": "okl.datasets.synthetic",
    "SpectralStream": "okl.datasets.spectral",
    "prescribed_spectrum": "okl.datasets.spectral",
    "spectral_stream": "okl.datasets.spectral",
    "SYNTHETIC": "okl.datasets.streams",
    "stream": "okl.datasets.streams",
}

__all__ = ["xor_stream", "gauss_mixture_stream", "checkerboard_stream", "drifting_mixture", "bayes_log_odds", "load_libsvm", "spectral_stream",
           "prescribed_spectrum", "SpectralStream", "load_csv", "load", "available",
           "fetch_file", "data_home", "DATASETS", "RemoteDataset", "Source",
           "DatasetNotFoundError", "DownloadError", "ChecksumError", "adversarial_rescaling",
           "ADVERSARIAL_SCALE", "load_keel", "load_rows", "iter_chunks", "scan", "paper_data",
           "paper_datasets", "PaperData", "PaperDataset", "PAPERS", "stream", "SYNTHETIC"]


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'okl.datasets' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
