"""What a verifier must make of a fixture, in the words of the case manifest (cases.json).

A case is one run: a file, receipt-dump's options for it (OPTIONS) and the outcome, `verified`
or the ReceiptError code name the verifier must give; the exit status follows from the code
(exit_status). A receipt fixture declares an Outcome: its verdict under each trust configuration,
one case each. These are the only statement of each fixture's outcome: cases.json carries them
to the Swift tests, and README.md's tables are written from cases.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

VERIFIED = "verified"

# The codes that refuse trust (the data is not verified, exit 1), as ReceiptError.Code.isTrustFailure
# has them; every other code is data that cannot be read (exit 2).
TRUST_FAILURES = frozenset({
    "signerCount", "signerNotFound", "invalidCertificate", "digestNotAllowed", "unsupportedSignatureAlgorithm",
    "messageDigestMismatch", "signatureInvalid", "untrustedChain", "missingAppleExtension",
    "certificateNotValidAtTime", "missingCreationDate", "invalidAnchor", "tooManyCertificates",
    "certificateTooLarge", "keyNotAllowed", "unsupportedCriticalHeader", "missingSignedDate", "wrongKind",
    "appIdentityMismatch", "environmentMismatch"})

# A case's options, in the order cases.json writes them: name -> (receipt-dump's flag, what the value is).
OPTIONS = {
    "root": ("--root FILE", "the root the data must chain to under App Store rules (a path under TestReceipts/); "
             "neither `root` nor `storekit_testing`: Apple's roots"),
    "storekit_testing": ("--storekit-testing FILE", "StoreKit Testing mode: the one certificate the data must be "
                         "signed with (a path under TestReceipts/)"),
    "require_sha256": ("--require-sha256", "`true`: a SHA-1 digest is refused"),
    "at": ("--at INSTANT", "RFC 3339 instant the certificates are judged at instead of the data's own date"),
    "bundle_id": ("--bundle-id ID", "bundle id expected"),
    "environment": ("--environment ENV", "environment expected: `production`, `sandbox` or `xcode`"),
    "app_apple_id": ("--app-apple-id N", "App Apple ID expected (a number)"),
    "as_kind": ("(library only)", "the kind of token the caller asks for (verifyTransaction, ...); receipt-dump "
                "detects the kind, its equivalent is a JSON body whose member names the kind"),
}
ENVIRONMENTS = ("production", "sandbox", "xcode")


def exit_status(error: str | None) -> int:
    """receipt-dump's exit status for a case's code: 0 verified, 1 not verified (a rule broken or
    a check failed), 2 unreadable."""
    return 0 if error is None else 1 if error in TRUST_FAILURES else 2


def options_json(options: dict) -> dict:
    """A case's options in OPTIONS order."""
    assert set(options) <= set(OPTIONS), options
    assert options.get("environment") in (None, *ENVIRONMENTS), options
    return {k: options[k] for k in OPTIONS if k in options}


@dataclass(frozen=True)
class Trust:
    """A trust configuration, as receipt-dump's flags set it."""
    key: str
    root: str | None = None  # App Store rules anchored at this root; neither this nor storekit: Apple's roots
    storekit: str | None = None  # StoreKit Testing mode with this certificate
    require_sha256: bool = False
    at: str | None = None  # validation time instead of the receipt's creation date

    def options(self) -> dict:
        given = {"root": self.root, "storekit_testing": self.storekit, "require_sha256": self.require_sha256 or None,
                 "at": self.at}
        return options_json({k: v for k, v in given.items() if v is not None})


TEST_ROOT = "pki/test-root.der"
APP_STORE = Trust("appStore", root=TEST_ROOT)
REQUIRE_SHA256 = Trust("requireSHA256", root=TEST_ROOT, require_sha256=True)
AT_MARCH_2025 = Trust("atMarch2025", root=TEST_ROOT, at="2025-03-01T00:00:00Z")
AFTER_EXPIRY = Trust("atJune2026", root=TEST_ROOT, at="2026-06-01T00:00:00Z")
OTHER_ROOT = Trust("otherRoot", root="pki/other-root.der")
STOREKIT = Trust("storeKitTesting", storekit="pki/storekit-test.der")
APPLE = Trust("apple")


@dataclass(frozen=True)
class Outcome:
    """Verdicts by trust configuration, the first one the headline; `decoder` is the payload
    decoder's own verdict when the payload is what is wrong; `receipt` holds decoded values
    (Swift property names) that hold under every configuration that verifies the fixture."""
    verdicts: dict[Trust, str]
    note: str = ""
    decoder: str | None = None
    receipt: dict[str, object] = field(default_factory=dict)

    def under(self, trust: Trust, verdict: str) -> Outcome:
        return replace(self, verdicts={**self.verdicts, trust: verdict})

    def cases(self) -> list[dict]:
        """One case per trust configuration, the headline first: the note goes with the headline,
        the decoder's verdict with every case (it is the file's), the decoded values with each
        case that verifies."""
        assert not self.receipt or VERIFIED in self.verdicts.values(), "decoded values but never verified"
        out = []
        for i, (trust, verdict) in enumerate(self.verdicts.items()):
            error = None if verdict == VERIFIED else verdict
            case: dict = {"options": trust.options(), "exit_status": exit_status(error), "error": error}
            if self.decoder:
                case["decoder"] = self.decoder
            if self.receipt and error is None:
                case["receipt"] = self.receipt
            if self.note and i == 0:
                case["note"] = self.note
            out.append(case)
        return out


def valid(note: str = "", **receipt: object) -> Outcome:
    """Verified under App Store rules with the test root."""
    return Outcome({APP_STORE: VERIFIED}, note, receipt=receipt)


def invalid(code: str, note: str = "", **receipt: object) -> Outcome:
    """Refused under App Store rules with the test root: input, envelope, signature or chain."""
    return Outcome({APP_STORE: code}, note, receipt=receipt)


def unreadable(code: str, note: str = "") -> Outcome:
    """Signature and chain are fine; the payload decoder refuses the payload with `code`."""
    return Outcome({APP_STORE: code}, note, decoder=code)
