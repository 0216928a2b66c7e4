"""Which BLAS PyTorch computes with, for the PyTorch comparisons in bench/.

A CPU race against PyTorch is a race against its BLAS. Debian's python3-torch
is built against the generic libblas.so.3, which the alternatives system
points at the reference BLAS (netlib libblas3, unoptimised) until an
optimised one such as libopenblas0-pthread is installed: the same script can
then be 10x faster or slower. So every comparison prints what this process
really loaded, and refuses a ratio against the reference BLAS. Thread counts:
bench/torch_threads.py.

    describe(torch)               after it: what was loaded, as a dict
    refusal(info)                 why no ratio may be printed, or None
"""

import os
import re

REFERENCE_BLAS_WHY = ("PyTorch computes on the reference BLAS (netlib libblas3, unoptimised), so a time ratio "
                      "would measure the BLAS, not remat; install libopenblas0-pthread (scripts/deps.sh), which "
                      "Debian's alternatives then give PyTorch")


def available_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _mapped_libraries():
    """Real paths of the shared libraries this process has mapped."""
    paths = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split()
                if len(parts) >= 6 and ".so" in parts[5]:
                    paths.add(os.path.realpath(parts[5]))
    except OSError:
        pass
    return sorted(paths)


def _openblas(libraries):
    """Config, core and threads of a loaded OpenBLAS, through its own functions."""
    import ctypes
    for path in libraries:
        if "openblas" not in os.path.basename(path):
            continue
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_config.restype = ctypes.c_char_p
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return {"path": path, "config": lib.openblas_get_config().decode(),
                    "core": lib.openblas_get_corename().decode(), "threads": lib.openblas_get_num_threads()}
        except (OSError, AttributeError):
            continue
    return None


def _sgemm_library(libraries):
    """The file whose sgemm_ PyTorch's CPU library resolves to: looked up from libtorch_cpu's own handle (its
    dependencies in load order, as its calls bind), then located with dladdr."""
    import ctypes
    torch_cpu = [p for p in libraries if os.path.basename(p).startswith("libtorch_cpu")]
    if not torch_cpu:
        return None

    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    try:
        sgemm = ctypes.CDLL(torch_cpu[0]).sgemm_
        libc = ctypes.CDLL(None)
        info = DlInfo()
        if libc.dladdr(ctypes.cast(sgemm, ctypes.c_void_p), ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(info.dli_fname.decode())
    except (OSError, AttributeError):
        pass
    return None


def describe(torch):
    """What PyTorch computes with: its build's BLAS_INFO, the libblas.so.3 the alternatives system points at,
    the library its sgemm_ binds to, the BLAS libraries mapped, and a verdict: openblas, mkl, reference or
    unknown (from the sgemm_ library where it can be found, else from what is mapped)."""
    config = torch.__config__.show()
    found = re.search(r"BLAS_INFO=([^,\s]+)", config)
    libraries = _mapped_libraries()
    blas_libraries = [p for p in libraries if re.search(r"blas|mkl|blis|atlas", os.path.basename(p))]
    alternative = "/etc/alternatives/libblas.so.3-x86_64-linux-gnu"
    info = {
        "torch": torch.__version__,
        "blas_info": found.group(1) if found else None,
        "libblas_alternative": os.path.realpath(alternative) if os.path.exists(alternative) else None,
        "sgemm_from": _sgemm_library(libraries),
        "loaded": blas_libraries,
        "openblas": _openblas(libraries),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
    }
    evidence = info["sgemm_from"] or " ".join(blas_libraries)
    if "openblas" in evidence:
        info["verdict"] = "openblas"
    elif "mkl" in evidence or (info["blas_info"] == "mkl" and (not info["sgemm_from"]
                                                               or "libtorch_cpu" in info["sgemm_from"])):
        # PyPI's wheels link MKL statically: sgemm_ resolves inside libtorch_cpu.so
        info["verdict"] = "mkl"
    elif re.search(r"/blas/libblas\.so", evidence):
        info["verdict"] = "reference"  # Debian's netlib libblas3 lives in .../blas/
    else:
        info["verdict"] = "unknown"
    if info["verdict"] != "openblas":
        info["openblas"] = None  # mapped (by LAPACK, say) but not what the GEMMs run on
    return info


def summary(info):
    """One line for a report."""
    source = info["sgemm_from"] or ", ".join(info["loaded"]) or "no BLAS library mapped"
    if info["openblas"]:
        o = info["openblas"]
        what = f"OpenBLAS ({o['config']}, core {o['core']}, {o['threads']} thread(s)), sgemm_ from {source}"
    elif info["verdict"] == "reference":
        what = "the reference BLAS (netlib), sgemm_ from " + source
    else:
        what = f"{info['verdict']} BLAS, sgemm_ from {source}"
    return (f"PyTorch {info['torch']} (BLAS_INFO={info['blas_info']}) computes on {what}; "
            f"libblas.so.3 -> {info['libblas_alternative']}; OMP_WAIT_POLICY={info['omp_wait_policy']}")


def refusal(info):
    """Why a CPU time ratio against this PyTorch would mislead, or None."""
    return REFERENCE_BLAS_WHY if info["verdict"] == "reference" else None
