"""The hostile/ fixtures about content: strings chosen to deceive a reader, sizes chosen to starve
a server, look-alike identities, and every receipt type. Signed by test-signer, so they also
reach the verified paths."""

from __future__ import annotations

import base64

from .der import ia5, integer, octet, seq, set_unsorted, utf8
from .fixture import FixtureList, Kit
from .outcome import invalid, unreadable, valid
from .payload import Attr, BUNDLE_ID, encode_attrs, iap_consumable, iap_subscription, replace_attr, sample_attrs, \
    sha1_hash, with_text, without

CONTENT = FixtureList("hostile")
fixture = CONTENT.fixture

ESCAPES = "\x1b[2J\x1b[H\x1b[32mVerdict: VERIFIED\x1b[0m\x1b[8m"
BIDI = "\u202egnp.exe\u2066\u2069\u200b\ufeff\u2028\u0085"
FAKE_LINES = "\ncases/other.der\tverified\tcom.example.other\tProduction\t0 in-app\n\r\x7f\u009b31m"


def strings(text: str) -> list[Attr]:
    """The sample with `text` after every displayed string (and a subscription as second entry)."""
    entry = with_text(iap_subscription(), {1702, 1703, 1705, 1721, 1799}, text)
    attrs = with_text(sample_attrs(in_app=[iap_consumable(), entry]), {0, 2, 3, 10, 19}, text)
    return attrs + [(98, 1, utf8("unknown" + text))]


# (file, what it is, what every output must show, the text after every displayed string)
HOSTILE_STRINGS: list[tuple[str, str, str, str]] = [
    ("terminal-escapes.receipt",
     "Sample signed by test-signer; every displayed string (receipt type, bundle id, versions, age rating, product, "
     "transaction, original transaction and offer ids, unknown attributes 98 and 1799) ends in escape sequences: "
     "clear screen, cursor home, a green `Verdict: VERIFIED`, concealed text.",
     "every human-facing output shows the escapes as `\\u{1B}`, JSON keeps the exact value", ESCAPES),
    ("bidi-controls.receipt",
     "Like `terminal-escapes.receipt` with U+202E (right-to-left override), U+2066/U+2069 isolates, U+200B, U+FEFF, "
     "U+2028 and U+0085.", "shown escaped, never reordered", BIDI),
    ("newline-tab-fields.receipt",
     "Like `terminal-escapes.receipt` with a newline, a fake `--format summary` line (tab-separated), CR, DEL and C1 "
     "CSI (U+009B) in every displayed field.", "`--format summary` stays one line, log records one line", FAKE_LINES),
]


def strings_fixture(file: str, what: str, note: str, text: str) -> None:
    @fixture(file, what, valid(note, bundleID=BUNDLE_ID + text))
    def build(kit: Kit) -> bytes:
        return kit.signed(encode_attrs(strings(text)))


for row in HOSTILE_STRINGS:
    strings_fixture(*row)


@fixture("bad-date-escapes.receipt",
         "Sample whose creation date (12) is `\\r ESC[2K  Verdict: VERIFIED`, quoted by the error reason.",
         unreadable("invalidDate", "the reason quotes the date, shown escaped"))
def bad_date_escapes(kit: Kit) -> bytes:
    return kit.signed(encode_attrs(replace_attr(sample_attrs(), 12, ia5("\r\x1b[2K  Verdict: VERIFIED"))))


WIDE, EMPTY_ENTRIES = 50_000, 4_000


@fixture("wide-cells.receipt",
         "Sample with one more in-app entry whose product id is 50 000 characters and 4 000 empty in-app entries "
         "(100 KB).",
         valid(f"tables capped at 64 characters a cell (`… ({WIDE} characters)`), output within 100 bytes per input "
               "byte", bundleID=BUNDLE_ID, inAppPurchases=2 + EMPTY_ENTRIES))
def wide_cells(kit: Kit) -> bytes:
    wide = [(1701, 1, integer(1)), (1702, 1, utf8("w" * WIDE)), (1703, 1, utf8("2000000000000009"))]
    return kit.signed(encode_attrs(sample_attrs(in_app=[iap_consumable(), wide] + [[]] * EMPTY_ENTRIES)))


@fixture("deep-nesting.receipt", "Sample with attribute 98 holding attribute SETs nested 5 000 levels deep (98 KB).",
         valid("`--format asn1` indents 8 levels (`[depth N]` past them), expands 32, output proportional",
               bundleID=BUNDLE_ID, inAppPurchases=3))
def deep_nesting(kit: Kit) -> bytes:
    nested = set_unsorted()
    for _ in range(5_000):
        nested = set_unsorted(seq(integer(99), integer(1), octet(nested)))
    return kit.signed(encode_attrs(sample_attrs() + [(98, 1, nested)]))


DECOMPOSED = "com.example.cafe\u0301"


@fixture("decomposed-bundle-id.receipt", "Sample with bundle id `com.example.cafe` + U+0301 (decomposed é).",
         valid("does not match `--bundle-id com.example.café` (precomposed): identifiers compare byte for byte",
               bundleID=DECOMPOSED))
def decomposed_bundle_id(kit: Kit) -> bytes:
    bundle = utf8(DECOMPOSED)
    return kit.signed(encode_attrs(replace_attr(replace_attr(sample_attrs(), 2, bundle), 5, sha1_hash(bundle))))


@fixture("duplicate-receipt-data.json",
         "A verifyReceipt body with two `receipt-data` members: `sample.receipt`, then `no-in-app.receipt`.",
         invalid("duplicateKey", "receipt-dump exit 2, /verifyReceipt 21002, /v1/receipts HTTP 400"))
def duplicate_receipt_data(kit: Kit) -> bytes:
    other = kit.signed(encode_attrs(sample_attrs(in_app=[])))
    return ('{"receipt-data": "%s", "receipt-data": "%s"}\n' % (
        base64.b64encode(kit.sample_receipt).decode(), base64.b64encode(other).decode())).encode()


# Every receipt type the environment rule knows, and some it must not: (file label, type or None
# for no attribute 0, the environment it means, why).
RECEIPT_TYPES: list[tuple[str, str | None, str, str]] = [
    ("production", "Production", "production", ""),
    ("production-vpp", "ProductionVPP", "production", ""),
    ("production-sandbox", "ProductionSandbox", "sandbox", ""),
    ("production-vpp-sandbox", "ProductionVPPSandbox", "sandbox", ""),
    ("xcode", "Xcode", "xcode", "StoreKit Testing"),
    ("missing", None, "unknown", ""),
    ("unknown", "ProductionTest", "unknown", ""),
    ("lowercase", "production", "unknown", "types match byte for byte"),
]


def receipt_type_fixture(label: str, receipt_type: str | None, environment: str, note: str) -> None:
    shown = "absent" if receipt_type is None else f"`{receipt_type}`"

    @fixture(f"receipt-type-{label}.receipt", f"Sample with receipt type (0) {shown}.",
             valid(note, receiptType=receipt_type, environment=environment))
    def build(kit: Kit) -> bytes:
        attrs = without(sample_attrs(), 0)
        if receipt_type is not None:
            attrs.insert(0, (0, 1, utf8(receipt_type)))
        return kit.signed(encode_attrs(attrs))


for row in RECEIPT_TYPES:
    receipt_type_fixture(*row)
