"""Python runtime of a session's code sandbox (see worker.js and docs/adr/0008-browser-sessions.md).

Requests arrive as JSON lines on fd 3 ({id, code, nonce}); the code runs with Playwright for Python
(sync API) connected over CDP to the session's browser through 127.0.0.1:9222, with `page`,
`context`, `browser` and `playwright` bound and its globals kept between calls. The value of a
final expression is the result. Output goes to fds 1 and 2, each followed by the call's end marker;
the answer ({id, result?, error?, exitCode}) goes back on fd 3.
"""
import ast
import json
import os
import sys
import traceback

control_in = os.fdopen(3, "r", encoding="utf-8", closefd=False)
control_out = os.fdopen(os.dup(3), "w", encoding="utf-8")
state = {"__name__": "__main__"}


def answer(msg):
    control_out.write(json.dumps(msg) + "\n")
    control_out.flush()


def end_output(nonce):
    marker = "\0WDS-END-%s\0" % nonce
    sys.stdout.write(marker)
    sys.stdout.flush()
    sys.stderr.write(marker)
    sys.stderr.flush()


def describe(value):
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def connect():
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    browser = pw.chromium.connect_over_cdp("http://127.0.0.1:9222")
    context = browser.contexts[0] if browser.contexts else browser.new_context()
    pages = [p for p in context.pages if p.url != "about:blank"] or context.pages
    page = pages[0] if pages else context.new_page()
    state.update(playwright=pw, browser=browser, context=context, page=page)


def run(code):
    if "browser" not in state or not state["browser"].is_connected():
        connect()
    tree = ast.parse(code, "<input>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<input>", "exec"), state)
    if last is not None:
        return describe(eval(compile(last, "<input>", "eval"), state))
    return None


answer({"ready": True})
for line in control_in:
    req = json.loads(line)
    try:
        result = run(req["code"])
        end_output(req["nonce"])
        answer({"id": req["id"], "result": result, "exitCode": 0})
    except SystemExit as e:
        end_output(req["nonce"])
        code = e.code if isinstance(e.code, int) else 1
        answer({"id": req["id"], "error": "exit code %s" % code, "exitCode": code or 0})
    except BaseException as e:  # noqa: BLE001 - any failure of user code is reported, not fatal
        traceback.print_exc()
        end_output(req["nonce"])
        answer({"id": req["id"], "error": "%s: %s" % (type(e).__name__, e), "exitCode": 1})
