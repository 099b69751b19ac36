"""Compact JWS as Apple writes it: base64url(header) . base64url(payload) . base64url(signature),
no padding, ES256 signatures as 64 bytes r ‖ s (RFC 7518 §3.4).

Signatures are deterministic (RFC 6979, `cryptography`'s deterministic_signing), so a token
regenerates byte for byte from the same key and bytes. The parts are kept apart (`Parts`) so
that hostile tokens can change one of them after signing.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, replace

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

# The order of the P-256 group: signatures need 0 < r, s < N.
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64std(data: bytes) -> str:
    """Standard base64 with padding: how x5c carries certificates (RFC 7515 §4.1.6)."""
    return base64.b64encode(data).decode("ascii")


def der_to_raw(der: bytes, size: int) -> bytes:
    r, s = decode_dss_signature(der)
    return r.to_bytes(size, "big") + s.to_bytes(size, "big")


def raw_to_der(raw: bytes) -> bytes:
    half = len(raw) // 2
    return encode_dss_signature(int.from_bytes(raw[:half], "big"), int.from_bytes(raw[half:], "big"))


def ecdsa_der(key: ec.EllipticCurvePrivateKey, data: bytes,
              hash_algorithm: hashes.HashAlgorithm | None = None) -> bytes:
    """A deterministic (RFC 6979) ECDSA signature, DER encoded; SHA-256 unless told."""
    return key.sign(data, ec.ECDSA(hash_algorithm or hashes.SHA256(), deterministic_signing=True))


def es256(key: ec.EllipticCurvePrivateKey, data: bytes) -> bytes:
    """The JWS form: r ‖ s, each as many bytes as the curve (64 for P-256)."""
    return der_to_raw(ecdsa_der(key, data), (key.curve.key_size + 7) // 8)


@dataclass(frozen=True)
class Parts:
    """The three decoded parts of a compact JWS."""
    header: bytes
    payload: bytes
    signature: bytes = b""

    @property
    def signing_input(self) -> bytes:
        """What ES256 signs: the ASCII of base64url(header) . base64url(payload)."""
        return f"{b64url(self.header)}.{b64url(self.payload)}".encode("ascii")

    @property
    def segments(self) -> list[str]:
        return [b64url(self.header), b64url(self.payload), b64url(self.signature)]

    @property
    def text(self) -> str:
        return ".".join(self.segments)

    def signed(self, key: ec.EllipticCurvePrivateKey) -> Parts:
        return replace(self, signature=es256(key, self.signing_input))

    def with_signature(self, signature: bytes) -> Parts:
        return replace(self, signature=signature)


def join(*segments: str) -> str:
    return ".".join(segments)
