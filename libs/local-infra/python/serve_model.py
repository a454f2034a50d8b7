"""Runs llama.cpp's OpenAI-compatible HTTP server (xllamacpp wheel) on 127.0.0.1 until SIGTERM.

Started by libs/local-infra (startModelServer). Arguments are flags so the TypeScript side owns
every default. Prints one line `WDS_MODEL_SERVER_READY <address>` on stdout when it listens.
"""
import argparse
import signal
import sys
import threading


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="path of the GGUF file")
    ap.add_argument("--alias", required=True, help="model name the server answers to")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ctx", type=int, default=4096, help="context window shared by all slots")
    ap.add_argument("--parallel", type=int, default=1, help="concurrent request slots")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--api-key", default="")
    args = ap.parse_args()

    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.n_threads_http = 2
    params.endpoint_metrics = True
    params.warmup = False
    if args.api_key:
        params.api_keys = [args.api_key]

    server = xlc.Server(params)
    print(f"WDS_MODEL_SERVER_READY {server.listening_address}", flush=True)

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
