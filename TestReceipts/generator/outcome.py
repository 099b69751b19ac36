"""What a verifier must make of a fixture: its verdict under each trust configuration.

A verdict is "verified" or the ReceiptError code name the verifier must throw. These are the
only statement of each fixture's outcome: fixtures.json carries them to the Swift tests, and
README.md's tables are written from fixtures.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

VERIFIED = "verified"


@dataclass(frozen=True)
class Trust:
    """A trust configuration; its label names it as receipt-dump's flags would set it."""
    key: str
    label: str
    root: str | None = None  # App Store rules anchored at this root; neither this nor storekit: Apple's roots
    storekit: str | None = None  # StoreKit Testing mode with this certificate
    require_sha256: bool = False
    at: str | None = None  # validation time instead of the receipt's creation date

    def as_json(self) -> dict:
        optional = {"root": self.root, "storeKitCertificate": self.storekit,
                    "requireSHA256": self.require_sha256 or None, "at": self.at}
        return {"label": self.label, **{k: v for k, v in optional.items() if v is not None}}


TEST_ROOT = "pki/test-root.der"
APP_STORE = Trust("appStore", "under App Store rules (`--root pki/test-root.der`)", root=TEST_ROOT)
REQUIRE_SHA256 = Trust("requireSHA256", "with `--require-sha256`", root=TEST_ROOT, require_sha256=True)
AT_MARCH_2025 = Trust("atMarch2025", "with `--at 2025-03-01T00:00:00Z`", root=TEST_ROOT, at="2025-03-01T00:00:00Z")
AFTER_EXPIRY = Trust("atJune2026", "with `--at 2026-06-01T00:00:00Z`", root=TEST_ROOT, at="2026-06-01T00:00:00Z")
OTHER_ROOT = Trust("otherRoot", "with `--root pki/other-root.der`", root="pki/other-root.der")
STOREKIT = Trust("storeKitTesting", "with `--storekit-testing pki/storekit-test.der`",
                 storekit="pki/storekit-test.der")
APPLE = Trust("apple", "against Apple's roots (no `--root`)")
TRUSTS = [APP_STORE, REQUIRE_SHA256, AT_MARCH_2025, AFTER_EXPIRY, OTHER_ROOT, STOREKIT, APPLE]


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

    def as_json(self) -> dict:
        out: dict = {"verdicts": {t.key: v for t, v in self.verdicts.items()}}
        if self.decoder:
            out["decoder"] = self.decoder
        if self.receipt:
            out["receipt"] = self.receipt
        if self.note:
            out["note"] = self.note
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
