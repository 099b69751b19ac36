"""What receipt-dump (and the verifier under it) must make of a JWS fixture, case by case.

A case is one run: the options it needs and the outcome, `verified` or the ReceiptError code
name; the exit status follows from the code (outcome.exit_status): 2 for what cannot be read, 1
for what breaks a rule. Declared options are receipt-dump's words (outcome.OPTIONS), except that
the trust may be left out (`--root pki/jws-root.der`) and `storekit_testing=True` stands for
`pki/jws-storekit.der`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .outcome import OPTIONS, exit_status, options_json

# Codes for input that cannot be read (exit 2); every other code is a broken rule (exit 1).
UNREADABLE = ("malformedToken", "invalidJSON", "duplicateKey", "tooLarge", "wrongValueType")
RULES = ("unsupportedSignatureAlgorithm", "unsupportedCriticalHeader", "untrustedChain", "invalidCertificate",
         "missingAppleExtension", "keyNotAllowed", "certificateNotValidAtTime", "missingSignedDate",
         "signatureInvalid", "wrongKind", "appIdentityMismatch", "environmentMismatch")
KINDS = ("transaction", "renewalInfo", "appTransaction", "notification")

JWS_ROOT = "pki/jws-root.der"  # the root of a case that names no other trust
JWS_STOREKIT = "pki/jws-storekit.der"  # the certificate of `storekit_testing=True`
assert all(exit_status(c) == 2 for c in UNREADABLE) and all(exit_status(c) == 1 for c in RULES)


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
        assert self.error in (None, *UNREADABLE, *RULES), self.error
        for code in self.other_errors:
            assert exit_status(code) == exit_status(self.error), (self.error, code)

    def run_options(self) -> dict:
        """The options as cases.json writes them: the trust given, in OPTIONS order."""
        options = dict(self.options)
        if options.get("storekit_testing") is True:
            options["storekit_testing"] = JWS_STOREKIT
        elif "storekit_testing" not in options:
            options.setdefault("root", JWS_ROOT)
        return options_json(options)

    def as_json(self) -> dict:
        out = {"options": self.run_options(), "exit_status": exit_status(self.error), "error": self.error}
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
