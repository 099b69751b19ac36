"""The rules the JWS self-check reads tokens by, stated apart from the generator: strict base64,
JSON that refuses a key twice, the kinds of payload and the type of each member (README, "Rules
assumed by the outcomes")."""

from __future__ import annotations

import base64
import json
import re
from decimal import Decimal

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
