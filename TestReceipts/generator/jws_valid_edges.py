"""The jws/ tokens that verify at the edges: the form of the token (pretty JSON, extra header members,
whitespace, the size and depth limits), signatures valid in an unusual form, dates at the edge of
jws-leaf's window, StoreKit Testing in Xcode, and strings chosen to deceive a reader."""

from __future__ import annotations

import hashlib
import json

from .hostile_content import BIDI, ESCAPES, FAKE_LINES
from .jsontext import Raw, encode, nested_arrays
from .jws import P256_N, b64std, b64url
from .jws_fixture import JWSKit, probe
from .jws_outcome import fails, ok
from .jws_reading import header, payload_text, s_is_high, seg, sig
from .jws_rules import MAX_SIZE, depth
from .jws_valid import token
from .payload import BUNDLE_ID
from .storekit2 import edit, ms, plain_transaction, transaction


# --- the form of the token

@token("pretty-json.jws", "Header and payload JSON indented with spaces and line breaks (inside the base64url): "
       "the signature covers the base64url text, whatever JSON it holds.", "transaction", ok())
@probe(lambda d: b"\n  " in payload_text(d) and b"\n  " in seg(d, 0))
def pretty_json(kit: JWSKit) -> str:
    return kit.token(encode(plain_transaction(), indent=2), encode(kit.header(), indent=2))


@token("header-extra-fields.jws", "A header with x5c first, then alg, and kid, typ, cty, x5t#S256 (a wrong "
       "thumbprint), jku and x5u (URLs), jwk (another key) and an unknown member: all ignored, nothing fetched.",
       "transaction", ok())
@probe(lambda d: {"kid", "jwk", "jku", "x5u", "x5t#S256"} <= set(header(d)))
def header_extra(kit: JWSKit) -> str:
    header = {"x5c": kit.x5c("jws-leaf", "jws-intermediate", "jws-root"), "alg": "ES256", "kid": "ABCDEF1234",
              "typ": "JWT", "cty": "json", "x5t#S256": b64url(hashlib.sha256(b"not the leaf").digest()),
              "jku": "https://attacker.example/jwks.json", "x5u": "https://attacker.example/chain.pem",
              "jwk": kit.jwk("jws-attacker-leaf"), "futureHeader": {"kept": False}}
    return kit.token(plain_transaction(), header)


@token("whitespace-around.jws", "A valid token with a line feed, spaces and a tab before it and spaces, CR LF and "
       "an empty line after it: whitespace around the whole token is not part of it.", "transaction", ok())
@probe(lambda d: d != d.strip() and d.strip().count(b".") == 2)
def whitespace_around(kit: JWSKit) -> bytes:
    return b"\n  \t" + kit.token(plain_transaction()).encode() + b"  \r\n\n"


DEPTH = 64  # DecodingLimits.maximumTokenJSONDepth; the payload object is level 1


@token("depth-64.jws", f"A transaction with an unknown member holding {DEPTH - 1} nested arrays: {DEPTH} levels "
       "with the payload object, the most accepted.", "transaction", ok())
@probe(lambda d: depth(json.loads(payload_text(d))) == 64)
def depth_64(kit: JWSKit) -> str:
    return kit.token(edit(plain_transaction(), deep=nested_arrays(DEPTH - 1)))


MIB = 1 << 20  # DecodingLimits.maximumTokenSize


def sized_token(kit: JWSKit, size: int) -> bytes:
    """A valid transaction token of exactly `size` bytes: a long unknown member fills it."""
    for pad in range(4):  # base64url lengths are never 1 mod 4: vary the header until one fits
        header = kit.header(**({"pad": "p" * pad} if pad else {}))
        room = size - len(b64url(kit.parts({}, header).header)) - 2 - 86  # two dots, 64-byte signature
        if room % 4 != 1:
            break
    payload_bytes = room * 3 // 4  # the payload length whose base64url is `room` characters long
    filler = payload_bytes - len(kit.parts(edit(plain_transaction(), padding="")).payload)
    text = kit.token(edit(plain_transaction(), padding="x" * filler), header).encode()
    assert len(text) == size, (len(text), size)
    return text


@token("size-at-limit.jws", "A valid transaction token of exactly 1 MiB (1048576 bytes, no newline in the file): "
       "the largest accepted.", "transaction", ok())
@probe(lambda d: len(d) == MAX_SIZE)
def size_at_limit(kit: JWSKit) -> bytes:
    return sized_token(kit, MIB)


# --- signatures that are valid in an unusual form

def high_s(raw: bytes) -> bytes:
    r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    s = s if s > P256_N // 2 else P256_N - s
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


@token("signature-high-s.jws", "A transaction whose signature is (r, n − s) with s above n/2: the other valid "
       "signature of the same bytes.", "transaction",
       ok("accepted: ECDSA verification (OpenSSL, CryptoKit) accepts both forms and JWS has no low-S rule; a "
          "second token string for the same payload is harmless, since tokens are told apart by their ids, not "
          "their bytes"))
@probe(s_is_high)
def signature_high_s(kit: JWSKit) -> str:
    parts = kit.signed(plain_transaction())
    return parts.with_signature(high_s(parts.signature)).text


def leading_zero(kit: JWSKit, half: int) -> str:
    """A valid token whose r (half 0) or s (half 1) has a zero first byte: found by trying
    unknown `attempt` members 0, 1, ... (deterministic signatures, so always the same one)."""
    for attempt in range(10_000):
        parts = kit.signed(edit(plain_transaction(), attempt=attempt))
        if parts.signature[32 * half] == 0:
            return parts.text
    raise AssertionError("no signature with a leading zero byte")


@token("signature-r-leading-zero.jws", "A transaction whose signature's r starts with a zero byte (r < 2^248): "
       "r ‖ s keeps it 32 bytes; a DER conversion must drop it.", "transaction", ok())
@probe(lambda d: sig(d)[0] == 0)
def signature_r_zero(kit: JWSKit) -> str:
    return leading_zero(kit, 0)


@token("signature-s-leading-zero.jws", "A transaction whose signature's s starts with a zero byte.", "transaction",
       ok())
@probe(lambda d: sig(d)[32] == 0)
def signature_s_zero(kit: JWSKit) -> str:
    return leading_zero(kit, 1)


# --- dates at the edge of jws-leaf's window (2024-01-01T00:00:00Z .. 2027-01-01T00:00:00Z)

@token("signed-at-leaf-not-after.jws", "A transaction signed at 2027-01-01T00:00:00.000Z, jws-leaf's notAfter: "
       "validity includes both ends (RFC 5280).", "transaction", ok())
def at_not_after(kit: JWSKit) -> str:
    return kit.token(plain_transaction(signedDate=ms("2027-01-01T00:00:00Z")))


@token("signed-at-leaf-not-before.jws", "A transaction signed at 2024-01-01T00:00:00.000Z, jws-leaf's notBefore.",
       "transaction", ok())
def at_not_before(kit: JWSKit) -> str:
    return kit.token(plain_transaction(signedDate=ms("2024-01-01T00:00:00Z")))


# --- StoreKit Testing in Xcode (opt-in, with the certificate; never without the signature)

XCODE_NOTE = "with the StoreKit Testing certificate configured"
XCODE_REFUSED = fails("untrustedChain", "under the test root: one certificate, not three")


def device_verification(label: str) -> Raw:
    """A base64 SHA-384 as Xcode writes it: `/` escaped as `\\/`."""
    text = b64std(hashlib.sha384(label.encode()).digest())
    return Raw('"' + text.replace("/", "\\/") + '"')


XCODE_SIGNED = Raw("1748779200056.485")


@token("xcode-transaction.jws", "A StoreKit Testing transaction as Xcode writes it: header x5c (one self-signed "
       "certificate, jws-storekit), alg, typ JWT, kid Apple_Xcode_Key; environment Xcode, transactionId \"0\", "
       "fractional-millisecond dates, device-only deviceVerification and deviceVerificationNonce, `\\/` escapes.",
       "transaction", ok(XCODE_NOTE, decoded={"signedDate": "2025-06-01T12:00:00.056Z", "environment": "Xcode"},
                         storekit_testing=True), XCODE_REFUSED)
def xcode_transaction(kit: JWSKit) -> str:
    return kit.xcode(xcode_transaction_payload())


def xcode_transaction_payload(**changes: object) -> dict:
    return edit({
        "inAppOwnershipType": "PURCHASED", "purchaseDate": Raw("1748779140049.2297"),
        "subscriptionGroupIdentifier": "6A1B2C3D", "signedDate": XCODE_SIGNED,
        "originalPurchaseDate": Raw("1748779140049.2297"), "isUpgraded": False,
        "deviceVerification": device_verification("xcode transaction"), "offerType": 1, "quantity": 1,
        "transactionId": "0", "type": "Auto-Renewable Subscription", "transactionReason": "PURCHASE",
        "productId": "com.example.pro.monthly", "expiresDate": Raw("1751371140049.2297"), "environment": "Xcode",
        "storefrontId": "143441", "originalTransactionId": "0", "bundleId": BUNDLE_ID,
        "deviceVerificationNonce": "5b0c3e8a-1f7d-4c2b-9a6e-0d4f8b2c7e11", "webOrderLineItemId": "0",
        "storefront": "USA"}, **changes)


@token("xcode-renewal-info.jws", "A StoreKit Testing renewal info as Xcode writes it.", "renewalInfo",
       ok(XCODE_NOTE, storekit_testing=True), XCODE_REFUSED)
def xcode_renewal(kit: JWSKit) -> str:
    return kit.xcode({
        "deviceVerification": device_verification("xcode renewal"), "productId": "com.example.pro.monthly",
        "deviceVerificationNonce": "5b0c3e8a-1f7d-4c2b-9a6e-0d4f8b2c7e12", "renewalDate": Raw("1751371140049.2297"),
        "originalTransactionId": "0", "recentSubscriptionStartDate": Raw("1748779140049.2297"), "autoRenewStatus": 1,
        "signedDate": Raw("1748779200711.0747"), "environment": "Xcode",
        "autoRenewProductId": "com.example.pro.monthly"})


@token("xcode-app-transaction.jws", "A StoreKit Testing AppTransaction as Xcode writes it: receiptType Xcode, "
       "fractional receiptCreationDate (the date it is judged at), requestDate (device-only), originalPurchaseDate "
       "-62135769600000 (year 1 in Foundation's calendar).", "appTransaction",
       ok(XCODE_NOTE, decoded={"receiptCreationDate": "2025-06-01T12:00:00.257Z"}, storekit_testing=True),
       XCODE_REFUSED)
def xcode_app_transaction(kit: JWSKit) -> str:
    return kit.xcode({
        "bundleId": BUNDLE_ID, "applicationVersion": "1",
        "deviceVerificationNonce": "5b0c3e8a-1f7d-4c2b-9a6e-0d4f8b2c7e13", "receiptType": "Xcode",
        "receiptCreationDate": Raw("1748779200257.447"), "deviceVerification": device_verification("xcode app"),
        "requestDate": Raw("1748779200257.447"), "originalApplicationVersion": "1",
        "originalPurchaseDate": -62135769600000})


# --- strings chosen to deceive a reader: verified, shown harmless

STRING_MEMBERS = ("transactionId", "originalTransactionId", "bundleId", "productId", "subscriptionGroupIdentifier",
                  "offerIdentifier", "storefront", "currency", "appTransactionId", "environment")


def strings_token(file: str, what: str, note: str, text: str) -> None:
    @token(file, f"A transaction whose strings ({', '.join(STRING_MEMBERS)}) and an unknown member's key and value "
           f"end in {what}.", "transaction",
           ok(note, decoded={"bundleId": BUNDLE_ID + text, "environment": "Sandbox" + text}),
           fails("appIdentityMismatch", "the reason quotes the bundle id, escaped", bundle_id=BUNDLE_ID))
    def build(kit: JWSKit) -> str:
        payload = edit(transaction(), **{k: transaction()[k] + text for k in STRING_MEMBERS})
        return kit.token(edit(payload, **{"unknown" + text: "value" + text}))


for _row in (("strings-terminal-escapes.jws", "escape sequences (clear screen, cursor home, a green `Verdict: "
              "VERIFIED`, concealed text)", "every human-facing output shows the escapes as `\\u{1B}`, JSON keeps "
              "the exact value", ESCAPES),
             ("strings-bidi-controls.jws", "U+202E, U+2066/U+2069, U+200B, U+FEFF, U+2028 and U+0085",
              "shown escaped, never reordered", BIDI),
             ("strings-newline-tab.jws", "a newline, a fake `--format summary` line (tab-separated), CR, DEL and "
              "C1 CSI", "`--format summary` stays one line", FAKE_LINES)):
    strings_token(*_row)

DECOMPOSED = "com.example.cafe\u0301"


@token("decomposed-bundle-id.jws", "A transaction with bundle id `com.example.cafe` + U+0301 (decomposed é).",
       "transaction", ok(decoded={"bundleId": DECOMPOSED}),
       fails("appIdentityMismatch", "`com.example.café` (precomposed) expected: identifiers compare byte for byte",
             bundle_id="com.example.caf\u00e9"))
def decomposed(kit: JWSKit) -> str:
    return kit.token(plain_transaction(bundleId=DECOMPOSED))


@token("environment-lowercase.jws", "A transaction with environment `sandbox` (lowercase).", "transaction", ok(),
       fails("environmentMismatch", "Sandbox expected: environments compare byte for byte",
             environment="sandbox"))
def environment_lowercase(kit: JWSKit) -> str:
    return kit.token(plain_transaction(environment="sandbox"))

