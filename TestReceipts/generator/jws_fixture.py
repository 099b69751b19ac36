"""A JWS fixture is declared once: its file, what it is, the kind its payload is, its cases, and
how its bytes are made from the JWS PKI (JWSKit)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import jsontext
from .jws import Parts, b64std, b64url
from .jws_outcome import KINDS, Case
from .pki import Cert

APPLE_CHAIN = ("jws-leaf", "jws-intermediate", "jws-root")


def as_bytes(value: object) -> bytes:
    """JSON text of a dict / Members / list, or the bytes themselves."""
    return value if isinstance(value, bytes) else jsontext.encode(value)


@dataclass
class JWSKit:
    """What tokens are made from: the JWS PKI, signed as Apple (or Xcode) signs."""
    pki: dict[str, Cert]

    def der(self, cert_name: str) -> bytes:
        return self.pki[cert_name].der

    def x5c(self, *names: str) -> list[str]:
        return [b64std(self.der(n)) for n in names]

    def header(self, chain: tuple[str, ...] = APPLE_CHAIN, **extra: object) -> dict:
        """Apple's header: alg, then x5c (leaf, intermediate, root)."""
        return {"alg": "ES256", "x5c": self.x5c(*chain), **extra}

    def xcode_header(self, signer: str = "jws-storekit") -> dict:
        """Xcode's header: x5c of the one self-signed certificate first, then alg, typ, kid."""
        return {"x5c": self.x5c(signer), "alg": "ES256", "typ": "JWT", "kid": "Apple_Xcode_Key"}

    def jwk(self, cert_name: str) -> dict:
        """The certificate's EC public key as a JWK (RFC 7518 §6.2)."""
        numbers = self.pki[cert_name].key.public_key().public_numbers()
        size = (numbers.curve.key_size + 7) // 8
        return {"kty": "EC", "crv": f"P-{numbers.curve.key_size}", "x": b64url(numbers.x.to_bytes(size, "big")),
                "y": b64url(numbers.y.to_bytes(size, "big"))}

    def parts(self, payload: object, header: object = None) -> Parts:
        return Parts(as_bytes(self.header() if header is None else header), as_bytes(payload))

    def signed(self, payload: object, header: object = None, signer: str = "jws-leaf") -> Parts:
        return self.parts(payload, header).signed(self.pki[signer].key)

    def token(self, payload: object, header: object = None, signer: str = "jws-leaf") -> str:
        """A compact JWS signed ES256 by `signer` (jws-leaf), header Apple's unless given."""
        return self.signed(payload, header, signer).text

    def xcode(self, payload: object, signer: str = "jws-storekit") -> str:
        """A StoreKit Testing token: Xcode's header, one certificate, signed by it."""
        return self.token(payload, self.xcode_header(signer), signer)


@dataclass(frozen=True)
class Probe:
    """The specific defect a hostile file must have, written in `jws_reading`'s independent words:
    `check(data)` on the file's bytes, or `check(data, out)` when it also reads the PKI or another
    fixture under the output folder."""
    check: Callable

    def holds(self, data: bytes, out: Path) -> bool:
        reads_output = len(inspect.signature(self.check).parameters) == 2
        return self.check(data, out) if reads_output else self.check(data)


def probe(check: Callable):
    """Declares a builder's probe beside it (put under the `token` decorator)."""
    def attach(build):
        build.probes = (*getattr(build, "probes", ()), Probe(check))
        return build
    return attach


@dataclass(frozen=True)
class TokenFile:
    file: str  # under jws/
    what: str
    kind: str | None  # what the payload is (for a body: what its first signed member should hold)
    cases: tuple[Case, ...]
    build: Callable[[JWSKit], str | bytes]
    group: str
    members: tuple[tuple[str, str | None], ...] | None = None  # a body's signed members: (name, kind inside)
    probes: tuple[Probe, ...] = ()

    def content(self, kit: JWSKit) -> bytes:
        """The file: a token (or body) and one newline, or bytes exactly as built."""
        made = self.build(kit)
        return made if isinstance(made, bytes) else made.encode("utf-8") + b"\n"

    def entries(self) -> list[dict]:
        head: dict = {"file": f"jws/{self.file}", "description": self.what, "input": "body" if self.members else "token",
                      "kind": self.kind}
        if self.members:
            head["members"] = [{"name": n, "kind": k} for n, k in self.members]
        return [{**head, **case.as_json()} for case in self.cases]


class TokenList(list):
    """One group of JWS fixtures, in README order, declared with the `token` decorator."""

    def __init__(self, group: str, title: str, about: str):
        super().__init__()
        self.group, self.title, self.about = group, title, about

    def token(self, file: str, what: str, kind: str | None, *cases: Case,
              members: tuple[tuple[str, str | None], ...] | None = None, probes: tuple[Probe, ...] = ()):
        assert kind in (None, *KINDS) and cases, file

        def register(build: Callable[[JWSKit], str | bytes]) -> Callable[[JWSKit], str | bytes]:
            self.append(TokenFile(file, what, kind, cases, build, self.group, members,
                                   (*probes, *getattr(build, "probes", ()))))
            return build
        return register
