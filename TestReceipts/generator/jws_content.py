"""The jws/ fixtures about what a token says: payloads of no kind or with a field of the wrong JSON
type, notifications whose nested tokens fail or disagree with them, and the JSON bodies tokens
arrive in (App Store Server Notifications, App Store Server API responses)."""

from __future__ import annotations

import json

from .jsontext import Members, Raw, dumps, nested_arrays
from .jws import join
from .jws_fixture import JWSKit, Probe, TokenList, probe
from .jws_outcome import fails, ok
from .jws_reading import (app_nested, es256_valid, first_dup, header, member_kind, nested_payload, nested_token,
                          payload_text, pl, seg, token_payload, x5c_of)
from .jws_rules import READABLE_MS, depth, kind_of
from .jws_valid import nested_renewal, nested_transaction, rescind_consent, subscribed
from .jws_valid_edges import DEPTH
from .payload import BUNDLE_ID
from .storekit2 import APP_APPLE_ID, DROP, SIGNED, app_transaction, notification, plain_renewal_info, \
    plain_transaction, renewal_info, transaction

PAYLOAD = TokenList("payload", "Payloads", "Validly signed tokens whose payload is of no kind, or holds a documented "
                    "member with another JSON type than documented (the payload cannot be read as its kind).")
NESTED = TokenList("nested", "Notifications and their nested tokens",
                   "Validly signed notifications (SUBSCRIBED, data Sandbox) whose nested tokens fail, are of "
                   "another kind, or disagree with the notification. Nested tokens are verified with the same rules, "
                   "each at its own signedDate; the notification verifies only when all of them do.")
BODIES = TokenList("bodies", "JSON bodies",
                   "Bodies as Apple sends them: `{\"signedPayload\"}` (notifications), `signedTransactions` "
                   "(transaction history), `signedTransactionInfo` / `signedRenewalInfo` (transaction info, subscription "
                   "status), `signedAppTransactionInfo` (app transaction info). Every signed member is verified; the "
                   "body verifies only when all do.")


@PAYLOAD.token("no-kind.jws", "A payload with bundleId, environment and signedDate only (like the minimal fixtures "
               "of Apple's library): no member names a kind.", None,
               fails("wrongKind", "a payload of no known kind"))
@probe(lambda d: kind_of(json.loads(payload_text(d))) is None)
def no_kind(kit: JWSKit) -> str:
    return kit.token({"bundleId": BUNDLE_ID, "environment": "Sandbox", "signedDate": SIGNED})


def wrong_type(file: str, what: str, kind: str, payload, probe):
    @PAYLOAD.token(file, what, kind, fails("wrongValueType", "the reason names the member and the type found"),
                   probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        return kit.token(payload(kit))


wrong_type("type-signed-date-string.jws", "A transaction whose signedDate is the string `\"1748779200000\"`.",
           "transaction", lambda kit: plain_transaction(signedDate=str(SIGNED)),
           probe=lambda d: isinstance(pl(d)["signedDate"], str))
wrong_type("type-price-string.jws", "A transaction whose price is the string `\"9990\"`.", "transaction",
           lambda kit: plain_transaction(price="9990"), probe=lambda d: isinstance(pl(d)["price"], str))
wrong_type("type-bundle-id-number.jws", "A transaction whose bundleId is the number 42.", "transaction",
           lambda kit: plain_transaction(bundleId=42), probe=lambda d: pl(d)["bundleId"] == 42)
wrong_type("type-transaction-id-number.jws", "A transaction whose transactionId is the number 2000000000000201.",
           "transaction", lambda kit: plain_transaction(transactionId=2000000000000201),
           probe=lambda d: isinstance(pl(d)["transactionId"], int))
wrong_type("type-is-upgraded-string.jws", "A transaction whose isUpgraded is the string `\"false\"`.", "transaction",
           lambda kit: transaction(isUpgraded="false"), probe=lambda d: pl(d)["isUpgraded"] == "false")
wrong_type("type-commitment-info-array.jws", "A transaction whose commitmentInfo is an array.", "transaction",
           lambda kit: transaction(commitmentInfo=[]), probe=lambda d: pl(d)["commitmentInfo"] == [])
wrong_type("type-auto-renew-status-string.jws", "A renewal info whose autoRenewStatus is the string `\"1\"`.",
           "renewalInfo", lambda kit: renewal_info(autoRenewStatus="1"),
           probe=lambda d: pl(d)["autoRenewStatus"] == "1")
wrong_type("type-receipt-creation-date-string.jws", "An AppTransaction whose receiptCreationDate is an RFC 3339 "
           "string.", "appTransaction", lambda kit: app_transaction(receiptCreationDate="2025-06-01T11:58:00Z"),
           probe=lambda d: isinstance(pl(d)["receiptCreationDate"], str))
wrong_type("type-notification-data-string.jws", "A notification whose data is a string.", "notification",
           lambda kit: notification("TEST", None, "data", "{}"), probe=lambda d: isinstance(pl(d)["data"], str))
wrong_type("type-app-apple-id-string.jws", "A notification whose data.appAppleId is the string `\"1234567890\"`.",
           "notification", lambda kit: subscribed(kit, data={"appAppleId": str(APP_APPLE_ID)}),
           probe=lambda d: isinstance(pl(d)["data"]["appAppleId"], str))
wrong_type("type-signed-date-huge.jws", "A transaction whose signedDate is `1e300`, a number no calendar reaches.",
           "transaction", lambda kit: plain_transaction(signedDate=Raw("1e300")),
           probe=lambda d: pl(d)["signedDate"] > READABLE_MS[1])
wrong_type("type-expires-date-year-10000.jws", "A transaction whose expiresDate is in the year 10000 "
           "(253402300800000 ms), beyond what RFC 3339 can write.", "transaction",
           lambda kit: transaction(expiresDate=253402300800000), probe=lambda d: pl(d)["expiresDate"] > READABLE_MS[1])
wrong_type("type-price-fraction.jws", "A transaction whose price is `9990.5` milliunits, not an integer.",
           "transaction", lambda kit: plain_transaction(price=Raw("9990.5")),
           probe=lambda d: pl(d)["price"] != int(pl(d)["price"]))
wrong_type("type-quantity-overflow.jws", "A transaction whose quantity is 4294967296, beyond Int32.",
           "transaction", lambda kit: plain_transaction(quantity=4294967296),
           probe=lambda d: pl(d)["quantity"] >= 2 ** 31)
wrong_type("type-nested-token-number.jws", "A notification whose data.signedTransactionInfo is the number 5.",
           "notification", lambda kit: subscribed(kit, transaction_token=5),
           probe=lambda d: pl(d)["data"]["signedTransactionInfo"] == 5)


# --- notifications and their nested tokens

def nested_case(file: str, what: str, error: str, payload, note: str = "", *, probe):
    @NESTED.token(file, what, "notification", fails(error, note), probes=(Probe(probe),))
    def build(kit: JWSKit) -> str:
        return kit.token(payload(kit))


def flipped(token: str) -> str:
    h, p, s = token.split(".")
    return join(h, p, s[:-2] + ("A" if s[-2] != "A" else "B") + s[-1])


nested_case("nested-bad-signature.jws", "signedTransactionInfo's signature has one character changed.",
            "signatureInvalid", lambda kit: subscribed(kit, transaction_token=flipped(nested_transaction(kit))),
            probe=lambda d: es256_valid(d.decode().strip()) and not es256_valid(nested_token(d)))
nested_case("nested-untrusted.jws", "signedTransactionInfo's x5c[2] is jws-root-twin (not the configured root).",
            "untrustedChain", lambda kit: subscribed(kit, transaction_token=kit.token(
                plain_transaction(), kit.header(("jws-leaf", "jws-intermediate", "jws-root-twin")))),
                                  probe=lambda d: header(nested_token(d).encode())["x5c"][2] != x5c_of(d)[2])
nested_case("nested-expired.jws", "signedRenewalInfo signed 2027-01-01T00:00:00.001Z, after jws-leaf's notAfter; "
            "the notification itself is signed 2025-06-01.", "certificateNotValidAtTime",
            lambda kit: subscribed(kit, renewal_token=nested_renewal(kit, signedDate=1798761600001)),
            "each nested token is judged at its own date",
            probe=lambda d: nested_payload(d, "signedRenewalInfo")["signedDate"] == 1798761600001)
nested_case("nested-no-signed-date.jws", "signedTransactionInfo has no signedDate; the notification has one.",
            "missingSignedDate",
            lambda kit: subscribed(kit, transaction_token=kit.token(plain_transaction(signedDate=DROP))),
            "a nested token does not borrow its notification's date",
            probe=lambda d: "signedDate" not in nested_payload(d))
nested_case("nested-alg-none.jws", "signedTransactionInfo's header says alg `none` (its signature is a valid ES256 "
            "one).", "unsupportedSignatureAlgorithm",
            lambda kit: subscribed(kit, transaction_token=kit.token(plain_transaction(),
                                                                    kit.header() | {"alg": "none"})),
            probe=lambda d: header(nested_token(d).encode())["alg"] == "none")
nested_case("nested-renewal-as-transaction.jws", "signedTransactionInfo holds a renewal info.", "wrongKind",
            lambda kit: subscribed(kit, transaction_token=nested_renewal(kit)),
            probe=lambda d: kind_of(nested_payload(d)) == "renewalInfo")
nested_case("nested-transaction-as-renewal.jws", "signedRenewalInfo holds a transaction.", "wrongKind",
            lambda kit: subscribed(kit, renewal_token=nested_transaction(kit)),
            probe=lambda d: kind_of(nested_payload(d, "signedRenewalInfo")) == "transaction")
nested_case("nested-notification-as-transaction.jws", "signedTransactionInfo holds another notification.",
            "wrongKind", lambda kit: subscribed(kit, transaction_token=kit.token(subscribed(kit))),
            probe=lambda d: kind_of(nested_payload(d)) == "notification")
nested_case("nested-app-data-holds-transaction.jws", "appData.signedAppTransactionInfo holds a transaction.",
            "wrongKind", lambda kit: rescind_consent(kit, nested_transaction(kit, environment="Production")),
            probe=lambda d: kind_of(app_nested(d)) == "transaction")
nested_case("nested-bundle-id-mismatch.jws", "signedTransactionInfo's bundleId is com.example.other; data's is the "
            "sample's.", "appIdentityMismatch",
            lambda kit: subscribed(kit, transaction_token=nested_transaction(kit, bundleId="com.example.other")),
            probe=lambda d: nested_payload(d)["bundleId"] == "com.example.other")
nested_case("nested-environment-mismatch.jws", "signedTransactionInfo says Production; data says Sandbox.",
            "environmentMismatch",
            lambda kit: subscribed(kit, transaction_token=nested_transaction(kit, environment="Production")),
            probe=lambda d: nested_payload(d)["environment"] == "Production")
nested_case("nested-renewal-environment-mismatch.jws", "signedRenewalInfo says Production; data says Sandbox.",
            "environmentMismatch",
            lambda kit: subscribed(kit, renewal_token=nested_renewal(kit, environment="Production")),
            probe=lambda d: nested_payload(d, "signedRenewalInfo")["environment"] == "Production")
nested_case("nested-app-apple-id-mismatch.jws", "appData.appAppleId is 1234567890, its AppTransaction's 1234567891.",
            "appIdentityMismatch",
            lambda kit: rescind_consent(kit, kit.token(app_transaction(appAppleId=APP_APPLE_ID + 1))),
            probe=lambda d: app_nested(d)["appAppleId"] != pl(d)["appData"]["appAppleId"])
nested_case("nested-app-environment-mismatch.jws", "appData.environment is Production, its AppTransaction's "
            "receiptType Sandbox.", "environmentMismatch",
            lambda kit: rescind_consent(kit, kit.token(app_transaction(receiptType="Sandbox"))),
            probe=lambda d: (app_nested(d)["receiptType"], pl(d)["appData"]["environment"])
            == ("Sandbox", "Production"))
nested_case("nested-malformed.jws", "signedTransactionInfo is `abc.def`: two parts.", "malformedToken",
            lambda kit: subscribed(kit, transaction_token="abc.def"),
            "the nested token's own code and exit status (2): it cannot be read",
            probe=lambda d: json.loads(payload_text(d))["data"]["signedTransactionInfo"] == "abc.def")
nested_case("nested-duplicate-key.jws", "signedTransactionInfo's payload has bundleId twice (the sample's, then "
            "com.example.other).", "duplicateKey",
            lambda kit: subscribed(kit, transaction_token=kit.token(
                Members([*plain_transaction().items(), ("bundleId", "com.example.other")]))),
            "the nested token's own code and exit status (2)",
            probe=lambda d: first_dup(seg(json.loads(payload_text(d))["data"]["signedTransactionInfo"]
                                          .encode(), 1)) == ["bundleId"])


# --- JSON bodies

def body(file: str, what: str, kind: str, members: tuple, *cases):
    return BODIES.token(file, what, kind, *cases, members=members)


NOTIFICATION = (("signedPayload", "notification"),)
HISTORY = (("signedTransactions[0]", "transaction"), ("signedTransactions[1]", "transaction"))
STATUS = (("signedTransactionInfo", "transaction"), ("signedRenewalInfo", "renewalInfo"))


def history(kit: JWSKit, second: str | None = None, **extra: object) -> dict:
    """A Get Transaction History response: two transactions and the members around them."""
    first = nested_transaction(kit)
    second = second or nested_transaction(kit, transactionId="2000000000000203", webOrderLineItemId="2000000000000204")
    return {"revision": "1748779200000_2000000000000203", "bundleId": BUNDLE_ID, "appAppleId": APP_APPLE_ID,
            "environment": "Sandbox", "hasMore": False, "signedTransactions": [first, second], **extra}


@body("body-signed-payload.json", "`{\"signedPayload\": ...}` holding notification-subscribed.jws's notification, "
      "as Apple posts it.", "notification", NOTIFICATION, ok(),
      ok("the checks pass", bundle_id=BUNDLE_ID, environment="sandbox", app_apple_id=APP_APPLE_ID))
def body_signed_payload(kit: JWSKit) -> str:
    return dumps({"signedPayload": kit.token(subscribed(kit))})


@body("body-transaction-history.json", "A transaction history response: revision, bundleId, appAppleId, "
      "environment, hasMore and signedTransactions with two transactions.", "transaction", HISTORY, ok(),
      fails("appIdentityMismatch", "each transaction is checked", bundle_id="com.example.other"))
def body_history(kit: JWSKit) -> str:
    return dumps(history(kit))


@body("body-transaction-info.json", "`{\"signedTransactionInfo\": ...}` (Get Transaction Info).", "transaction",
      (("signedTransactionInfo", "transaction"),), ok())
def body_transaction_info(kit: JWSKit) -> str:
    return dumps({"signedTransactionInfo": nested_transaction(kit)})


@body("body-subscription-status.json", "A subscription status item: originalTransactionId, status, "
      "signedTransactionInfo and signedRenewalInfo, both verified.", "transaction", STATUS, ok())
def body_status(kit: JWSKit) -> str:
    return dumps({"originalTransactionId": "2000000000000100", "status": 1,
                      "signedTransactionInfo": nested_transaction(kit), "signedRenewalInfo": nested_renewal(kit)})


@body("body-app-transaction-info.json", "`{\"signedAppTransactionInfo\": ...}` (Get App Transaction Info), "
      "Production.", "appTransaction", (("signedAppTransactionInfo", "appTransaction"),), ok(),
      ok("the checks pass", app_apple_id=APP_APPLE_ID, environment="production"))
def body_app_transaction(kit: JWSKit) -> str:
    return dumps({"signedAppTransactionInfo": kit.token(app_transaction())})


@body("body-duplicate-signed-payload.json", "`signedPayload` twice: notification-subscribed's notification, then "
      "a TEST notification.", "notification", (("signedPayload", "notification"), ("signedPayload", "notification")),
      fails("duplicateKey"))
@probe(lambda d: first_dup(d) == ["signedPayload"])
def body_duplicate(kit: JWSKit) -> str:
    test = notification("TEST", None, "data", {"bundleId": BUNDLE_ID, "environment": "Sandbox"})
    return dumps(Members([("signedPayload", kit.token(subscribed(kit))), ("signedPayload", kit.token(test))]))


@body("body-duplicate-escaped.json", "`signedTransactionInfo` and `\"\\u0073ignedTransactionInfo\"`: the same member "
      "twice.", "transaction", (("signedTransactionInfo", "transaction"), ("signedTransactionInfo", "transaction")),
      fails("duplicateKey"))
@probe(lambda d: first_dup(d) == ["signedTransactionInfo"] and b"\\u0073igned" in d)
def body_duplicate_escaped(kit: JWSKit) -> str:
    return dumps(Members([("signedTransactionInfo", nested_transaction(kit)),
                              (Raw('"\\u0073ignedTransactionInfo"'), nested_transaction(kit, price=1))]))


@body("body-duplicate-other-member.json", "A transaction history response with `revision` twice: a duplicate "
      "anywhere in the body, not only in a signed member.", "transaction", HISTORY, fails("duplicateKey"))
@probe(lambda d: first_dup(d) == ["revision"])
def body_duplicate_other(kit: JWSKit) -> str:
    return dumps(Members([*history(kit).items(), ("revision", "again")]))


@body("body-depth-65.json", f"`signedTransactionInfo` beside a member holding {DEPTH} nested arrays ({DEPTH + 1} "
      "levels with the body).", "transaction", (("signedTransactionInfo", "transaction"),), fails("invalidJSON"))
@probe(lambda d: depth(json.loads(d)) == 65)
def body_depth(kit: JWSKit) -> str:
    return dumps({"signedTransactionInfo": nested_transaction(kit), "deep": nested_arrays(DEPTH)})


@body("body-one-bad-transaction.json", "A transaction history whose second transaction's signature has one character "
      "changed.", "transaction", HISTORY, fails("signatureInvalid", "the body verifies only when every token does"))
@probe(lambda d: es256_valid(json.loads(d)["signedTransactions"][0])
       and not es256_valid(json.loads(d)["signedTransactions"][1]))
def body_one_bad(kit: JWSKit) -> str:
    return dumps(history(kit, flipped(nested_transaction(kit, transactionId="2000000000000203"))))


@body("body-one-malformed-transaction.json", "A transaction history whose second transaction is `abc.def`.",
      "transaction", HISTORY, fails("malformedToken", "the token's own code and exit status (2)"))
@probe(lambda d: json.loads(d)["signedTransactions"][1] == "abc.def")
def body_one_malformed(kit: JWSKit) -> str:
    return dumps(history(kit, "abc.def"))


@body("body-renewal-in-transaction-info.json", "`signedTransactionInfo` holding a renewal info.", "transaction",
      (("signedTransactionInfo", "renewalInfo"),), fails("wrongKind"))
@probe(lambda d: member_kind(d, "signedTransactionInfo") == "renewalInfo")
def body_renewal_as_transaction(kit: JWSKit) -> str:
    return dumps({"signedTransactionInfo": nested_renewal(kit)})


@body("body-transaction-in-renewal-info.json", "A subscription status item whose `signedRenewalInfo` holds a "
      "transaction.", "transaction", (("signedTransactionInfo", "transaction"), ("signedRenewalInfo", "transaction")),
      fails("wrongKind"))
@probe(lambda d: member_kind(d, "signedRenewalInfo") == "transaction")
def body_transaction_as_renewal(kit: JWSKit) -> str:
    return dumps({"originalTransactionId": "2000000000000100", "status": 1,
                      "signedTransactionInfo": nested_transaction(kit), "signedRenewalInfo": nested_transaction(kit)})


@body("body-transaction-in-signed-payload.json", "`{\"signedPayload\": ...}` holding a transaction.", "notification",
      (("signedPayload", "transaction"),), fails("wrongKind"))
@probe(lambda d: member_kind(d, "signedPayload") == "transaction")
def body_transaction_as_notification(kit: JWSKit) -> str:
    return dumps({"signedPayload": nested_transaction(kit)})


@body("body-transaction-in-app-transaction-info.json", "`signedAppTransactionInfo` holding a transaction.",
      "appTransaction", (("signedAppTransactionInfo", "transaction"),), fails("wrongKind"))
@probe(lambda d: member_kind(d, "signedAppTransactionInfo") == "transaction")
def body_transaction_as_app(kit: JWSKit) -> str:
    return dumps({"signedAppTransactionInfo": nested_transaction(kit)})


@body("body-status-environment-mismatch.json", "A subscription status item whose renewal info says Production, its "
      "transaction Sandbox.", "transaction", STATUS,
      fails("environmentMismatch", "the environment expected is checked on each token", environment="sandbox"),
      fails("environmentMismatch", "the tokens of one body agree on their environment, whatever is expected"))
@probe(lambda d: token_payload(json.loads(d)["signedRenewalInfo"])["environment"] == "Production")
def body_status_mismatch(kit: JWSKit) -> str:
    return dumps({"originalTransactionId": "2000000000000100", "status": 1,
                      "signedTransactionInfo": nested_transaction(kit),
                      "signedRenewalInfo": kit.token(plain_renewal_info(environment="Production"))})


@body("body-history-bundle-id-mismatch.json", "A transaction history whose second transaction is another app's "
      "(com.example.other), both genuine.", "transaction", HISTORY,
      fails("appIdentityMismatch", "the tokens of one body are of one app"))
@probe(lambda d: token_payload(json.loads(d)["signedTransactions"][1])["bundleId"] == "com.example.other")
def body_history_bundle_mismatch(kit: JWSKit) -> str:
    return dumps(history(kit, nested_transaction(kit, transactionId="2000000000000203", bundleId="com.example.other")))


@body("body-status-renewal-of-another.json", "A subscription status item whose renewal info is of another "
      "subscription (originalTransactionId 2000000000000999), both genuine.", "transaction", STATUS,
      fails("appIdentityMismatch", "renewal info belongs to the transaction beside it"))
@probe(lambda d: token_payload(json.loads(d)["signedRenewalInfo"])["originalTransactionId"]
       != token_payload(json.loads(d)["signedTransactionInfo"])["originalTransactionId"])
def body_status_renewal_of_another(kit: JWSKit) -> str:
    return dumps({"originalTransactionId": "2000000000000100", "status": 1,
                  "signedTransactionInfo": nested_transaction(kit),
                  "signedRenewalInfo": nested_renewal(kit, originalTransactionId="2000000000000999")})
