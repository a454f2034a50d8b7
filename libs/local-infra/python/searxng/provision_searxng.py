"""Creates the SearXNG venv from requirements.txt (pinned, hashed wheels from PyPI), idempotently.

Usage: provision_searxng.py CACHE_DIR. Prints `WDS_SEARXNG_READY <venv python>` at the end.
The venv is named by the requirements' hash, so a changed pin gets a new one; an flock on
<CACHE_DIR>/searxng.lock serialises parallel callers (test workers).
"""
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    cache = sys.argv[1]
    req = os.path.join(HERE, "requirements.txt")
    with open(req, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    root = os.path.join(cache, "searxng")
    os.makedirs(root, exist_ok=True)
    venv = os.path.join(root, f"venv-{digest}")
    python = os.path.join(venv, "bin", "python")
    marker = os.path.join(venv, ".wds-ready")
    with open(os.path.join(cache, "searxng.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(marker):
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            subprocess.run(
                [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                 "--require-hashes", "--only-binary", ":all:", "-r", req],
                check=True,
            )
            open(marker, "w").close()
    print(f"WDS_SEARXNG_READY {python}", flush=True)


if __name__ == "__main__":
    main()
