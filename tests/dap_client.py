"""A scripted Debug Adapter Protocol client for the tests: spawns `python -m spvcoop dap` and speaks framed JSON."""
from __future__ import annotations

import json
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
            assert line, "the adapter closed its output"
            if line.strip() == b"":
                if length is not None:
                    break
                continue
            key, _, value = line.decode().partition(":")
            assert key == "Content-Length", line
            length = int(value)
        return json.loads(out.read(length))

    def request(self, command: str, **arguments: Any) -> dict:
        """Send a request; the response (events that come before it are kept in self.events)."""
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

    def event(self, name: str) -> dict:
        """The first event of that name not yet taken, reading more messages as needed."""
        while True:
            for i, e in enumerate(self.events):
                if e["event"] == name:
                    return self.events.pop(i)
            msg = self._read()
            if msg["type"] == "event":
                self.events.append(msg)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)
