"""SARIF 2.1.0 output, as GitHub code scanning reads it.

- Every rule is listed (the validator's, spirv-val's and the lint's own `syntax` and `suppression.unused`),
  each with its spec sentence as `fullDescription` and `help`, a default level and where the sentence comes from.
- Every result has `region.startLine`. For a `.spv` binary it is the line of the instruction in `spvcoop dis`
  output (identical to spirv-dis's), since a binary has no lines of its own; the message and the result's
  properties (`lineIn`) say so, and `region.byteOffset` still gives the instruction's place in the file.
  A finding about the module as a whole is at line 1.
- Input that does not assemble or decode is a result of the rule `syntax`.
- A file that could not be read (or checked: spirv-val missing) is no result: it is a tool execution
  notification of the run's invocation, and `executionSuccessful` is false.
"""
from __future__ import annotations

import json
import os
from urllib.parse import quote

from ..core.version import __version__
from .selection import LINT_RULES, SYNTAX_RULE

_LEVEL = {"error": "error", "warning": "warning", "note": "note"}
DIS_NOTE = ("line {line} of `spvcoop dis {file}` (a binary has no lines: the line is the instruction's in its "
            "disassembly)")


def _uri(path: str) -> str:
    """A URI reference for a path: relative paths stay relative (code scanning resolves them against the
    repository), absolute ones become file: URIs."""
    if os.path.isabs(path):
        from pathlib import Path
        return Path(path).as_uri()
    return quote(path.replace(os.sep, "/"), safe="/")


def rule_table() -> list[tuple[str, str, str, str]]:
    """(id, spec sentence, severity, source) of every rule, sorted by id."""
    from . import RULES
    rows = [(r.id, r.spec, r.severity, r.source) for r in RULES.values()]
    rows += [(rid, spec, sev, src) for rid, (spec, sev, src) in LINT_RULES.items()]
    return sorted(rows)


def _rule(rid: str, spec: str, severity: str, source: str) -> dict:
    first = spec.split(". ")[0].rstrip(".") + "."
    return {"id": rid, "name": "".join(p[:1].upper() + p[1:] for p in rid.replace("-", ".").split(".")),
            "shortDescription": {"text": first},
            "fullDescription": {"text": spec},
            "help": {"text": f"{spec} (source: {source or 'spvcoop'}; `spvcoop val --list-rules` lists every rule)",
                     "markdown": f"{spec}\n\nSource: {source or 'spvcoop'}."},
            "defaultConfiguration": {"level": _LEVEL.get(severity, "error")},
            "properties": {"source": source, "tags": [rid.split(".")[0]]}}


def _location(file: str, d: dict, note: bool = False) -> dict | None:
    """A physical location with region.startLine (a finding without a place: line 1), or None for a note
    without one."""
    region: dict
    if "line" in d:
        region = {"startLine": d["line"], "startColumn": d["column"], "endColumn": d.get("end_column", d["column"] + 1)}
    elif "dis_line" in d:
        region = {"startLine": d["dis_line"], "byteOffset": d["word"] * 4}
    elif "word" in d:
        region = {"startLine": 1, "byteOffset": d["word"] * 4, "byteLength": 4}
    elif note:
        return None
    else:
        region = {"startLine": 1}
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(file)}, "region": region}}


def format_sarif(results: list[dict]) -> str:
    """A SARIF 2.1.0 log with one run from `lint`/`val` file records (report.file_result)."""
    table = rule_table()
    index = {row[0]: i for i, row in enumerate(table)}
    out_results = []
    notifications = []
    for fr in results:
        if fr.get("not_checked"):
            for d in fr["diagnostics"]:
                where = {"physicalLocation": {"artifactLocation": {"uri": _uri(fr["file"])}}}
                notifications.append({"level": "error", "message": {"text": f"{fr['file']}: {d['message']}"},
                                      "locations": [where]})
            continue
        for d in fr["diagnostics"]:
            rid = d["rule"] or SYNTAX_RULE
            text = d["message"]
            props: dict = {"source": d.get("source", "spvcoop")}
            if "instruction" in d:
                text += f" [{d['instruction']}]"
            if "dis_line" in d and "line" not in d:
                text += f" (at {DIS_NOTE.format(line=d['dis_line'], file=fr['file'])})"
                props["lineIn"] = "spvcoop dis output"
            loc = _location(fr["file"], d)
            res = {"ruleId": rid, "level": _LEVEL.get(d["severity"], "note"), "message": {"text": text},
                   "locations": [loc], "properties": props}
            if rid in index:
                res["ruleIndex"] = index[rid]
            related = []
            for k, n in enumerate(d["notes"]):
                nloc = _location(fr["file"], n, note=True)
                if nloc is not None:
                    related.append(dict(nloc, id=k, message={"text": n["message"]}))
            if related:
                res["relatedLocations"] = related
            out_results.append(res)
    invocation: dict = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    log = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
           "runs": [{"tool": {"driver": {"name": "spvcoop", "version": __version__, "semanticVersion": __version__,
                                         "informationUri": "https://github.com/spvcoop/spvcoop",
                                         "rules": [_rule(*row) for row in table]}},
                     "invocations": [invocation],
                     "columnKind": "unicodeCodePoints",
                     "results": out_results}]}
    return json.dumps(log, indent=2) + "\n"
