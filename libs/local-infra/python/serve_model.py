"""Runs llama.cpp's OpenAI-compatible HTTP server (xllamacpp wheel) behind a tenant-fair gate.

Started by libs/local-infra (startModelServer) and by the Helm chart's LLM pod. Arguments are flags
so the TypeScript side owns every default. Prints one line `WDS_MODEL_SERVER_READY <address>` on
stdout when it listens.

llama.cpp serves `--parallel` slots and queues further requests first come first served. Every
replica of every service (scraper, browser-pool, gateway, docs-search) shares this server, each
replica handing its own slots to teams in turn (libs/llm); across replicas, the server's own queue
would let one team's requests from several replicas hold back another team's. So llama.cpp listens
on a private port, and this process answers on the public one: a request that makes the model work
(any POST) waits for one of the `--parallel` slots, which are handed to the teams in turn (the
`X-WDS-Tenant` header; requests without it share one queue), first come first served within a team.
Other requests (health, models, metrics) pass straight through. A client that disconnects while
waiting leaves the queue; one that disconnects while its request runs aborts it upstream (llama.cpp
then frees the slot).
"""
import argparse
import collections
import http.client
import http.server
import json
import os
import select
import signal
import socket
import sys
import threading

TENANT_HEADER = "X-WDS-Tenant"
MAX_TENANT_CHARS = 128
# Hop-by-hop headers (RFC 9110 7.6.1) and those this proxy sets itself.
NOT_FORWARDED = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "content-length",
    "host",
    TENANT_HEADER.lower(),
}
POLL_SECONDS = 0.2
# How often the server checks that the process that started it (`--parent-pid`) is still there.
PARENT_POLL_SECONDS = 0.5


class Ticket:
    __slots__ = ("granted",)

    def __init__(self):
        self.granted = False


class FairGate:
    """`slots` concurrent holders; waiters are served one tenant after another (round robin)."""

    def __init__(self, slots):
        self.slots = slots
        self.busy = 0
        self.cond = threading.Condition()
        self.queues = {}
        # Tenants with waiters, in the order their turns come.
        self.turns = collections.deque()

    def acquire(self, tenant, gone):
        """Takes a slot; False when `gone()` turned true while waiting (the ticket is withdrawn)."""
        with self.cond:
            if self.busy < self.slots and not self.turns:
                self.busy += 1
                return True
            ticket = Ticket()
            queue = self.queues.get(tenant)
            if queue is None:
                queue = self.queues[tenant] = collections.deque()
                self.turns.append(tenant)
            queue.append(ticket)
            while not ticket.granted:
                self.cond.wait(POLL_SECONDS)
                if not ticket.granted and gone():
                    queue.remove(ticket)
                    if not queue:
                        del self.queues[tenant]
                        self.turns.remove(tenant)
                    return False
            return True

    def release(self):
        with self.cond:
            self.busy -= 1
            while self.busy < self.slots and self.turns:
                tenant = self.turns.popleft()
                queue = self.queues[tenant]
                queue.popleft().granted = True
                self.busy += 1
                if queue:
                    self.turns.append(tenant)
                else:
                    del self.queues[tenant]
            self.cond.notify_all()

    def wait_idle(self, seconds):
        """True once no request holds or waits for a slot, False if some still do after `seconds`."""
        with self.cond:
            return self.cond.wait_for(lambda: self.busy == 0 and not self.turns, seconds)


def client_gone(sock):
    """The client closed its connection (readable with nothing to read)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def make_handler(upstream_port, gate):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # one line per request is noise at this rate
            pass

        def do_GET(self):
            self.relay(queued=False)

        def do_HEAD(self):
            self.relay(queued=False)

        def do_DELETE(self):
            self.relay(queued=False)

        def do_OPTIONS(self):
            self.relay(queued=False)

        def do_POST(self):
            self.relay(queued=True)

        def do_PUT(self):
            self.relay(queued=True)

        def relay(self, queued):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length > 0 else None
            tenant = (self.headers.get(TENANT_HEADER) or "")[:MAX_TENANT_CHARS]
            if queued and not gate.acquire(tenant, lambda: client_gone(self.connection)):
                self.close_connection = True
                return
            try:
                self.forward(body)
            finally:
                if queued:
                    gate.release()

        def forward(self, body):
            headers = {k: v for k, v in self.headers.items() if k.lower() not in NOT_FORWARDED}
            if body is not None:
                headers["Content-Length"] = str(len(body))
            conn = http.client.HTTPConnection("127.0.0.1", upstream_port)
            try:
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                except OSError as err:
                    self.fail(502, f"model server unreachable: {err}")
                    return
                # Wait for the answer; a client that leaves meanwhile aborts the request upstream. A
                # client that sends more meanwhile (a pipelined request) is not gone: stop watching it.
                watched = [conn.sock, self.connection]
                while True:
                    readable, _, _ = select.select(watched, [], [], POLL_SECONDS)
                    if conn.sock in readable:
                        break
                    if self.connection in readable:
                        if client_gone(self.connection):
                            self.close_connection = True
                            return
                        watched = [conn.sock]
                try:
                    res = conn.getresponse()
                except (OSError, http.client.HTTPException) as err:
                    self.fail(502, f"model server failed: {err}")
                    return
                self.send_response_only(res.status, res.reason)
                for k, v in res.getheaders():
                    if k.lower() not in NOT_FORWARDED:
                        self.send_header(k, v)
                if self.command == "HEAD":
                    self.send_header("Content-Length", res.getheader("Content-Length") or "0")
                    self.end_headers()
                    return
                if res.getheader("Content-Length") is not None:
                    data = res.read()
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                # Streamed (server-sent events): passed on chunk by chunk.
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                while True:
                    chunk = res.read1(65536)
                    if not chunk:
                        break
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            finally:
                conn.close()

        def fail(self, status, message):
            data = json.dumps({"error": {"message": message, "type": "server_error"}}).encode()
            self.send_response_only(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def watch_parent(parent_pid, stop):
    """Sets `stop` once this process's parent is not `parent_pid` any more: the process that started
    the server died without stopping it (SIGKILL, a crash) and this one was handed to init."""
    while not stop.is_set():
        if os.getppid() != parent_pid:
            print(f"parent process {parent_pid} is gone: stopping", file=sys.stderr, flush=True)
            stop.set()
            return
        stop.wait(PARENT_POLL_SECONDS)


def wind_down(front, gate, drain_seconds):
    """Stops taking connections, lets the requests running or queued finish for up to
    `drain_seconds`, then ends the process at once, requests in flight or not. llama.cpp's server is
    not destroyed first: its destructor waits for the requests still running (a non-streamed answer
    can take minutes) and holds the GIL meanwhile, so no timeout in Python could cut it short; the
    model is read-only and nothing else needs saving."""
    front.shutdown()
    front.server_close()
    if drain_seconds > 0 and not gate.wait_idle(drain_seconds):
        print(f"stopping with requests still running after {drain_seconds:g} s", file=sys.stderr, flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


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
    ap.add_argument(
        "--parent-pid",
        type=int,
        default=0,
        help="stop when this process (the one starting the server) is gone; 0 = do not watch",
    )
    ap.add_argument(
        "--drain-seconds",
        type=float,
        default=0,
        help="on SIGTERM, how long running and queued requests may take to finish before the exit",
    )
    args = ap.parse_args()

    import xllamacpp as xlc

    upstream_port = free_port()
    params = xlc.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = ["127.0.0.1"]
    params.port = upstream_port
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    # Room for health and metrics requests beside the `parallel` model requests the gate lets through.
    params.n_threads_http = max(1, args.parallel) + 2
    params.endpoint_metrics = True
    params.warmup = False
    if args.api_key:
        params.api_keys = [args.api_key]

    server = xlc.Server(params)  # noqa: F841 (serves until the process ends)
    gate = FairGate(max(1, args.parallel))
    front = http.server.ThreadingHTTPServer((args.host, args.port), make_handler(upstream_port, gate))
    front.daemon_threads = True
    threading.Thread(target=front.serve_forever, daemon=True).start()
    print(f"WDS_MODEL_SERVER_READY http://{args.host}:{front.server_address[1]}", flush=True)

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if args.parent_pid > 0:
        threading.Thread(target=watch_parent, args=(args.parent_pid, stop), daemon=True).start()
    stop.wait()
    wind_down(front, gate, args.drain_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
