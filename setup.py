"""Build the Cython extensions of okl.

Every ``.pyx`` under ``okl/`` becomes one extension module; they share the typed
declarations of ``okl/_core.pxd``.  BLAS and LAPACK come from SciPy's ``cython_blas`` /
``cython_lapack``, so nothing links against a system BLAS.

How the build is made fast (issue 21; ``docs/install.rst`` says what a user sees):

* **In parallel.**  Each stale module is translated by Cython in a worker process and
  then compiled by the C compiler, ``jobs`` modules at a time (``jobs`` = the cores this
  process may run on; ``OKL_BUILD_JOBS=n`` or ``build_ext -j n`` to change it), the
  largest first.  One line per module says what it cost.
* **Only what changed.**  Built modules are kept in ``build/okl-<python tag>/`` in the
  checkout, whatever the caller (``pip install .``, ``pip install -e .``, ``pip wheel``,
  ``setup.py build_ext --inplace``).  A module is rebuilt when one of its own sources
  is newer than its last build -- its ``.pyx``, the okl ``.pxd`` files it cimports
  (Cython's dependency tree) and the okl headers it includes -- or when the build
  recipe changed (Cython, NumPy, SciPy versions, compiler, flags, directives).  The
  files of NumPy, SciPy and Cython themselves are *not* compared by time: pip installs
  them afresh, with new times, into every isolated build environment, which used to
  make every ``pip install`` rebuild all modules; their versions stand for them.
  ``OKL_BUILD_FORCE=1`` (or ``build_ext --force``) rebuilds everything.
* **Less C.**  Cython's utility code (memoryviews, function objects, argument parsing)
  is generated once into the shared module ``okl._cyutility`` instead of into every
  module (Cython >= 3.1, ``shared_utility_qualified_name``), and no debug information
  is generated (``-g0``; ``OKL_BUILD_DEBUG=1`` keeps Python's ``-g``).

The sanitizer variant (issue 29): ``OKL_SANITIZE=1`` compiles and links every module
with AddressSanitizer and UndefinedBehaviorSanitizer (``SANITIZE_FLAGS`` below), kept
in its own cache ``build/okl-<python tag>-sanitize/`` so that the normal build is left
as it is.  Such modules load only in an interpreter started with libasan preloaded, so
they are never put into a git checkout (its ``okl/`` holds the normal modules, which an
editable install imports): ``.ci/sanitize`` copies the tree to a scratch directory,
builds there in place and runs the tests under the sanitizers.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import sysconfig
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, ThreadPoolExecutor, wait
from fnmatch import fnmatch
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).parent.resolve()
SHARED = "okl._cyutility"          # the module holding Cython's shared utility code
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}
MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
SANITIZE = os.environ.get("OKL_SANITIZE", "0") not in ("", "0")
# float-cast-overflow (not part of GCC's "undefined"): a double converted to an integer
# that cannot hold it, e.g. a NaN or huge index or size;
# -fno-wrapv: Python's CFLAGS carry -fwrapv, under which signed overflow is defined and
# UBSan does not check it -- okl's index arithmetic should not overflow, so it is checked;
# -O1 -g1: the usual level for ASan (quick to compile, accurate stacks) with line tables.
# UBSan's checks stay recoverable: .ci/sanitize stops at the first report with
# UBSAN_OPTIONS=halt_on_error=1, or lists them all (OKL_SANITIZE_KEEP_GOING=1).
SANITIZE_FLAGS = ["-O1", "-g1", "-fsanitize=address,undefined,float-cast-overflow",
                  "-fno-omit-frame-pointer", "-fno-wrapv"]
SANITIZE_LINK = ["-fsanitize=address,undefined,float-cast-overflow"]


def extensions() -> list[Extension]:
    """One Extension per ``.pyx`` (sources still ``.pyx``: ``OklBuildExt`` runs Cython).

    ``OKL_BUILD_ONLY="okl/learners/_alma.pyx"`` (a glob) builds just those modules, so that
    work on one learner does not recompile (or race on) the others; the shared utility
    module is always part of the build (it is skipped when up to date).
    """
    only = os.environ.get("OKL_BUILD_ONLY")
    mods = []
    for pyx in sorted((HERE / "okl").rglob("*.pyx")):
        rel = pyx.relative_to(HERE)
        if only and not fnmatch(rel.as_posix(), only):
            continue
        mods.append(Extension(".".join(rel.with_suffix("").parts), [rel.as_posix()],
                              define_macros=list(MACROS)))
    mods.append(Extension(SHARED, [SHARED.replace(".", "/") + ".c"]))
    return mods


# ----------------------------------------------------------------------------- progress

def _pip_is_verbose() -> bool:
    """True if the parent process is a ``pip ... -v`` (it then shows our stdout itself)."""
    if os.environ.get("PIP_VERBOSE", "0") not in ("", "0"):
        return True
    try:
        argv = Path(f"/proc/{os.getppid()}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(a == b"--verbose" or re.fullmatch(rb"-[a-zA-Z]*v[a-zA-Z]*", a) for a in argv)


def _open_terminal():
    """The terminal to print progress on besides stdout, or None.

    pip hides a build backend's stdout and stderr unless ``-v`` is given (it shows a
    spinner); the user's terminal is still there, so the progress lines go to it too
    when stdout is not a terminal and pip is not verbose.  ``OKL_BUILD_PROGRESS=0``
    turns this off, ``=1`` forces it.  Without a controlling terminal (CI, cron) there
    is nothing to open and stdout alone is used.
    """
    mode = os.environ.get("OKL_BUILD_PROGRESS", "auto").lower()
    if mode in ("0", "no", "off", "false"):
        return None
    if mode == "auto" and (sys.stdout.isatty() or _pip_is_verbose()):
        return None
    try:
        return open("/dev/tty", "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError:
        return None


class _Progress:
    def __init__(self):
        self.tty = _open_terminal()
        self.lock = threading.Lock()
        self.lead = "\n"   # first line: below pip's "Building wheel for okl ..." line

    def say(self, msg: str) -> None:
        with self.lock:
            print(msg, flush=True)
            if self.tty is not None:
                try:
                    self.tty.write(self.lead + msg + "\n")
                    self.tty.flush()
                    self.lead = "\r\033[K"  # then: erase the spinner character pip left
                except OSError:
                    self.tty = None

    def close(self) -> None:
        if self.tty is not None:
            self.tty.close()


# ----------------------------------------------------------------------------- Cython step

# ----------------------------------------------------------------------------- build_ext

class OklBuildExt(build_ext):
    """build_ext with a persistent, dependency-checked cache and a parallel pipeline."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:   # None (not given): every core this process may use
            try:
                cores = len(os.sched_getaffinity(0))
            except AttributeError:
                cores = os.cpu_count() or 1
            self.parallel = int(os.environ.get("OKL_BUILD_JOBS", cores))
        elif self.parallel is True:
            self.parallel = os.cpu_count() or 1
        if os.environ.get("OKL_BUILD_FORCE", "0") not in ("", "0"):
            self.force = True
        tag = sysconfig.get_config_var("EXT_SUFFIX").strip(".").rsplit(".", 1)[0]
        self.okl_cache = HERE / "build" / (f"okl-{tag or sys.implementation.cache_tag}"
                                           + ("-sanitize" if SANITIZE else ""))
        if SANITIZE and (HERE / ".git").exists():
            raise SystemExit(
                "okl: OKL_SANITIZE=1 builds modules that load only with libasan preloaded; "
                "they are not put into a git checkout (its okl/ holds the normal modules). "
                "Run .ci/sanitize, which builds them in a copy of the tree.")

    # the recipe: whatever changes the built module besides the project's own files
    def _recipe(self, ext: Extension) -> dict:
        import Cython
        import numpy
        import scipy

        return {
            "cython": Cython.__version__, "numpy": numpy.__version__,
            "scipy": scipy.__version__, "python": sys.version,
            "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
            "compiler": list(getattr(self.compiler, "compiler_so", None) or
                             [self.compiler.compiler_type]),
            "extra_compile_args": ext.extra_compile_args, "macros": ext.define_macros,
            "include_dirs": [Path(p).name for p in ext.include_dirs],
            "directives": DIRECTIVES, "shared": SHARED,
            # only when there are any: the normal build's recipe (and cache) stays as it was
            **({"extra_link_args": ext.extra_link_args} if ext.extra_link_args else {}),
        }

    def _project_deps(self, tree, pyx: str) -> list[Path]:
        """The okl files a module depends on: its .pyx, the okl .pxd it cimports
        (transitively, Cython's dependency tree) and the okl headers they include."""
        deps = set()
        for f in tree.all_dependencies(pyx):
            p = (HERE / f).resolve()
            if HERE in p.parents:
                deps.add(p)
                for h in tree.cimports_externs_incdirs(f)[1]:
                    hp = (HERE / h).resolve()
                    if hp.is_file():
                        deps.add(hp)
        todo = [d for d in deps if d.suffix == ".h"]
        while todo:   # headers including headers
            h = todo.pop()
            for inc in re.findall(r'#\s*include\s+"([^"]+)"', h.read_text(errors="replace")):
                ip = (h.parent / inc).resolve()
                if ip.is_file() and ip not in deps:
                    deps.add(ip)
                    todo.append(ip)
        return sorted(deps)

    def _cached(self, ext: Extension) -> Path:
        return self.okl_cache / "lib" / Path(self.get_ext_filename(ext.name))

    def _is_fresh(self, ext: Extension, recipe: dict, deps: list[Path]) -> bool:
        stamp = self._cached(ext).with_suffix(".json")
        if self.force or not (self._cached(ext).is_file() and stamp.is_file()):
            return False
        try:
            old = json.loads(stamp.read_text())
        except (OSError, ValueError):
            return False
        if old.get("recipe") != json.loads(json.dumps(recipe)):
            return False
        return all(d.stat().st_mtime <= old["sources_as_of"] for d in deps)

    def build_extensions(self):
        import numpy
        from Cython.Build.Dependencies import create_dependency_tree
        from Cython.Compiler.Main import CompilationOptions, Context

        progress = _Progress()
        t_start = time.time()
        is_msvc = self.compiler.compiler_type == "msvc"
        debug = os.environ.get("OKL_BUILD_DEBUG", "0") not in ("", "0")
        for ext in self.extensions:
            ext.include_dirs = [numpy.get_include()]
            # -O3 as Python's own flags; -g0: no debug information (gcc spends a good part
            # of its time on it for Cython's large C files and the wheels would be larger)
            ext.extra_compile_args = [] if is_msvc else ["-O3"] + ([] if debug else ["-g0"])
            if SANITIZE:
                if is_msvc:
                    raise SystemExit("okl: OKL_SANITIZE=1 needs GCC or Clang")
                ext.extra_compile_args = list(SANITIZE_FLAGS)
                ext.extra_link_args = list(SANITIZE_LINK)

        tree = create_dependency_tree(Context.from_options(CompilationOptions(
            language_level=3)))
        shared = next(e for e in self.extensions if e.name == SHARED)
        modules = [e for e in self.extensions if e is not shared]
        plan = {}
        for ext in modules:
            deps = self._project_deps(tree, ext.sources[0])
            plan[ext.name] = (self._recipe(ext), deps)
        plan[SHARED] = (self._recipe(shared), [])
        stale = [e for e in modules if not self._is_fresh(e, *plan[e.name])]
        shared_stale = not self._is_fresh(shared, *plan[SHARED])
        # the largest modules first, so that no big one is left for the end
        stale.sort(key=lambda e: -Path(e.sources[0]).stat().st_size)
        if shared_stale:
            stale.insert(0, shared)
        n, where = len(stale), self.okl_cache.relative_to(HERE).as_posix()
        if n:
            rest = len(self.extensions) - n
            progress.say(f"okl: compiling {n} of {len(self.extensions)} extension modules on "
                         f"{self.parallel} core{'s' * (self.parallel > 1)}, one line each as "
                         f"it is done" + (f" ({rest} up to date in {where}/)"
                                          if rest else f" (kept in {where}/)"))
        else:
            progress.say(f"okl: all {len(self.extensions)} extension modules up to date in "
                         f"{where}/, nothing to compile")
        done = [0]

        def finish(ext, t_cy, t_cc):
            src = Path(ext.sources[0])
            size = src.stat().st_size / 1e6 if src.suffix == ".c" else float("nan")
            with progress.lock:
                done[0] += 1
                k = done[0]
            progress.say(f"okl: [{k:{len(str(n))}}/{n}] {ext.name:<28} Cython {t_cy:5.1f} s, "
                         f"C {size:4.1f} MB compiled in {t_cc:5.1f} s")

        if stale:
            self._pipeline(stale, plan, t_start, finish)
        for ext in self.extensions:
            self._deliver(ext)
        progress.say(f"okl: extension modules ready in {time.time() - t_start:.1f} s")
        progress.close()

    def _pipeline(self, stale, plan, t_start, finish):
        """Cython in worker processes, the C compiler in threads, ``parallel`` modules at
        a time: each thread translates one module and then compiles it."""
        import multiprocessing

        jobs = max(1, min(self.parallel, len(stale)))
        ctx = multiprocessing.get_context("spawn")  # fork from a threaded parent is unsafe
        with ProcessPoolExecutor(jobs, mp_context=ctx) as procs, ThreadPoolExecutor(jobs) as threads:
            def one(ext):
                from Cython.Build import cythonize

                t0 = time.perf_counter()
                # Cython's own function runs in the worker (a function of this file could
                # not be sent there: under pip this file is not an importable module)
                # (for okl._cyutility itself, it writes the shared utility code)
                (c_ext,) = procs.submit(cythonize, [ext], force=True, quiet=True,
                                        compiler_directives=DIRECTIVES,
                                        shared_utility_qualified_name=SHARED).result()
                t_cy = time.perf_counter() - t0
                ext.sources = c_ext.sources
                t_cc = self._compile(ext, plan[ext.name][0], t_start)
                finish(ext, t_cy, t_cc)

            futures = [threads.submit(one, e) for e in stale]
            wait(futures, return_when=FIRST_EXCEPTION)
            for f in futures:   # a failure: drop what has not started, report the first
                f.cancel()
            for f in futures:
                if not f.cancelled():
                    f.result()

    def _compile(self, ext: Extension, recipe: dict, t_start: float) -> float:
        """Compile ``ext`` (its sources are C now) into the cache; returns the seconds."""
        t0 = time.perf_counter()
        cached = self._cached(ext)
        cached.parent.mkdir(parents=True, exist_ok=True)
        objects = self.compiler.compile(
            ext.sources, output_dir=str(self.okl_cache / "temp"), macros=ext.define_macros,
            include_dirs=ext.include_dirs, debug=self.debug,
            extra_postargs=ext.extra_compile_args)
        self.compiler.link_shared_object(
            objects, str(cached), libraries=self.get_libraries(ext),
            library_dirs=ext.library_dirs, runtime_library_dirs=ext.runtime_library_dirs,
            extra_postargs=ext.extra_link_args, export_symbols=self.get_export_symbols(ext),
            debug=self.debug, build_temp=str(self.okl_cache / "temp"),
            target_lang=self.compiler.detect_language(ext.sources))
        cached.with_suffix(".json").write_text(json.dumps(
            {"recipe": recipe, "sources_as_of": t_start}, indent=1))
        return time.perf_counter() - t0

    def _deliver(self, ext: Extension) -> None:
        """Copy the cached module to where setuptools wants it (build/lib..., the
        editable install's build dir, or next to the .pyx for --inplace)."""
        dest = Path(self.get_ext_fullpath(ext.name))
        src = self._cached(ext)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.resolve() != src.resolve():
            tmp = dest.with_name(dest.name + ".tmp")
            shutil.copy2(src, tmp)
            os.replace(tmp, dest)   # atomic: a running interpreter keeps its mapped copy


if __name__ == "__main__":
    setup(ext_modules=extensions(), cmdclass={"build_ext": OklBuildExt})
