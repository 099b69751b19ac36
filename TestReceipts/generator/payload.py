"""Receipt payloads: SET OF ReceiptAttribute { type, version, value OCTET STRING }.

The standard sample payload, its three in-app entries, the StoreKit Testing payload, and the
edits fixtures make to them (replace, drop or extend an attribute).
"""

from __future__ import annotations

import hashlib
import uuid

from .der import ia5, integer, octet, read_tlv, seq, set_unsorted, utf8

DEVICE_GUID = uuid.UUID("6F1C2D3E-4A5B-4C6D-8E7F-9A0B1C2D3E4F")
OPAQUE_VALUE = bytes.fromhex("a1b2c3d4e5f60718293a4b5c6d7e8f90")
BUNDLE_ID = "com.example.receiptparser.sample"
UNKNOWN_99 = bytes.fromhex("deadbeef")

# An attribute is (type, version, value bytes = content of the OCTET STRING).
Attr = tuple[int, int, bytes]


def encode_attrs(attrs: list[Attr]) -> bytes:
    """SET OF ReceiptAttribute, kept in the given (unsorted) order."""
    return set_unsorted(*(seq(integer(t), integer(v), octet(val)) for t, v, val in attrs))


def sha1_hash(bundle_id_value: bytes) -> bytes:
    """Attribute 5: SHA-1(device GUID ‖ opaque value ‖ bundle id attribute bytes)."""
    return hashlib.sha1(DEVICE_GUID.bytes + OPAQUE_VALUE + bundle_id_value).digest()


def in_app_entry(quantity: int, product: str, transaction: str, purchased: str, original_purchased: str,
           product_type: int, expires: str = "", web_order: int = 0, cancelled: str = "",
           trial: int = 0) -> list[Attr]:
    """One in-app entry, in type order, as real receipts write them (empty dates when absent)."""
    return [
        (1701, 1, integer(quantity)),
        (1702, 1, utf8(product)),
        (1703, 1, utf8(transaction)),
        (1704, 1, ia5(purchased)),
        (1705, 1, utf8(transaction)),
        (1706, 1, ia5(original_purchased)),
        (1707, 1, integer(product_type)),
        (1708, 1, ia5(expires)),
        (1711, 1, integer(web_order)),
        (1712, 1, ia5(cancelled)),
        (1713, 1, integer(trial)),
        (1719, 1, integer(0)),
    ]


def iap_consumable() -> list[Attr]:
    return in_app_entry(3, "com.example.coins.100", "2000000000000001", "2025-05-01T10:00:00Z", "2025-05-01T10:00:00Z", 1)


def iap_subscription() -> list[Attr]:
    return in_app_entry(1, "com.example.pro.monthly", "2000000000000002", "2025-05-20T09:30:00.250Z",
                  "2025-05-20T09:30:00Z", 3, expires="2025-06-20T09:30:00Z", web_order=5000000000123456,
                  trial=1) + [(1721, 1, utf8("com.example.pro.winback")), (1799, 1, utf8("kept"))]


def iap_refunded() -> list[Attr]:
    return in_app_entry(1, "com.example.unlock", "2000000000000003", "2025-04-02T08:00:00+0200",
                  "2025-04-02T08:00:00+0200", 0, cancelled="2025-04-10T00:00:00-0700")


def app_attrs(receipt_type: str) -> list[Attr]:
    """Attributes 0 to 5, as both payloads start: the receipt type, app item id 0, the bundle id,
    version 1.4.2, the opaque value and the device hash that goes with them."""
    bundle = utf8(BUNDLE_ID)
    return [
        (0, 1, utf8(receipt_type)),
        (1, 1, integer(0)),
        (2, 1, bundle),
        (3, 1, utf8("1.4.2")),
        (4, 1, OPAQUE_VALUE),
        (5, 1, sha1_hash(bundle)),
    ]


def sample_attrs(in_app: list[list[Attr]] | None = None) -> list[Attr]:
    """The top-level attributes of the standard sample payload.

    Deliberately NOT in type order (nor DER order): the in-app receipts are
    interleaved with the other attributes and type 99 precedes some of them.
    """
    if in_app is None:
        in_app = [iap_consumable(), iap_subscription(), iap_refunded()]
    iaps = [(17, 1, encode_attrs(entry)) for entry in in_app]
    attrs = app_attrs("ProductionSandbox") + [(10, 1, ia5("4+")), (12, 1, ia5("2025-06-01T12:00:00Z"))]
    attrs += iaps[:1]
    attrs += [(15, 1, integer(0)), (16, 1, integer(0))]
    attrs += iaps[1:2]
    attrs += [(99, 2, UNKNOWN_99), (18, 1, ia5("2013-08-01T07:00:00Z"))]
    attrs += iaps[2:]
    attrs.append((19, 1, utf8("1.0")))
    return attrs


def storekit_attrs() -> list[Attr]:
    """An Xcode StoreKit Testing payload: one purchase, transaction "0", an expiration date."""
    entry = in_app_entry(1, "com.example.coins.100", "0", "2025-06-01T12:59:30+0100", "2025-06-01T12:59:30+0100", 1)
    return app_attrs("Xcode") + [
        (12, 1, ia5("2025-06-01T13:00:00+0100")),
        (17, 1, encode_attrs(entry)),
        (19, 1, utf8("1.0")),
        (21, 1, ia5("4001-01-01T00:00:00+0000")),
    ]


def replace_attr(attrs: list[Attr], typ: int, value: bytes) -> list[Attr]:
    assert sum(1 for a in attrs if a[0] == typ) == 1, typ
    return [(t, v, value if t == typ else val) for t, v, val in attrs]


def without(attrs: list[Attr], typ: int) -> list[Attr]:
    return [a for a in attrs if a[0] != typ]


def with_text(attrs: list[Attr], types: set[int], text: str) -> list[Attr]:
    """`attrs` with `text` appended to the string value of each attribute of `types` (as UTF8String)."""
    def appended(value: bytes) -> bytes:
        _, start, end = read_tlv(value)
        return utf8(value[start:end].decode() + text)
    return [(t, v, appended(val) if t in types else val) for t, v, val in attrs]
