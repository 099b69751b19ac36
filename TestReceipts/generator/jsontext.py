"""JSON text written exactly as a fixture needs it: members in the given order, a key twice,
a key or a number as raw text (`"\\u0062undleId"`, `1748779200123.485`), nothing json.dumps
would normalise. Hostile tokens are mostly about the bytes, so the bytes are spelled out here.
"""

from __future__ import annotations

import json


class Raw(str):
    """Text written verbatim: a number with a fraction, an escaped key (with its quotes), `\\/`."""


class Members(list):
    """An object as (key, value) pairs, so that a key may occur twice."""


def dumps(value: object, indent: int | None = None, _level: int = 0) -> str:
    """Compact JSON like Apple's (no spaces) unless `indent` is given. Strings are written as
    UTF-8 (control characters escaped, everything else as it is); floats are refused, since
    their text is the point: use Raw."""
    if isinstance(value, Raw):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        raise TypeError("write a fractional number as Raw text")
    if isinstance(value, dict):
        value = Members(value.items())
    if isinstance(value, Members):
        items = [(k if isinstance(k, Raw) else json.dumps(k, ensure_ascii=False)) + ":" + (" " if indent else "")
                 + dumps(v, indent, _level + 1) for k, v in value]
        return _wrap("{", items, "}", indent, _level)
    if isinstance(value, (list, tuple)):
        return _wrap("[", [dumps(v, indent, _level + 1) for v in value], "]", indent, _level)
    raise TypeError(f"not JSON: {value!r}")


def _wrap(open_: str, items: list[str], close: str, indent: int | None, level: int) -> str:
    if not indent or not items:
        return open_ + ",".join(items) + close
    inner, outer = "\n" + " " * indent * (level + 1), "\n" + " " * indent * level
    return open_ + inner + ("," + inner).join(items) + outer + close


def encode(value: object, indent: int | None = None) -> bytes:
    return dumps(value, indent).encode("utf-8")


def nested_arrays(depth: int) -> Raw:
    """`depth` arrays, one inside the other, the innermost empty: `[[[]]]` for 3."""
    return Raw("[" * depth + "]" * depth)
