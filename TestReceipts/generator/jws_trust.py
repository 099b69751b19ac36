"""The jws/ tokens that are well formed but must not verify (exit 1) for what their header, their
signature or their date say: alg and crit, x5c's shape, each way a signature can be wrong, and
dates outside a certificate's window (the chain rules are in jws_chain)."""

from __future__ import annotations

import base64
from decimal import Decimal
import hashlib
import hmac
import json
import re

from cryptography.hazmat.primitives import hashes, serialization

from .hostile_content import ESCAPES
from .jsontext import Raw
from .jws import P256_N, b64std, der_to_raw, ecdsa_der, es256, join, raw_to_der
from .jws_fixture import APPLE_CHAIN, JWSKit, Probe, TokenList, probe
from .jws_outcome import fails, ok
from .jws_reading import (cert_key, cert_name, header, is_der, jwk_key, leaf_key, parts_of, payload_text, seg, sig,
                          signed_by_leaf, signing_input, verifies, x5c_of)
from .jws_rules import N
from .jws_valid import LATER
from .jws_valid_edges import xcode_transaction_payload
from .storekit2 import DROP, SIGNED_AT, app_transaction, ms, plain_transaction, transaction

HEADER = TokenList("header", "Header and x5c",
                   "A plain Sandbox transaction signed by jws-leaf with a validly signed header that breaks one rule.")
SIGNATURE = TokenList("signature", "Signatures",
                      "A plain Sandbox transaction with Apple's header and chain whose signature is wrong in one way.")
TIME = TokenList("time", "Dates", "Tokens judged at their own date (signedDate; an AppTransaction's "
                 "receiptCreationDate), which lies outside a certificate's window or is missing.")

T = "transaction"


def signed_with_header(kit: JWSKit, header: object, signer: str = "jws-leaf") -> str:
    return kit.token(plain_transaction(), header, signer)


# --- alg and crit

def alg_token(file: str, what: str, alg: object, note: str = "", *, probe):
    @HEADER.token(file, what, T, fails("unsupportedSignatureAlgorithm", note), probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        return signed_with_header(kit, kit.header() | {"alg": alg})


alg_token("alg-none.jws", "alg `none`; the signature is nonetheless a valid ES256 one.", "none",
          probe=lambda d: header(d)["alg"] == "none" and signed_by_leaf(d))
alg_token("alg-es384.jws", "alg `ES384`; the signature is a valid ES256 one.", "ES384",
          probe=lambda d: header(d)["alg"] == "ES384")
alg_token("alg-lowercase.jws", "alg `es256`.", "es256", "exactly `ES256`", probe=lambda d: header(d)["alg"] == "es256")
alg_token("alg-not-a-string.jws", "alg `[\"ES256\"]`, an array.", ["ES256"],
          probe=lambda d: header(d)["alg"] == ["ES256"])
alg_token("alg-escapes.jws", "alg `ES256` followed by terminal escapes (clear screen, a green `Verdict: VERIFIED`).",
          "ES256" + ESCAPES, "the reason quotes the alg, escaped",
          probe=lambda d: header(d)["alg"].startswith("ES256\x1b["))


@HEADER.token("alg-missing.jws", "No alg member; the signature is a valid ES256 one.", T,
              fails("unsupportedSignatureAlgorithm"))
@probe(lambda d: "alg" not in header(d))
def alg_missing(kit: JWSKit) -> str:
    return signed_with_header(kit, {"x5c": kit.header()["x5c"]})


@HEADER.token("alg-none-empty-signature.jws", "alg `none` and an empty signature part (`header.payload.`), the "
              "classic unsecured JWS.", T, fails("unsupportedSignatureAlgorithm", other=("signatureInvalid",)))
@probe(lambda d: header(d)["alg"] == "none" and parts_of(d)[2] == "")
def alg_none_empty(kit: JWSKit) -> str:
    parts = kit.parts(plain_transaction(), kit.header() | {"alg": "none"})
    return join(*parts.segments[:2], "")


@HEADER.token("alg-hs256.jws", "alg `HS256`, signed HMAC-SHA256 with jws-leaf's public key (PEM) as the secret: the "
              "key confusion attack.", T, fails("unsupportedSignatureAlgorithm", other=("signatureInvalid",)))
@probe(lambda d: header(d)["alg"] == "HS256" and len(sig(d)) == 32)
def alg_hs256(kit: JWSKit) -> str:
    parts = kit.parts(plain_transaction(), kit.header() | {"alg": "HS256"})
    secret = kit.pki["jws-leaf"].key.public_key().public_bytes(serialization.Encoding.PEM,
                                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    return parts.with_signature(hmac.new(secret, parts.signing_input, hashlib.sha256).digest()).text


def crit_token(file: str, what: str, extra: dict, *, probe):
    @HEADER.token(file, what, T, fails("unsupportedCriticalHeader"), probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        return signed_with_header(kit, kit.header() | extra)


crit_token("crit-b64.jws", "`\"b64\": false` and `\"crit\": [\"b64\"]` (RFC 7797, unencoded payload); the signature "
           "is over the usual base64url input.", {"b64": False, "crit": ["b64"]},
           probe=lambda d: header(d)["crit"] == ["b64"] and header(d)["b64"] is False)
crit_token("crit-unknown.jws", "`\"crit\": [\"com.example.future\"]` and that member.",
           {"com.example.future": 1, "crit": ["com.example.future"]},
           probe=lambda d: header(d)["crit"] == ["com.example.future"])
crit_token("crit-empty.jws", "`\"crit\": []`: present, so refused (RFC 7515 forbids it empty).", {"crit": []},
           probe=lambda d: header(d)["crit"] == [])


@HEADER.token("jwk-attacker.jws", "A header with jwk (jws-attacker-leaf's public key) and the signature made with "
              "that key; x5c is Apple's chain: the key in the header must not be used.", T,
              fails("signatureInvalid", "only x5c[0]'s key verifies"))
@probe(lambda d: verifies(jwk_key(header(d)["jwk"]), signing_input(d), sig(d)))
def jwk_attacker(kit: JWSKit) -> str:
    return signed_with_header(kit, kit.header(jwk=kit.jwk("jws-attacker-leaf")), "jws-attacker-leaf")


# --- x5c's shape

def x5c_token(file: str, what: str, code: str, x5c, note: str = "", *, probe):
    """A header whose x5c is `x5c(kit)` (or no x5c when it gives None)."""
    @HEADER.token(file, what, T, fails(code, note), probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        value = x5c(kit)
        return signed_with_header(kit, {"alg": "ES256"} | ({} if value is None else {"x5c": value}))


def chain(*names: str):
    return lambda kit: kit.x5c(*names)


def entry(index: int, make):
    """Apple's x5c with entry `index` replaced by `make(kit, der)`."""
    def build(kit: JWSKit) -> list:
        x5c = kit.x5c(*APPLE_CHAIN)
        x5c[index] = make(kit, kit.der(APPLE_CHAIN[index]))
        return x5c
    return build


def padded_index(kit: JWSKit) -> int:
    """The first entry of Apple's x5c whose base64 ends in `=` (its DER length is not a multiple of 3)."""
    return next(i for i, n in enumerate(APPLE_CHAIN) if len(kit.der(n)) % 3)


def with_padded_entry(change):
    def build(kit: JWSKit) -> list:
        x5c = kit.x5c(*APPLE_CHAIN)
        i = padded_index(kit)
        x5c[i] = change(x5c[i])
        return x5c
    return build


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def set_unused_bit(text: str) -> str:
    """The last base64 character before the padding with its lowest (unused) bit set."""
    body = text.rstrip("=")
    last = B64.index(body[-1])
    assert last & 1 == 0
    return body[:-1] + B64[last | 1] + text[len(body):]


x5c_token("x5c-missing.jws", "No x5c member.", "untrustedChain", lambda kit: None,
          probe=lambda d: "x5c" not in header(d))
x5c_token("x5c-empty.jws", "x5c `[]`.", "untrustedChain", chain(), probe=lambda d: x5c_of(d) == [])
x5c_token("x5c-one.jws", "x5c holds jws-leaf only.", "untrustedChain", chain("jws-leaf"),
          "one certificate is accepted only with a StoreKit Testing certificate configured",
          probe=lambda d: len(x5c_of(d)) == 1)
x5c_token("x5c-two.jws", "x5c holds jws-leaf and jws-intermediate, not the root.", "untrustedChain",
          chain("jws-leaf", "jws-intermediate"), "exactly 3, even though the root is configured",
                probe=lambda d: len(x5c_of(d)) == 2)
x5c_token("x5c-four.jws", "x5c holds jws-leaf, jws-intermediate, jws-root, jws-root.", "untrustedChain",
          chain("jws-leaf", "jws-intermediate", "jws-root", "jws-root"), probe=lambda d: len(x5c_of(d)) == 4)
x5c_token("x5c-not-an-array.jws", "x5c is a string: jws-leaf's base64.", "untrustedChain",
          lambda kit: kit.x5c("jws-leaf")[0], "not an array of 3 certificates",
          probe=lambda d: isinstance(x5c_of(d), str))
x5c_token("x5c-not-strings.jws", "x5c[1] is the number 5.", "invalidCertificate", entry(1, lambda kit, der: 5),
          probe=lambda d: x5c_of(d)[1] == 5)
x5c_token("x5c-base64url.jws", "x5c[0] in the base64url alphabet (`-` and `_` for `+` and `/`).",
          "invalidCertificate", entry(0, lambda kit, der: b64std(der).replace("+", "-").replace("/", "_")),
          "x5c is standard base64 (RFC 7515 §4.1.6)", probe=lambda d: re.search("[-_]", x5c_of(d)[0]) is not None)
x5c_token("x5c-line-breaks.jws", "x5c[0] wrapped every 64 characters with a line feed, like a PEM body.",
          "invalidCertificate", entry(0, lambda kit, der: "\n".join(
              b64std(der)[i:i + 64] for i in range(0, len(b64std(der)), 64))), probe=lambda d: "\n" in x5c_of(d)[0])
x5c_token("x5c-no-padding.jws", "The first x5c entry whose base64 ends in `=` written without it.",
          "invalidCertificate", with_padded_entry(lambda text: text.rstrip("=")),
          probe=lambda d: any(len(e) % 4 for e in x5c_of(d)))
x5c_token("x5c-non-canonical-bits.jws", "The first x5c entry whose base64 ends in `=` with an unused bit of its "
          "last character set: the same DER to a lenient decoder.", "invalidCertificate",
          with_padded_entry(set_unused_bit), probe=lambda d: any(base64.b64encode(base64.b64decode(e)).decode() != e
                                                for e in x5c_of(d)))
x5c_token("x5c-trailing-bytes.jws", "x5c[0] is jws-leaf's DER followed by two zero bytes.", "invalidCertificate",
          entry(0, lambda kit, der: b64std(der + b"\x00\x00")), "one DER certificate and nothing after it",
                probe=lambda d: base64.b64decode(x5c_of(d)[0]).endswith(b"\x00\x00"))
x5c_token("x5c-not-der.jws", "x5c[0] is the base64 of `this is not a certificate`.", "invalidCertificate",
          entry(0, lambda kit, der: b64std(b"this is not a certificate")),
                probe=lambda d: base64.b64decode(x5c_of(d)[0]) == b"this is not a certificate")


# --- signatures

def signature_token(file: str, what: str, note: str = "", probes: tuple[Probe, ...] = ()):
    return SIGNATURE.token(file, what, T, fails("signatureInvalid", note), probes=probes)


def base(kit: JWSKit):
    return kit.signed(plain_transaction())


def with_signature(file: str, what: str, change, note: str = "", *, probe):
    @signature_token(file, what, note, (Probe(probe),))
    def build(kit: JWSKit) -> str:
        parts = base(kit)
        return parts.with_signature(change(parts.signature, parts, kit)).text


with_signature("signature-der.jws", "The valid signature DER-encoded (SEQUENCE of two INTEGERs, 70 to 72 bytes), as "
               "OpenSSL produces it.", lambda sig, parts, kit: raw_to_der(sig), "a DER signature is not verified",
               probe=lambda d: is_der(sig(d)) and signed_by_leaf(d))
with_signature("signature-63-bytes.jws", "The valid signature without its last byte.", lambda sig, *_: sig[:-1],
               probe=lambda d: len(sig(d)) == 63)
with_signature("signature-65-bytes.jws", "The valid signature and a zero byte.", lambda sig, *_: sig + b"\x00",
               probe=lambda d: len(sig(d)) == 65 and sig(d)[-1] == 0)
with_signature("signature-empty.jws", "An empty signature part (`header.payload.`).", lambda sig, *_: b"",
               probe=lambda d: parts_of(d)[2] == "")
with_signature("signature-flipped-bit.jws", "The valid signature with the lowest bit of its last byte flipped.",
               lambda sig, *_: sig[:-1] + bytes([sig[-1] ^ 1]),
               probe=lambda d: signed_by_leaf(d, sig(d)[:-1] + bytes([sig(d)[-1] ^ 1])))
with_signature("signature-zero.jws", "64 zero bytes: r = s = 0 (CVE-2022-21449, \"psychic signatures\").",
               lambda sig, *_: bytes(64), probe=lambda d: sig(d) == bytes(64))
with_signature("signature-s-equals-n.jws", "The valid r with s = n, the group order (out of range).",
               lambda sig, *_: sig[:32] + P256_N.to_bytes(32, "big"),
               probe=lambda d: int.from_bytes(sig(d)[32:], "big") == N)
with_signature("signature-payload-only.jws", "A valid ES256 signature by jws-leaf over the payload part alone.",
               lambda sig, parts, kit: es256(kit.pki["jws-leaf"].key, parts.segments[1].encode()),
               probe=lambda d: verifies(leaf_key(d), parts_of(d)[1].encode(), sig(d)))
with_signature("signature-decoded-json.jws", "A valid ES256 signature by jws-leaf over the decoded header JSON, "
               "`.`, the decoded payload JSON.",
               lambda sig, parts, kit: es256(kit.pki["jws-leaf"].key, parts.header + b"." + parts.payload),
               probe=lambda d: verifies(leaf_key(d), seg(d, 0) + b"." + seg(d, 1), sig(d)))
with_signature("signature-sha384.jws", "An ECDSA signature by jws-leaf over the right bytes with SHA-384 instead "
               "of SHA-256.", lambda sig, parts, kit: der_to_raw(
                   ecdsa_der(kit.pki["jws-leaf"].key, parts.signing_input, hashes.SHA384()), 32),
                             probe=lambda d: verifies(leaf_key(d), signing_input(d), sig(d), hashes.SHA384()))
with_signature("signature-transplanted.jws", "The signature of another valid token (transaction.jws) on this one.",
               lambda sig, parts, kit: kit.signed(transaction()).signature,
               probe=lambda d, out: sig(d) == sig((out / "jws" / "transaction.jws").read_bytes()))
with_signature("signature-other-key.jws", "A valid ES256 signature by jws-attacker-leaf; x5c is Apple's chain.",
               lambda sig, parts, kit: parts.signed(kit.pki["jws-attacker-leaf"].key).signature,
               probe=lambda d, out: verifies(cert_key(out, "jws-attacker-leaf"), signing_input(d), sig(d)))


@signature_token("tampered-payload.jws", "A valid token whose payload was changed after signing: price 9990 → 1.")
@probe(lambda d: json.loads(payload_text(d))["price"] == 1)
def tampered_payload(kit: JWSKit) -> str:
    good = base(kit)
    changed = kit.parts(plain_transaction(price=1))
    return join(*changed.segments[:2], good.segments[2])


@SIGNATURE.token("xcode-bad-signature.jws", "xcode-transaction.jws with one bit of its signature flipped.", T,
                 fails("signatureInvalid", "StoreKit Testing mode checks the signature too", storekit_testing=True))
@probe(lambda d: header(d)["kid"] == "Apple_Xcode_Key")
def xcode_bad_signature(kit: JWSKit) -> str:
    parts = kit.signed(xcode_transaction_payload(), kit.xcode_header(), "jws-storekit")
    return parts.with_signature(parts.signature[:-1] + bytes([parts.signature[-1] ^ 1])).text


# --- dates

def dated(file: str, what: str, signed_at: str, *cases, chain_names: tuple[str, ...] = APPLE_CHAIN, probe):
    @TIME.token(file, what, T, *cases, probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        return kit.token(plain_transaction(signedDate=ms(signed_at)), kit.header(chain_names), chain_names[0])


dated("expired-leaf.jws", "A transaction signed at 2027-01-01T00:00:00.001Z, 1 ms after jws-leaf's notAfter.",
      "2027-01-01T00:00:00.001Z", fails("certificateNotValidAtTime"),
      ok("judged at an instant inside the window instead", at=SIGNED_AT),
         probe=lambda d: json.loads(payload_text(d))["signedDate"] == 1798761600001)
dated("not-yet-valid-leaf.jws", "A transaction signed at 2023-12-31T23:59:59.999Z, 1 ms before jws-leaf's "
      "notBefore.", "2023-12-31T23:59:59.999Z", fails("certificateNotValidAtTime"),
      ok("judged at an instant inside the window instead", at=SIGNED_AT),
         probe=lambda d: json.loads(payload_text(d))["signedDate"] == 1704067199999)
dated("expired-intermediate.jws", "A transaction signed 2025-06-01 by jws-leaf-under-expired-intermediate, whose "
      "intermediate (jws-intermediate-expired) ended 2025-01-01; the leaf is in date.", SIGNED_AT,
      fails("certificateNotValidAtTime", "every certificate is judged, not only the leaf"),
      ok("judged at 2024-06-01, when both were valid", at="2024-06-01T00:00:00Z"),
      chain_names=("jws-leaf-under-expired-intermediate", "jws-intermediate-expired", "jws-root"),
      probe=lambda d: "Expired" in cert_name(d, 1))


@TIME.token("no-signed-date.jws", "A transaction without signedDate.", T,
            fails("missingSignedDate", "no date to judge the chain at: not verified, never judged at \"now\""),
            ok("verified at an instant given", at=SIGNED_AT),
            fails("certificateNotValidAtTime", "at an instant after jws-leaf's notAfter", at=LATER))
@probe(lambda d: "signedDate" not in json.loads(payload_text(d)))
def no_signed_date(kit: JWSKit) -> str:
    return kit.token(plain_transaction(signedDate=DROP))


@TIME.token("app-transaction-no-date.jws", "An AppTransaction without receiptCreationDate.", "appTransaction",
            fails("missingSignedDate"), ok("verified at an instant given", at=SIGNED_AT))
@probe(lambda d: "receiptCreationDate" not in json.loads(payload_text(d)))
def app_transaction_no_date(kit: JWSKit) -> str:
    return kit.token(app_transaction(receiptCreationDate=DROP))


@TIME.token("xcode-expired.jws", "An Xcode-style transaction signed 2026-06-01, after jws-storekit's notAfter "
            "(2026-01-01).", T, fails("certificateNotValidAtTime", "StoreKit Testing certificates are judged at "
                                      "the token's date too", storekit_testing=True),
            ok("at an instant inside its window", storekit_testing=True, at=SIGNED_AT))
@probe(lambda d: str(json.loads(payload_text(d), parse_float=Decimal)["signedDate"])
       .startswith("1780315200"))
def xcode_expired(kit: JWSKit) -> str:
    return kit.xcode(xcode_transaction_payload(signedDate=Raw("1780315200056.485")))

