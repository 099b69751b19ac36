"""A fixture is declared once: its file, what it is, its outcome, and how its bytes are made."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable

from .outcome import Outcome
from .payload import encode_attrs, sample_attrs
from .pki import Cert
from .pkcs7 import signer_info, simple_receipt


@dataclass
class Kit:
    """What fixtures are made from: the test PKI and the sample signed as Apple signs."""
    pki: dict[str, Cert]

    @property
    def signer(self) -> Cert:
        return self.pki["test-signer"]

    @property
    def inter(self) -> Cert:
        return self.pki["test-intermediate"]

    @property
    def root(self) -> Cert:
        return self.pki["test-root"]

    @property
    def chain(self) -> list[Cert]:
        return [self.inter, self.root]

    @cached_property
    def sample_payload(self) -> bytes:
        return encode_attrs(sample_attrs())

    @cached_property
    def sample_info(self) -> bytes:
        """The sample's SignerInfo by test-signer."""
        return signer_info(self.signer, self.sample_payload)

    @cached_property
    def sample_receipt(self) -> bytes:
        return simple_receipt(self.sample_payload, self.signer, self.chain)

    def signed(self, payload: bytes) -> bytes:
        """`payload` signed by test-signer, certificates signer, intermediate, root."""
        return simple_receipt(payload, self.signer, self.chain)


@dataclass(frozen=True)
class Fixture:
    file: str  # under the output folder: receipts/NAME or hostile/NAME
    what: str  # README's "What it is"
    outcome: Outcome
    build: Callable[[Kit], bytes]


class FixtureList(list):
    """The fixtures of one folder, in README order, declared with the `fixture` decorator."""

    def __init__(self, folder: str):
        super().__init__()
        self.folder = folder

    def fixture(self, file: str, what: str, outcome: Outcome):
        def register(build: Callable[[Kit], bytes]) -> Callable[[Kit], bytes]:
            self.append(Fixture(f"{self.folder}/{file}", what, outcome, build))
            return build
        return register
