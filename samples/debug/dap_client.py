"""A small scripted Debug Adapter Protocol client: what an editor does, in a few lines (the README's transcript;
tests/devtools/test_debug.py drives `spvcoop dap` with it).

    python samples/debug/dap_client.py samples/debug/vscode/launch.json --break tile.comp:19 --print w

launches the first configuration of a VS Code launch.json (`${workspaceFolder}` is the current directory)
through `python -m spvcoop dap`, sets the breakpoints, and at each stop prints the frames, the locals (or the
--print expressions), then steps once (--next) or continues, until the run ends.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any


class DapClient:
    def __init__(self, cwd: str | None = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "spvcoop", "dap"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
        self.seq = 0
        self.events: list[dict] = []

    def _read(self) -> dict:
        out = self.proc.stdout
        assert out is not None
        length = None
        while True:
            line = out.readline()
            if not line:
                raise EOFError("the adapter closed its output: " + self.proc.stderr.read().decode())  # type: ignore[union-attr]
            if line.strip() == b"":
                if length is not None:
                    break
                continue
            key, _, value = line.decode().partition(":")
            if key.strip().lower() == "content-length":
                length = int(value)
        return json.loads(out.read(length))

    def request(self, command: str, **arguments: Any) -> dict:
        """Send a request and return its response (events that come before it are kept in self.events)."""
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command, "arguments": arguments}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        while True:
            msg = self._read()
            if msg["type"] == "event":
                self.events.append(msg)
            elif msg["type"] == "response" and msg["request_seq"] == self.seq:
                return msg

    def event(self, *names: str) -> dict:
        """The first waiting event with one of these names, reading more messages as needed."""
        while True:
            for i, e in enumerate(self.events):
                if e["event"] in names:
                    return self.events.pop(i)
            msg = self._read()
            if msg["type"] == "event":
                if msg["event"] == "terminated" and "terminated" not in names:
                    raise EOFError(f"the session ended while waiting for {' or '.join(names)}: {self.events}")
                self.events.append(msg)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


def launch_configuration(path: str) -> dict:
    """The first configuration of a launch.json (// comment lines allowed), ${workspaceFolder} made '.'."""
    with open(path) as f:
        text = "\n".join(line for line in f.read().splitlines() if not line.lstrip().startswith("//"))
    config = json.loads(text.replace("${workspaceFolder}/", ""))["configurations"][0]
    return {k: v for k, v in config.items() if k not in ("type", "request", "name")}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("launch_json")
    p.add_argument("--break", dest="breaks", action="append", default=[], metavar="FILE:LINE")
    p.add_argument("--print", dest="prints", action="append", default=[], metavar="EXPR")
    p.add_argument("--next", action="store_true", help="step once (next) after the first stop")
    a = p.parse_args()
    c = DapClient()
    c.request("initialize", adapterID="spvcoop", linesStartAt1=True)
    c.event("initialized")
    config = launch_configuration(a.launch_json)
    print(f"-> launch {config['program']} {' '.join(config.get('args', []))}".rstrip())
    c.request("launch", **config)
    by_file: dict[str, list[dict]] = {}
    for b in a.breaks:
        file, _, line = b.rpartition(":")
        by_file.setdefault(file, []).append({"line": int(line)})
    for file, bps in by_file.items():
        r = c.request("setBreakpoints", source={"path": os.path.abspath(file)}, breakpoints=bps)
        print(f"-> setBreakpoints {os.path.basename(file)}: "
              + ", ".join(f"line {b['line']} {'verified' if b['verified'] else 'not verified'}"
                          for b in r["body"]["breakpoints"]))
    c.request("configurationDone")
    stepped = not a.next
    while True:
        e = c.event("stopped", "exited")
        if e["event"] == "exited":
            for o in c.events:
                if o["event"] == "output":
                    print(f"<- output: {o['body']['output'].rstrip()}")
            print(f"<- exited {e['body']['exitCode']}")
            break
        thread = e["body"]["threadId"]
        print(f"<- stopped ({e['body']['reason']}), thread {thread}: {e['body']['description']}")
        frames = c.request("stackTrace", threadId=thread)["body"]["stackFrames"]
        print("-> stackTrace: " + ", ".join(f"{f['name']} at {f['source']['name']}:{f['line']}" for f in frames))
        if a.prints:
            for expr in a.prints:
                r = c.request("evaluate", expression=expr, frameId=frames[0]["id"])
                print(f"-> evaluate {expr}: {r['body']['result'] if r['success'] else r['message']}")
        else:
            scope = c.request("scopes", frameId=frames[0]["id"])["body"]["scopes"][0]
            vs = c.request("variables", variablesReference=scope["variablesReference"])["body"]["variables"]
            print("-> variables: " + ", ".join(f"{v['name']} = {v['value']}" for v in vs))
        if not stepped:
            stepped = True
            c.request("next", threadId=thread)
            print("-> next")
        else:
            c.request("continue", threadId=thread)
            print("-> continue")
    c.request("disconnect")
    return c.close()


if __name__ == "__main__":
    sys.exit(main())
