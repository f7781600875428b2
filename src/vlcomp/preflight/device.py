"""A GPU node: the NVIDIA driver against the CUDA build of the pinned torch, and a one-second
matmul on the device."""

from __future__ import annotations

import re
import shutil
import subprocess
import time

from vlcomp.envlock import CUDA12_BUILD, CUDA12_INDEX
from vlcomp.preflight import BLOCKER, OK, Check

# the oldest driver each CUDA major version's wheels run on (NVIDIA's CUDA toolkit release
# notes, "minor version compatibility": 12.x needs >= 525, 13.x needs >= 580)
MIN_DRIVER = {11: 450, 12: 525, 13: 580}


def older_driver_fix(have: int) -> str:
    """What a node whose driver predates torch's CUDA 13 wheels can do: a CUDA 12 torch where
    its driver runs one, else a newer driver."""
    if have < MIN_DRIVER[12]:
        return (f"a newer NVIDIA driver on the nodes (>= {MIN_DRIVER[13]} for the pinned torch, "
                f">= {MIN_DRIVER[12]} for its CUDA 12 build)")
    return ("set compute.torch_cuda: \"12.8\" (the rules' conda environments then install "
            f"PyTorch's {CUDA12_BUILD} wheels: envs/torch-cuda12.yaml, --sdm conda); for the "
            f".venv: pip install torch==2.14.1+{CUDA12_BUILD} torchvision==0.29.1+"
            f"{CUDA12_BUILD} --index-url {CUDA12_INDEX}")


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
                     f"need >= {need}", older_driver_fix(have))
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
