"""The official SARIF 2.1.0 schema (draft-04; tests/data/validate/sarif-schema-2.1.0.json, see tests/data/README.md)
as a validator every test that produces SARIF uses: `valid_sarif(text)` parses a log and fails the test with the
schema's errors."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import jsonschema

SARIF_SCHEMA = Path(__file__).parent / "data" / "validate" / "sarif-schema-2.1.0.json"


@functools.cache
def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    # FormatChecker() knows every format jsonschema has, uri-reference included (the SARIF schema uses that
    # draft-06 name under draft-04); with rfc3986-validator installed uri and uri-reference are really checked,
    # which tests/validator/test_lint.py's test_the_official_schema_refuses_what_code_scanning_refuses makes sure of
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


def schema_errors(log: object) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in sarif_validator().iter_errors(log)]


def valid_sarif(text: str) -> dict:
    log = json.loads(text)
    errors = schema_errors(log)
    assert not errors, errors[:10]
    return log
