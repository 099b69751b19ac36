"""The JWS self-check: an independent reading of jws/ that must agree with jws/tokens.json.

It uses nothing the generator made the tokens with, only the files: Python's json (with a hook
that refuses a key twice), its own strict base64, `cryptography` for every signature (the
token's ES256 and the certificates'), and its own statement of the rules (README, "Rules
assumed by the outcomes"). For every case it finds the defects in the order of those rules and
checks that the first is the manifest's code and that a token has exactly the defects the
manifest declares; then each hostile file's specific defect is probed, and `openssl verify`
accepts the chain of every token that verifies, at its date.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import shutil
import subprocess
import tempfile
from decimal import Decimal
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

UNREADABLE = {"malformedToken", "invalidJSON", "duplicateKey", "tooLarge", "wrongValueType"}
MAX_SIZE, MAX_DEPTH = 1 << 20, 64
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
LEAF_OID, INTERMEDIATE_OID = "1.2.840.113635.100.6.11.1", "1.2.840.113635.100.6.2.1"


class Unreadable(Exception):
    def __init__(self, code: str, why: str):
        super().__init__(f"{code}: {why}")
        self.code = code


# --- syntax

def b64url_strict(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        raise Unreadable("malformedToken", "not base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if base64.urlsafe_b64encode(data).rstrip(b"=").decode() != text:
        raise Unreadable("malformedToken", "non-canonical base64url")
    return data


def b64std_strict(text: str) -> bytes | None:
    if len(text) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", text):
        return None
    data = base64.b64decode(text)
    return data if base64.b64encode(data).decode() == text else None


def no_duplicates(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Unreadable("duplicateKey", f"{keys}")
    return dict(pairs)


def reject_constant(name: str):
    raise Unreadable("invalidJSON", name)


def depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def json_strict(data: bytes, utf8_code: str = "malformedToken") -> object:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unreadable(utf8_code, "not UTF-8")
    try:
        value = json.loads(text, object_pairs_hook=no_duplicates, parse_float=Decimal,
                           parse_constant=reject_constant)
    except json.JSONDecodeError as e:
        raise Unreadable("invalidJSON", str(e))
    if depth(value) > MAX_DEPTH:
        raise Unreadable("invalidJSON", "too deep")
    return value


# --- payload kinds and member types

RENEWAL_MEMBERS = ("autoRenewStatus", "autoRenewProductId", "renewalDate", "expirationIntent", "priceIncreaseStatus",
                   "isInBillingRetryPeriod", "gracePeriodExpiresDate", "recentSubscriptionStartDate", "renewalPrice",
                   "eligibleWinBackOfferIds")


def kind_of(payload: dict) -> str | None:
    if "notificationType" in payload:
        return "notification"
    if any(k in payload for k in ("receiptType", "receiptCreationDate", "originalApplicationVersion",
                                  "applicationVersion")):
        return "appTransaction"
    if "transactionId" in payload:
        return "transaction"
    if any(k in payload for k in RENEWAL_MEMBERS):
        return "renewalInfo"
    return None


S, NUM, B, OBJ, ARR = str, "number", bool, dict, list
COMMON = {"originalTransactionId": S, "productId": S, "signedDate": NUM, "environment": S, "offerType": NUM,
          "offerIdentifier": S, "currency": S, "offerDiscountType": S, "appAccountToken": S, "appTransactionId": S,
          "offerPeriod": S, "advancedCommerceInfo": OBJ, "commitmentInfo": OBJ}
TYPES = {
    "transaction": COMMON | {
        "transactionId": S, "webOrderLineItemId": S, "bundleId": S, "subscriptionGroupIdentifier": S,
        "purchaseDate": NUM, "originalPurchaseDate": NUM, "expiresDate": NUM, "quantity": NUM, "type": S,
        "inAppOwnershipType": S, "revocationReason": NUM, "revocationDate": NUM, "isUpgraded": B, "storefront": S,
        "storefrontId": S, "transactionReason": S, "price": NUM, "revocationType": S, "revocationPercentage": NUM,
        "billingPlanType": S},
    "renewalInfo": COMMON | {
        "expirationIntent": NUM, "autoRenewProductId": S, "autoRenewStatus": NUM, "isInBillingRetryPeriod": B,
        "priceIncreaseStatus": NUM, "gracePeriodExpiresDate": NUM, "recentSubscriptionStartDate": NUM,
        "renewalDate": NUM, "renewalPrice": NUM, "eligibleWinBackOfferIds": ARR, "renewalBillingPlanType": S},
    "appTransaction": {
        "receiptType": S, "appAppleId": NUM, "bundleId": S, "applicationVersion": S, "versionExternalIdentifier": NUM,
        "receiptCreationDate": NUM, "originalPurchaseDate": NUM, "originalApplicationVersion": S,
        "deviceVerification": S, "deviceVerificationNonce": S, "preorderDate": NUM, "appTransactionId": S,
        "originalPlatform": S},
    "notification": {"notificationType": S, "subtype": S, "notificationUUID": S, "version": S, "signedDate": NUM,
                     "data": OBJ, "summary": OBJ, "externalPurchaseToken": OBJ, "appData": OBJ},
    "data": {"environment": S, "appAppleId": NUM, "bundleId": S, "bundleVersion": S, "signedTransactionInfo": S,
             "signedRenewalInfo": S, "status": NUM, "consumptionRequestReason": S},
    "summary": {"environment": S, "appAppleId": NUM, "bundleId": S, "productId": S, "requestIdentifier": S,
                "storefrontCountryCodes": ARR, "succeededCount": NUM, "failedCount": NUM},
    "externalPurchaseToken": {"externalPurchaseId": S, "tokenCreationDate": NUM, "appAppleId": NUM, "bundleId": S},
    "appData": {"appAppleId": NUM, "bundleId": S, "environment": S, "signedAppTransactionInfo": S},
}
BODY_MEMBERS = ("data", "summary", "externalPurchaseToken", "appData")


INT32 = {"quantity", "offerType", "revocationReason", "revocationPercentage", "expirationIntent",
         "autoRenewStatus", "priceIncreaseStatus", "status"}
# Milliseconds from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z: instants RFC 3339 can write.
READABLE_MS = (Decimal(-62_167_219_200_000), Decimal(253_402_300_799_999))


def number_fits(key: str, value: Decimal) -> bool:
    """Dates (a fraction of a millisecond allowed) in the years 0000-9999; Int32 and Int64 fields whole."""
    if key.endswith("Date"):
        return READABLE_MS[0] <= value <= READABLE_MS[1]
    bits = 31 if key in INT32 else 63
    return value == value.to_integral_value() and -(2 ** bits) <= value < 2 ** bits


def check_types(obj: dict, kind: str) -> None:
    for key, expected in TYPES[kind].items():
        value = obj.get(key)
        if value is None:
            continue
        fits = (isinstance(value, (int, Decimal)) and not isinstance(value, bool)) if expected == NUM \
            else isinstance(value, expected)
        if not fits:
            raise Unreadable("wrongValueType", f"{key} is {type(value).__name__}")
        if expected == NUM and not number_fits(key, Decimal(value)):
            raise Unreadable("wrongValueType", f"{key} is {value}, out of its range")
    if kind == "notification":
        for member in BODY_MEMBERS:
            if isinstance(obj.get(member), dict):
                check_types(obj[member], member)


def notification_body(payload: dict) -> dict:
    return next((payload[m] for m in BODY_MEMBERS if isinstance(payload.get(m), dict)), {})


def identity(payload: dict, kind: str | None) -> dict:
    """bundleId / environment / appAppleId where the kind has them (absent: None; not applicable: missing)."""
    if kind == "transaction":
        return {"bundle": payload.get("bundleId"), "environment": payload.get("environment")}
    if kind == "renewalInfo":
        return {"environment": payload.get("environment")}
    if kind == "appTransaction":
        return {"bundle": payload.get("bundleId"), "environment": payload.get("receiptType"),
                "appAppleId": payload.get("appAppleId")}
    if kind == "notification":
        body = notification_body(payload)
        out = {"bundle": body.get("bundleId"), "appAppleId": body.get("appAppleId")}
        if "externalPurchaseToken" not in payload:
            out["environment"] = body.get("environment")
        return out
    return {}


# --- one token

def millis(value: object) -> Decimal | None:
    return None if value is None else Decimal(value)


class Verifier:
    def __init__(self, out: Path, options: dict):
        self.options = options
        self.storekit = bool(options.get("storekit_testing"))
        anchor = "pki/jws-storekit.der" if self.storekit else options.get("root", "pki/jws-root.der")
        self.anchor = (out / anchor).read_bytes()
        self.at = options.get("at")
        self.chains: list[tuple[list[bytes], Decimal]] = []  # verified chains and their dates, for openssl

    def token(self, text: str, expected_kind: str | None, defects: list[str]) -> dict | None:
        """Reads and checks one token, appending every broken rule to `defects` in the order of the
        rules; raises Unreadable for what cannot be read. Returns the payload."""
        text = text.strip(" \t\r\n")
        if len(text.encode()) > MAX_SIZE:
            raise Unreadable("tooLarge", "over 1 MiB")
        segments = text.split(".")
        if len(segments) != 3:
            raise Unreadable("malformedToken", f"{len(segments)} parts")
        header_bytes, payload_bytes, signature = (b64url_strict(s) for s in segments)
        header, payload = json_strict(header_bytes), json_strict(payload_bytes)
        if not isinstance(header, dict) or not isinstance(payload, dict):
            raise Unreadable("malformedToken", "not an object")
        kind = kind_of(payload)
        if kind is not None:
            check_types(payload, kind)
        start = len(defects)
        if header.get("alg") != "ES256":
            defects.append("unsupportedSignatureAlgorithm")
        if "crit" in header:
            defects.append("unsupportedCriticalHeader")
        certs = self.chain(header.get("x5c"), defects)
        if certs:
            self.signature(certs[0], (segments[0] + "." + segments[1]).encode(), signature, defects)
        if kind is None or (expected_kind is not None and kind != expected_kind):
            defects.append("wrongKind")
        date = self.date(payload, kind, defects)
        if certs and date is not None:
            moment = dt.datetime.fromtimestamp(0, dt.timezone.utc) + dt.timedelta(milliseconds=float(date))
            for cert in certs:
                if not cert.not_valid_before_utc <= moment <= cert.not_valid_after_utc:
                    defects.append("certificateNotValidAtTime")
                    break
        if kind == "notification":
            self.nested(payload, defects)
        if len(defects) == start and certs:
            self.chains.append(([c.public_bytes(serialization.Encoding.DER) for c in certs], date))
        return payload

    def chain(self, x5c: object, defects: list[str]) -> list[x509.Certificate]:
        count = 1 if self.storekit else 3
        if not isinstance(x5c, list) or len(x5c) != count:
            defects.append("untrustedChain")
            return []
        ders = [b64std_strict(e) if isinstance(e, str) else None for e in x5c]
        certs = []
        for der in ders:
            try:
                cert = x509.load_der_x509_certificate(der) if der else None
            except ValueError:
                cert = None
            if cert is None or cert.public_bytes(serialization.Encoding.DER) != der:
                defects.append("invalidCertificate")
                return []
            certs.append(cert)
        if ders[-1] != self.anchor:
            defects.append("untrustedChain")
        if self.storekit:
            return certs
        leaf, inter, root = certs
        if not (issued(inter, root) and is_ca(inter) and issued(leaf, inter)):
            defects.append("untrustedChain")
        if not (has(leaf, LEAF_OID) and has(inter, INTERMEDIATE_OID)):
            defects.append("missingAppleExtension")
        key = leaf.public_key()
        if not (isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1)):
            defects.append("keyNotAllowed")
        return certs

    @staticmethod
    def signature(cert: x509.Certificate, signed: bytes, signature: bytes, defects: list[str]) -> None:
        key = cert.public_key()
        r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
        try:
            if not (isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1)):
                raise InvalidSignature
            if len(signature) != 64 or not (0 < r < N and 0 < s < N):
                raise InvalidSignature
            key.verify(encode_dss_signature(r, s), signed, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            defects.append("signatureInvalid")

    def date(self, payload: dict, kind: str | None, defects: list[str]) -> Decimal | None:
        if self.at:
            return Decimal(int(dt.datetime.fromisoformat(self.at.replace("Z", "+00:00")).timestamp() * 1000))
        value = millis(payload.get("receiptCreationDate" if kind == "appTransaction" else "signedDate"))
        if value is None:
            defects.append("missingSignedDate")
        return value

    def nested(self, payload: dict, defects: list[str]) -> None:
        outer = identity(payload, "notification")
        places = [(payload.get("data"), "signedTransactionInfo", "transaction"),
                  (payload.get("data"), "signedRenewalInfo", "renewalInfo"),
                  (payload.get("appData"), "signedAppTransactionInfo", "appTransaction")]
        inners = []
        for holder, member, kind in places:
            if not isinstance(holder, dict) or holder.get(member) is None:
                continue
            inner = self.token(holder[member], kind, defects)
            inners.append(inner)
            found = identity(inner, kind_of(inner))
            for field, code in (("bundle", "appIdentityMismatch"), ("environment", "environmentMismatch"),
                                ("appAppleId", "appIdentityMismatch")):
                if found.get(field) is not None and outer.get(field) is not None and found[field] != outer[field]:
                    defects.append(code)
        if all(isinstance(i, dict) for i in inners):
            agreement([payload, *inners], defects)

    def checks(self, payload: dict, defects: list[str]) -> None:
        found = identity(payload, kind_of(payload))
        for option, field, code in (("expect_bundle_id", "bundle", "appIdentityMismatch"),
                                    ("expect_environment", "environment", "environmentMismatch"),
                                    ("expect_app_apple_id", "appAppleId", "appIdentityMismatch")):
            if option in self.options and field in found and found[field] != self.options[option]:
                defects.append(code)


def issued(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        return True
    except (ValueError, TypeError, InvalidSignature):
        return False


def is_ca(cert: x509.Certificate) -> bool:
    try:
        return cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        return False


def has(cert: x509.Certificate, dotted: str) -> bool:
    return any(e.oid.dotted_string == dotted for e in cert.extensions)


def agreement(payloads: list[dict], defects: list[str]) -> None:
    """The tokens of one body: one bundle id, environment and App Apple ID where they carry one
    (the first that carries it decides), and renewal info of a transaction beside it."""
    found = [identity(p, kind_of(p)) for p in payloads]
    for field, code in (("environment", "environmentMismatch"), ("bundle", "appIdentityMismatch"),
                        ("appAppleId", "appIdentityMismatch")):
        values = [f[field] for f in found if f.get(field) is not None]
        if any(v != values[0] for v in values):
            defects.append(code)
    originals = {p.get("originalTransactionId") for p in payloads if kind_of(p) == "transaction"}
    if originals and any(kind_of(p) == "renewalInfo" and p.get("originalTransactionId") not in originals
                         for p in payloads):
        defects.append("appIdentityMismatch")


SIGNED_MEMBERS = {"signedPayload": "notification", "signedTransactionInfo": "transaction",
                  "signedRenewalInfo": "renewalInfo", "signedAppTransactionInfo": "appTransaction"}


def run_case(out: Path, entry: dict) -> tuple[str | None, list[str], Verifier]:
    """(the first code, every defect found) of one case."""
    data = (out / "jws" / entry["file"]).read_bytes()
    verifier = Verifier(out, entry["options"])
    defects: list[str] = []
    try:
        text = data.decode("utf-8")
        if entry["input"] == "body":
            body = json_strict(data, "invalidJSON")
            tokens = []
            for key, value in body.items():
                if key == "signedTransactions":
                    tokens += [(v, "transaction") for v in value]
                elif key in SIGNED_MEMBERS:
                    tokens.append((value, SIGNED_MEMBERS[key]))
        else:
            tokens = [(text, entry["options"].get("as_kind"))]
        payloads = []
        for token, kind in tokens:
            payload = verifier.token(token, kind, defects)
            if not defects:
                verifier.checks(payload, defects)
            if defects:
                break
            payloads.append(payload)
        if not defects:
            agreement(payloads, defects)
    except Unreadable as e:
        return e.code, [e.code], verifier
    except UnicodeDecodeError:
        return "malformedToken", ["malformedToken"], verifier
    return (defects[0] if defects else None), defects, verifier


# --- each hostile file's own defect

def parts_of(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").strip(" \t\r\n").split(".")


def seg(data: bytes, i: int) -> bytes:
    text = parts_of(data)[i]
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def header(data: bytes) -> dict:
    return json.loads(seg(data, 0))


def payload_text(data: bytes) -> bytes:
    return seg(data, 1)


def first_dup(raw: bytes) -> list[str]:
    found: list[str] = []

    def hook(pairs):
        keys = [k for k, _ in pairs]
        found.extend(k for k in set(keys) if keys.count(k) > 1)
        return dict(pairs)
    json.loads(raw, object_pairs_hook=hook)
    return found


def sig(data: bytes) -> bytes:
    return seg(data, 2)


def is_der(b: bytes) -> bool:
    try:
        decode_dss_signature(b)
        return True
    except ValueError:
        return False


def x5c_of(data: bytes) -> list:
    return header(data)["x5c"]


def cert_name(data: bytes, index: int) -> str:
    return x509.load_der_x509_certificate(base64.b64decode(x5c_of(data)[index])).subject.rfc4514_string()


def nested_payload(data: bytes, member: str = "signedTransactionInfo") -> dict:
    return json.loads(seg(json.loads(payload_text(data))["data"][member].encode(), 1))


def pl(data: bytes) -> dict:
    return json.loads(payload_text(data))


def token_payload(token: str) -> dict:
    return json.loads(seg(token.encode(), 1))


def app_nested(data: bytes) -> dict:
    return token_payload(pl(data)["appData"]["signedAppTransactionInfo"])


def member_kind(data: bytes, member: str) -> str | None:
    return kind_of(token_payload(json.loads(data)[member]))


def es256_valid(token: str) -> bool:
    """Whether the token's signature verifies with its x5c[0]'s key (nothing else is checked)."""
    h, p, _ = token.split(".")
    key = x509.load_der_x509_certificate(base64.b64decode(header(token.encode())["x5c"][0])).public_key()
    raw = sig(token.encode())
    try:
        key.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                   f"{h}.{p}".encode(), ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def leaf_key(data: bytes):
    return x509.load_der_x509_certificate(base64.b64decode(x5c_of(data)[0])).public_key()


def signing_input(data: bytes) -> bytes:
    h, p, _ = parts_of(data)
    return f"{h}.{p}".encode()


def signed_by_leaf(data: bytes, raw: bytes | None = None) -> bool:
    """Whether the token's signature (or `raw`) verifies with x5c[0]'s key over its signing input."""
    return verifies(leaf_key(data), signing_input(data), sig(data) if raw is None else raw)


def verifies(key, message: bytes, raw: bytes, digest: hashes.HashAlgorithm | None = None) -> bool:
    """Whether `raw` (r ‖ s, or DER) is a valid ECDSA signature of `message` by `key`."""
    der = raw if is_der(raw) else encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(digest or hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def cert_key(out: Path, name: str):
    return x509.load_der_x509_certificate((out / "pki" / f"{name}.der").read_bytes()).public_key()


def jwk_key(jwk: dict):
    coordinate = lambda c: int.from_bytes(base64.urlsafe_b64decode(jwk[c] + "=" * (-len(jwk[c]) % 4)), "big")
    return ec.EllipticCurvePublicNumbers(coordinate("x"), coordinate("y"), ec.SECP256R1()).public_key()


def nested_token(data: bytes, member: str = "signedTransactionInfo") -> str:
    return pl(data)["data"][member]


def high_s(data: bytes) -> bool:
    return int.from_bytes(sig(data)[32:], "big") > N // 2


PROBES = {
    "whitespace-around.jws": lambda d: d != d.strip() and d.strip().count(b".") == 2,
    "depth-64.jws": lambda d: depth(json.loads(payload_text(d))) == 64,
    "size-at-limit.jws": lambda d: len(d) == MAX_SIZE,
    "signature-high-s.jws": high_s,
    "signature-r-leading-zero.jws": lambda d: sig(d)[0] == 0,
    "signature-s-leading-zero.jws": lambda d: sig(d)[32] == 0,
    "pretty-json.jws": lambda d: b"\n  " in payload_text(d) and b"\n  " in seg(d, 0),
    "transaction-escaped-members.jws": lambda d: b'"\\u0062undleId"' in payload_text(d) and b"\\/" in payload_text(d),
    "transaction-fractional-ms.jws": lambda d: b'"signedDate":1748779200123.485' in payload_text(d),
    "transaction-look-alike-keys.jws": lambda d: "caf\u00e9" in json.loads(payload_text(d))
    and "cafe\u0301" in json.loads(payload_text(d)),
    "header-extra-fields.jws": lambda d: {"kid", "jwk", "jku", "x5u", "x5t#S256"} <= set(header(d)),
    "parts-two.jws": lambda d: len(parts_of(d)) == 2,
    "parts-trailing-dot.jws": lambda d: len(parts_of(d)) == 4 and parts_of(d)[3] == "",
    "parts-four.jws": lambda d: len(parts_of(d)) == 4 and parts_of(d)[2] == parts_of(d)[3],
    "padding.jws": lambda d: parts_of(d)[2].endswith("=="),
    "base64-plus.jws": lambda d: "+" in parts_of(d)[1] and "-" not in parts_of(d)[1],
    "base64-slash.jws": lambda d: "/" in parts_of(d)[1] and "_" not in parts_of(d)[1],
    "space-inside.jws": lambda d: " " in parts_of(d)[1],
    "line-break-inside.jws": lambda d: "\n" in parts_of(d)[2],
    "crlf-before-dot.jws": lambda d: parts_of(d)[0].endswith("\r\n"),
    "zero-width-space.jws": lambda d: "\u200b" in d.decode(),
    "nul-after-token.jws": lambda d: d.endswith(b"\x00\n"),
    "part-length.jws": lambda d: len(parts_of(d)[2]) % 4 == 1,
    "non-canonical-bits.jws": lambda d: parts_of(d)[2] != base64.urlsafe_b64encode(sig(d)).rstrip(b"=").decode(),
    "utf8-latin1-payload.jws": lambda d: b"caf\xe9\"" in payload_text(d),
    "utf8-overlong-payload.jws": lambda d: b"\xc0\xaf" in payload_text(d),
    "utf8-surrogate-payload.jws": lambda d: b"\xed\xa0\x80" in payload_text(d),
    "utf8-header.jws": lambda d: b"\xff" in seg(d, 0),
    "json-header-trailing-comma.jws": lambda d: seg(d, 0).endswith(b",}"),
    "json-payload-nan.jws": lambda d: b'"price":NaN' in payload_text(d),
    "json-payload-bom.jws": lambda d: payload_text(d).startswith(b"\xef\xbb\xbf{"),
    "json-payload-trailing.jws": lambda d: payload_text(d).endswith(b"} {}"),
    "json-payload-array.jws": lambda d: isinstance(json.loads(payload_text(d)), list),
    "json-header-string.jws": lambda d: json.loads(seg(d, 0)) == "ES256",
    "duplicate-header-alg.jws": lambda d: first_dup(seg(d, 0)) == ["alg"],
    "duplicate-header-escaped.jws": lambda d: first_dup(seg(d, 0)) == ["alg"] and b'"\\u0061lg"' in seg(d, 0),
    "duplicate-payload-bundle-id.jws": lambda d: first_dup(payload_text(d)) == ["bundleId"],
    "duplicate-payload-escaped.jws": lambda d: first_dup(payload_text(d)) == ["bundleId"]
    and b'"\\u0062undleId"' in payload_text(d),
    "duplicate-nested-object.jws": lambda d: first_dup(payload_text(d)) == ["commitmentPrice"],
    "duplicate-in-array.jws": lambda d: first_dup(payload_text(d)) == ["price"],
    "depth-65.jws": lambda d: depth(json.loads(payload_text(d))) == 65,
    "depth-65-header.jws": lambda d: depth(header(d)) == 65,
    "size-over-limit.jws": lambda d: len(d) == MAX_SIZE + 1,
    "alg-none.jws": lambda d: header(d)["alg"] == "none" and signed_by_leaf(d),
    "alg-es384.jws": lambda d: header(d)["alg"] == "ES384",
    "alg-lowercase.jws": lambda d: header(d)["alg"] == "es256",
    "alg-not-a-string.jws": lambda d: header(d)["alg"] == ["ES256"],
    "alg-escapes.jws": lambda d: header(d)["alg"].startswith("ES256\x1b["),
    "alg-missing.jws": lambda d: "alg" not in header(d),
    "alg-none-empty-signature.jws": lambda d: header(d)["alg"] == "none" and parts_of(d)[2] == "",
    "alg-hs256.jws": lambda d: header(d)["alg"] == "HS256" and len(sig(d)) == 32,
    "crit-b64.jws": lambda d: header(d)["crit"] == ["b64"] and header(d)["b64"] is False,
    "crit-unknown.jws": lambda d: header(d)["crit"] == ["com.example.future"],
    "crit-empty.jws": lambda d: header(d)["crit"] == [],
    "jwk-attacker.jws": lambda d: verifies(jwk_key(header(d)["jwk"]), signing_input(d), sig(d)),
    "x5c-missing.jws": lambda d: "x5c" not in header(d),
    "x5c-empty.jws": lambda d: x5c_of(d) == [],
    "x5c-one.jws": lambda d: len(x5c_of(d)) == 1,
    "x5c-two.jws": lambda d: len(x5c_of(d)) == 2,
    "x5c-four.jws": lambda d: len(x5c_of(d)) == 4,
    "x5c-not-an-array.jws": lambda d: isinstance(x5c_of(d), str),
    "x5c-not-strings.jws": lambda d: x5c_of(d)[1] == 5,
    "x5c-base64url.jws": lambda d: re.search("[-_]", x5c_of(d)[0]) is not None,
    "x5c-line-breaks.jws": lambda d: "\n" in x5c_of(d)[0],
    "x5c-no-padding.jws": lambda d: any(len(e) % 4 for e in x5c_of(d)),
    "x5c-non-canonical-bits.jws": lambda d: any(base64.b64encode(base64.b64decode(e)).decode() != e
                                                for e in x5c_of(d)),
    "x5c-trailing-bytes.jws": lambda d: base64.b64decode(x5c_of(d)[0]).endswith(b"\x00\x00"),
    "x5c-not-der.jws": lambda d: base64.b64decode(x5c_of(d)[0]) == b"this is not a certificate",
    "root-twin.jws": lambda d: cert_name(d, 2).startswith("CN=ReceiptParser Test Root CA - G3"),
    "attacker-chain.jws": lambda d: cert_name(d, 2).startswith("CN=Attacker"),
    "attacker-chain-real-root.jws": lambda d: cert_name(d, 1).startswith("CN=Attacker"),
    "intermediate-not-ca.jws": lambda d: cert_name(d, 1).split(",")[0].endswith("Not CA"),
    "intermediate-no-basic-constraints.jws": lambda d: cert_name(d, 1).split(",")[0].endswith("No BC"),
    "intermediate-no-oid.jws": lambda d: cert_name(d, 1).split(",")[0].endswith("No OID"),
    "leaf-no-oid.jws": lambda d: cert_name(d, 0).split(",")[0].endswith("No OID"),
    "leaf-by-root.jws": lambda d: cert_name(d, 0).split(",")[0].endswith("By Root"),
    "swapped-order.jws": lambda d: "WWDR" in cert_name(d, 0) and "Receipt Signing" in cert_name(d, 1),
    "leaf-p384.jws": lambda d: len(sig(d)) == 96,
    "leaf-rsa.jws": lambda d: len(sig(d)) == 256,
    "tampered-leaf.jws": lambda d: "Receipt SigninG" in cert_name(d, 0) and signed_by_leaf(d),
    "tampered-intermediate.jws": lambda d: x509.load_der_x509_certificate(base64.b64decode(x5c_of(d)[1]))
    .not_valid_before_utc.day == 2,
    "forged-leaf.jws": lambda d: "Receipt Signing" in cert_name(d, 0) and signed_by_leaf(d),
    "xcode-other-certificate.jws": lambda d: len(x5c_of(d)) == 1,
    "signature-der.jws": lambda d: is_der(sig(d)) and signed_by_leaf(d),
    "signature-63-bytes.jws": lambda d: len(sig(d)) == 63,
    "signature-65-bytes.jws": lambda d: len(sig(d)) == 65 and sig(d)[-1] == 0,
    "signature-empty.jws": lambda d: parts_of(d)[2] == "",
    "signature-flipped-bit.jws": lambda d: signed_by_leaf(d, sig(d)[:-1] + bytes([sig(d)[-1] ^ 1])),
    "signature-zero.jws": lambda d: sig(d) == bytes(64),
    "signature-s-equals-n.jws": lambda d: int.from_bytes(sig(d)[32:], "big") == N,
    "signature-payload-only.jws": lambda d: verifies(leaf_key(d), parts_of(d)[1].encode(), sig(d)),
    "signature-decoded-json.jws": lambda d: verifies(leaf_key(d), seg(d, 0) + b"." + seg(d, 1), sig(d)),
    "signature-sha384.jws": lambda d: verifies(leaf_key(d), signing_input(d), sig(d), hashes.SHA384()),
    "tampered-payload.jws": lambda d: json.loads(payload_text(d))["price"] == 1,
    "xcode-bad-signature.jws": lambda d: header(d)["kid"] == "Apple_Xcode_Key",
    "expired-leaf.jws": lambda d: json.loads(payload_text(d))["signedDate"] == 1798761600001,
    "not-yet-valid-leaf.jws": lambda d: json.loads(payload_text(d))["signedDate"] == 1704067199999,
    "expired-intermediate.jws": lambda d: "Expired" in cert_name(d, 1),
    "no-signed-date.jws": lambda d: "signedDate" not in json.loads(payload_text(d)),
    "app-transaction-no-date.jws": lambda d: "receiptCreationDate" not in json.loads(payload_text(d)),
    "xcode-expired.jws": lambda d: str(json.loads(payload_text(d), parse_float=Decimal)["signedDate"])
    .startswith("1780315200"),
    "no-kind.jws": lambda d: kind_of(json.loads(payload_text(d))) is None,
    "nested-no-signed-date.jws": lambda d: "signedDate" not in nested_payload(d),
    "nested-renewal-as-transaction.jws": lambda d: kind_of(nested_payload(d)) == "renewalInfo",
    "nested-transaction-as-renewal.jws": lambda d: kind_of(nested_payload(d, "signedRenewalInfo")) == "transaction",
    "nested-notification-as-transaction.jws": lambda d: kind_of(nested_payload(d)) == "notification",
    "nested-bundle-id-mismatch.jws": lambda d: nested_payload(d)["bundleId"] == "com.example.other",
    "nested-environment-mismatch.jws": lambda d: nested_payload(d)["environment"] == "Production",
    "nested-renewal-environment-mismatch.jws": lambda d: nested_payload(d, "signedRenewalInfo")["environment"]
    == "Production",
    "nested-malformed.jws": lambda d: json.loads(payload_text(d))["data"]["signedTransactionInfo"] == "abc.def",
    "nested-duplicate-key.jws": lambda d: first_dup(seg(json.loads(payload_text(d))["data"]["signedTransactionInfo"]
                                                        .encode(), 1)) == ["bundleId"],
    "type-signed-date-string.jws": lambda d: isinstance(pl(d)["signedDate"], str),
    "type-price-string.jws": lambda d: isinstance(pl(d)["price"], str),
    "type-signed-date-huge.jws": lambda d: pl(d)["signedDate"] > READABLE_MS[1],
    "type-expires-date-year-10000.jws": lambda d: pl(d)["expiresDate"] > READABLE_MS[1],
    "type-price-fraction.jws": lambda d: pl(d)["price"] != int(pl(d)["price"]),
    "type-quantity-overflow.jws": lambda d: pl(d)["quantity"] >= 2 ** 31,
    "type-bundle-id-number.jws": lambda d: pl(d)["bundleId"] == 42,
    "type-transaction-id-number.jws": lambda d: isinstance(pl(d)["transactionId"], int),
    "type-is-upgraded-string.jws": lambda d: pl(d)["isUpgraded"] == "false",
    "type-commitment-info-array.jws": lambda d: pl(d)["commitmentInfo"] == [],
    "type-auto-renew-status-string.jws": lambda d: pl(d)["autoRenewStatus"] == "1",
    "type-receipt-creation-date-string.jws": lambda d: isinstance(pl(d)["receiptCreationDate"], str),
    "type-notification-data-string.jws": lambda d: isinstance(pl(d)["data"], str),
    "type-app-apple-id-string.jws": lambda d: isinstance(pl(d)["data"]["appAppleId"], str),
    "type-nested-token-number.jws": lambda d: pl(d)["data"]["signedTransactionInfo"] == 5,
    "nested-bad-signature.jws": lambda d: es256_valid(d.decode().strip()) and not es256_valid(nested_token(d)),
    "nested-untrusted.jws": lambda d: header(nested_token(d).encode())["x5c"][2] != x5c_of(d)[2],
    "nested-expired.jws": lambda d: nested_payload(d, "signedRenewalInfo")["signedDate"] == 1798761600001,
    "nested-alg-none.jws": lambda d: header(nested_token(d).encode())["alg"] == "none",
    "nested-app-data-holds-transaction.jws": lambda d: kind_of(app_nested(d)) == "transaction",
    "nested-app-apple-id-mismatch.jws": lambda d: app_nested(d)["appAppleId"] != pl(d)["appData"]["appAppleId"],
    "nested-app-environment-mismatch.jws": lambda d: (app_nested(d)["receiptType"], pl(d)["appData"]["environment"])
    == ("Sandbox", "Production"),
    "body-one-bad-transaction.json": lambda d: es256_valid(json.loads(d)["signedTransactions"][0])
    and not es256_valid(json.loads(d)["signedTransactions"][1]),
    "body-renewal-in-transaction-info.json": lambda d: member_kind(d, "signedTransactionInfo") == "renewalInfo",
    "body-transaction-in-renewal-info.json": lambda d: member_kind(d, "signedRenewalInfo") == "transaction",
    "body-transaction-in-signed-payload.json": lambda d: member_kind(d, "signedPayload") == "transaction",
    "body-transaction-in-app-transaction-info.json": lambda d: member_kind(d, "signedAppTransactionInfo")
    == "transaction",
    "body-status-environment-mismatch.json": lambda d: token_payload(json.loads(d)["signedRenewalInfo"])
    ["environment"] == "Production",
    "body-history-bundle-id-mismatch.json": lambda d: token_payload(json.loads(d)["signedTransactions"][1])
    ["bundleId"] == "com.example.other",
    "body-status-renewal-of-another.json": lambda d: token_payload(json.loads(d)["signedRenewalInfo"])
    ["originalTransactionId"] != token_payload(json.loads(d)["signedTransactionInfo"])["originalTransactionId"],
    "body-duplicate-signed-payload.json": lambda d: first_dup(d) == ["signedPayload"],
    "body-duplicate-escaped.json": lambda d: first_dup(d) == ["signedTransactionInfo"] and b"\\u0073igned" in d,
    "body-duplicate-other-member.json": lambda d: first_dup(d) == ["revision"],
    "body-depth-65.json": lambda d: depth(json.loads(d)) == 65,
    "body-one-malformed-transaction.json": lambda d: json.loads(d)["signedTransactions"][1] == "abc.def",
}

# Probes that read the PKI or another fixture too.
OUT_PROBES = {
    "signature-transplanted.jws": lambda d, out: sig(d) == sig((out / "jws" / "transaction.jws").read_bytes()),
    "signature-other-key.jws": lambda d, out: verifies(cert_key(out, "jws-attacker-leaf"), signing_input(d), sig(d)),
    "forged-leaf.jws": lambda d, out: leaf_key(d) == cert_key(out, "jws-attacker-leaf"),
    "root-twin.jws": lambda d, out: base64.b64decode(x5c_of(d)[2]) != (out / "pki" / "jws-root.der").read_bytes()
    and cert_key(out, "jws-root") == x509.load_der_x509_certificate(base64.b64decode(x5c_of(d)[2])).public_key(),
}


# --- openssl, on the chains that verify

def openssl_chains(chains: dict[tuple, bool]) -> bool:
    exe = shutil.which("openssl")
    if exe is None:
        print("  openssl not found; chain cross-check skipped")
        return True
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def pem(name: str, der: bytes) -> str:
            path = folder / name
            path.write_bytes(x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM))
            return str(path)
        for ders, date in chains:
            anchor = pem("anchor.pem", ders[-1])
            attime = int(date) // 1000
            if any(x509.load_der_x509_certificate(d).not_valid_after_utc.timestamp() == attime for d in ders):
                attime -= 1  # OpenSSL's notAfter is exclusive (X509_cmp_time), RFC 5280's inclusive
            args = [exe, "verify", "-x509_strict", "-no-CApath", "-no-CAstore", "-CAfile", anchor,
                    "-attime", str(attime)]
            if len(ders) == 3:
                args += ["-untrusted", pem("untrusted.pem", ders[1])]
            r = subprocess.run([*args, pem("leaf.pem", ders[0])], capture_output=True, text=True)
            if r.returncode != 0:
                ok = False
                print(f"  FAIL openssl verify at {date}: {r.stdout.strip()} {r.stderr.strip()}")
    print(f"  openssl verify -x509_strict: {len(chains)} verified chains at their dates "
          + ("accepted" if ok else "NOT all accepted"))
    return ok


def jws_check(out: Path) -> bool:
    entries = json.loads((out / "jws" / "tokens.json").read_text())
    ok, chains = True, {}
    for entry in entries:
        code, found, verifier = run_case(out, entry)
        declared = [entry["error"], *entry.get("other_errors", [])] if entry["error"] else []
        exit_status = 0 if code is None else 2 if code in UNREADABLE else 1
        if code != entry["error"] or exit_status != entry["exit_status"] or sorted(set(found)) != sorted(declared):
            ok = False
            print(f"  FAIL {entry['file']} {entry['options']}: manifest {entry['error']} + "
                  f"{entry.get('other_errors', [])}, found {found}")
        if code is None:
            for ders, date in verifier.chains:
                chains[tuple(ders), date] = True
    print(f"  independent verifier: {len(entries)} cases " + ("agree with tokens.json" if ok else "DISAGREE"))
    verified = {e["file"] for e in entries if e["error"] is None}
    unprobed = sorted({e["file"] for e in entries} - verified - set(PROBES) - set(OUT_PROBES))
    if unprobed:
        ok = False
        print(f"  FAIL no defect probe for {unprobed}")
    probes = [(f, lambda d, p=p: p(d)) for f, p in PROBES.items()] + [(f, lambda d, p=p: p(d, out))
                                                                      for f, p in OUT_PROBES.items()]
    for file, probe in probes:
        try:
            holds = probe((out / "jws" / file).read_bytes())
        except Exception as e:  # noqa: BLE001 - a probe that cannot even run has failed
            holds, file = False, f"{file} ({e})"
        if not holds:
            ok = False
            print(f"  FAIL defect probe {file}")
    print(f"  defect probes: {len(probes)} on {len(set(PROBES) | set(OUT_PROBES))} files "
          + ("have their defect" if ok else "NOT all"))
    return openssl_chains(chains) and ok

