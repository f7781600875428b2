"""A GPU node: the NVIDIA driver against the CUDA build of the pinned torch, and a one-second
matmul on the device."""

from __future__ import annotations

import re
import shutil
import subprocess
import time

from vlcomp.preflight import BLOCKER, OK, Check

# the oldest driver each CUDA major version's wheels run on (NVIDIA's CUDA toolkit release
# notes, "minor version compatibility": 12.x needs >= 525, 13.x needs >= 580)
MIN_DRIVER = {11: 450, 12: 525, 13: 580}
OLDER_DRIVER = ("a driver of the CUDA 13 series (>= 580) on the nodes, or torch built for "
                "CUDA 12 (pip install torch==2.14.1 --index-url https://download.pytorch.org/"
                "whl/cu126) in the environment the jobs use")


def driver_version() -> tuple[str | None, str]:
    """The NVIDIA driver version (None without one) and the GPU's name, from nvidia-smi."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None, "no nvidia-smi on PATH"
    done = subprocess.run([smi, "--query-gpu=driver_version,name", "--format=csv,noheader"],
                          capture_output=True, text=True, timeout=60, check=False)
    if done.returncode or not done.stdout.strip():
        return None, (done.stderr or done.stdout).strip()[:200]
    version, name = (part.strip() for part in done.stdout.splitlines()[0].split(",", 1))
    return version, name


def driver_check(driver: str | None, gpu: str, cuda: str | None) -> Check:
    """The driver against the CUDA version torch was built with (``torch.version.cuda``)."""
    if cuda is None:
        return Check("CUDA build", BLOCKER, "this torch is built without CUDA",
                     "install torch==2.14.1 (the CUDA 13 wheels on PyPI)")
    if driver is None:
        return Check("NVIDIA driver", BLOCKER, f"none found ({gpu}); torch is built for CUDA "
                     f"{cuda}", "run the preflight on a GPU node (srun --gpus=1 ...)")
    major = int(cuda.split(".")[0])
    need = MIN_DRIVER.get(major)
    have = int(re.match(r"\d+", driver).group(0))
    if need is not None and have < need:
        return Check("NVIDIA driver", BLOCKER, f"{driver} on {gpu}; torch's CUDA {cuda} wheels "
                     f"need >= {need}", OLDER_DRIVER)
    return Check("NVIDIA driver", OK, f"{driver} on {gpu}, enough for torch's CUDA {cuda}")


def matmul_check(seconds: float = 1.0) -> Check:
    """Float32 matmuls of 4096 x 4096 on the GPU for about ``seconds``: TFLOP/s achieved."""
    import torch

    if not torch.cuda.is_available():
        return Check("CUDA matmul", BLOCKER, "torch sees no CUDA device",
                     "check CUDA_VISIBLE_DEVICES and the job's --gpus request")
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    start, count = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        a @ b
        count += 1
        if count % 10 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    tflops = 2 * 4096 ** 3 * count / elapsed / 1e12
    return Check("CUDA matmul", OK, f"{count} float32 4096² matmuls in {elapsed:.2f} s "
                 f"({tflops:.1f} TFLOP/s) on {torch.cuda.get_device_name(0)}")


def device_checks() -> list[Check]:
    """The driver and the matmul (torch imported here only)."""
    import torch

    driver, gpu = driver_version()
    checks = [driver_check(driver, gpu, torch.version.cuda)]
    if checks[0].status == OK:
        checks.append(matmul_check())
    return checks
