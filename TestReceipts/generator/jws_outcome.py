"""What receipt-dump (and the verifier under it) must make of a JWS fixture, case by case.

A case is one run: the options it needs (beyond `--root pki/jws-root.der`) and the outcome,
`verified` or the ReceiptError code name; the exit status follows from the code, as the shared
contract sorts them: 2 for what cannot be read, 1 for what breaks a rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Codes for input that cannot be read (exit 2); every other code is a broken rule (exit 1).
UNREADABLE = ("malformedToken", "invalidJSON", "duplicateKey", "tooLarge", "wrongValueType")
RULES = ("unsupportedSignatureAlgorithm", "unsupportedCriticalHeader", "untrustedChain", "invalidCertificate",
         "missingAppleExtension", "keyNotAllowed", "certificateNotValidAtTime", "missingSignedDate",
         "signatureInvalid", "wrongKind", "appIdentityMismatch", "environmentMismatch")
KINDS = ("transaction", "renewalInfo", "appTransaction", "notification")

# Option name: (what receipt-dump is given, what the value is).
OPTIONS = {
    "at": ("--at INSTANT", "RFC 3339 instant the certificates are judged at instead of the token's date"),
    "expect_bundle_id": ("--bundle-id ID", "bundle id expected"),
    "expect_environment": ("--environment ENV", "environment expected, as the payload spells it "
                           "(receipt-dump: lowercase)"),
    "expect_app_apple_id": ("--app-apple-id N", "App Apple ID expected (a number)"),
    "as_kind": ("(library only)", "the kind the caller asks for (verifyTransaction, ...); receipt-dump detects "
                "the kind, its equivalent is a JSON body whose member names the kind"),
    "storekit_testing": ("--storekit-testing pki/jws-storekit.der", "true: trust the StoreKit Testing certificate "
                         "instead of the root"),
    "root": ("--root FILE", "another root than pki/jws-root.der (path under TestReceipts/)"),
}


def exit_status(error: str | None) -> int:
    if error is None:
        return 0
    if error in UNREADABLE:
        return 2
    assert error in RULES, error
    return 1


@dataclass(frozen=True)
class Case:
    error: str | None  # None: verified
    options: dict = field(default_factory=dict)
    note: str = ""
    other_errors: tuple[str, ...] = ()  # further defects the same token has (another check order finds them first)
    decoded: dict = field(default_factory=dict)  # payload member -> value as the JSON output writes it

    def __post_init__(self):
        assert set(self.options) <= set(OPTIONS), self.options
        assert self.options.get("as_kind") in (None, *KINDS)
        for code in self.other_errors:
            assert exit_status(code) == exit_status(self.error), (self.error, code)

    def as_json(self) -> dict:
        out = {"options": self.options, "exit_status": exit_status(self.error), "error": self.error}
        if self.other_errors:
            out["other_errors"] = list(self.other_errors)
        if self.decoded:
            out["decoded"] = self.decoded
        if self.note:
            out["note"] = self.note
        return out


def ok(note: str = "", decoded: dict | None = None, **options: object) -> Case:
    return Case(None, options, note, decoded=decoded or {})


def fails(error: str, note: str = "", other: tuple[str, ...] = (), **options: object) -> Case:
    return Case(error, options, note, other)
