"""The jws/ fixtures in README order, and their cases for cases.json (manifest): one per file and
options of one run (see README.md, "The case manifest").
"""

from __future__ import annotations

from . import jws_valid_edges  # noqa: F401 - its tokens join VALID (after jws_valid's) when it is imported
from .jws_chain import CHAIN
from .jws_content import BODIES, NESTED, PAYLOAD
from .jws_fixture import JWSKit, TokenFile
from .jws_syntax import SYNTAX
from .jws_trust import HEADER, SIGNATURE, TIME
from .jws_valid import VALID

GROUPS = [VALID, SYNTAX, HEADER, CHAIN, SIGNATURE, TIME, PAYLOAD, NESTED, BODIES]
FOLDER = "jws"


def token_files() -> list[TokenFile]:
    files = [f for group in GROUPS for f in group]
    names = [f.file for f in files]
    assert len(names) == len(set(names)), "a jws/ file declared twice"
    return files


def build_jws(kit: JWSKit) -> dict[str, bytes]:
    """Every jws/ fixture by path under the output folder."""
    return {f"{FOLDER}/{f.file}": f.content(kit) for f in token_files()}


def jws_cases() -> list[dict]:
    return [entry for f in token_files() for entry in f.entries()]
