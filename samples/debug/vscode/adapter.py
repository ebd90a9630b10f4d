"""The debug adapter VS Code starts for this extension (package.json: "runtime": "python3", "program":
"./adapter.py"): `spvcoop dap` in the Python VS Code finds first on its PATH. Start VS Code from the shell where
spvcoop's virtual environment is active (`. venv/bin/activate && code .`), or name that environment's Python in
SPVCOOP_PYTHON. Where neither has spvcoop, the adapter answers the editor's first request with an error that
says so (a message in the editor, not a silent failure)."""
import json
import os
import sys


def _refuse(message: str) -> int:
    """Answer the first request (initialize) with `message`, framed as the protocol wants, and end."""
    sys.stderr.write(message + "\n")
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    length = 0
    for line in iter(stdin.readline, b""):
        if line.strip() == b"":
            break
        key, _, value = line.decode("ascii", "replace").partition(":")
        if key.strip().lower() == "content-length" and value.strip().isdigit():
            length = int(value.strip())
    try:
        seq = json.loads(stdin.read(min(length, 1 << 20)) or b"{}").get("seq", 0)
    except ValueError:
        seq = 0
    body = json.dumps({"seq": 1, "type": "response", "request_seq": seq, "command": "initialize", "success": False,
                       "message": message}).encode()
    stdout.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdout.flush()
    return 1


def main() -> int:
    try:
        from spvcoop.cli import main as spvcoop
    except ImportError:
        other = os.environ.get("SPVCOOP_PYTHON")
        if other and os.path.realpath(other) != os.path.realpath(sys.executable):
            os.execv(other, [other, os.path.abspath(__file__)])
        return _refuse(f"spvcoop is not installed for {sys.executable}: start VS Code from its activated virtual "
                       "environment, or set SPVCOOP_PYTHON to that environment's python")
    return spvcoop(["dap"])


if __name__ == "__main__":
    sys.exit(main())
