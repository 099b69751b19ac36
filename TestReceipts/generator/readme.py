"""README.md, written from cases.json (the schema, the outcome tables) and the test PKI (its table)."""

from __future__ import annotations

from cryptography import x509

from . import oids
from .manifest import invisible, schema_section
from .outcome import TEST_ROOT
from .payload import BUNDLE_ID, DEVICE_GUID, OPAQUE_VALUE, sha1_hash
from .der import utf8
from .pki import Cert

RECEIPT_VALUES = {"receiptType": "receipt type", "environment": "environment", "bundleID": "bundle id",
                  "inAppPurchases": "in-app purchases"}


def shown(text: str) -> str:
    """Text for a Markdown table cell: invisible characters as Swift-style `\\u{1B}` escapes."""
    escaped = "".join(f"\\u{{{ord(c):X}}}" if invisible(c) else c for c in text)
    return escaped.replace("|", "\\|")


def decoded(values: dict) -> str:
    def one(key: str, value: object) -> str:
        label = RECEIPT_VALUES[key]
        if value is None:
            return f"no {label}"
        if isinstance(value, int):
            return f"{value} {label.removesuffix('s') if value == 1 else label}"
        return f"{label} `{shown(value)}`"
    return "decodes to " + ", ".join(one(k, v) for k, v in values.items())


def label(options: dict) -> str:
    """A receipt case's trust configuration as the tables name it, from its options."""
    if "storekit_testing" in options:
        return f"with `--storekit-testing {options['storekit_testing']}`"
    if "root" not in options:
        return "against Apple's roots (no `--root`)"
    if options.get("require_sha256"):
        return "with `--require-sha256`"
    if "at" in options:
        return f"with `--at {options['at']}`"
    if options["root"] != TEST_ROOT:
        return f"with `--root {options['root']}`"
    return f"under App Store rules (`--root {TEST_ROOT}`)"


def outcome_cell(cases: list[dict]) -> str:
    """A file's cases in manifest order, the first unlabelled when it is App Store rules with the
    test root; the note after the first; the decoded values last."""
    parts = []
    for i, case in enumerate(cases):
        headline = case["options"] == {"root": TEST_ROOT}
        if case["error"] is None:
            text = "**valid**"
        elif headline and case.get("decoder") == case["error"]:
            text = f"signature **valid**, decoding **fails** (`{case['error']}`)"
        else:
            text = f"**invalid** (`{case['error']}`)"
        if i > 0 or not headline:
            text = f"{label(case['options'])}: {text}"
        if case.get("note"):
            text += " — " + shown(case["note"])
        parts.append(text)
    values = next((c["receipt"] for c in cases if c.get("receipt")), None)
    if values:
        parts.append(decoded(values))
    return "; ".join(parts)


def by_file(cases: list[dict]) -> dict[str, list[dict]]:
    """The cases of each file, files in manifest order."""
    files: dict[str, list[dict]] = {}
    for case in cases:
        files.setdefault(case["file"], []).append(case)
    return files


def fixture_rows(cases: list[dict], folder: str) -> str:
    return "\n".join(
        f"| `{file.removeprefix(folder + '/')}` | {shown(runs[0]['description'])} | {outcome_cell(runs)} |"
        for file, runs in by_file(cases).items() if file.startswith(folder + "/"))


def pki_rows(pki: dict[str, Cert]) -> str:
    rows = []
    for n, c in pki.items():
        if c.cert.issuer == c.cert.subject:
            issuer = "self-signed"
        else:
            issuer = next(k for k, v in pki.items() if k != n and v.cert.subject == c.cert.issuer)
        bc = c.cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        notes = ["CA:TRUE" if bc.ca else "CA:FALSE"]
        for o in (oids.APPLE_WWDR_INTERMEDIATE, oids.APPLE_RECEIPT_SIGNING):
            try:
                c.cert.extensions.get_extension_for_oid(x509.ObjectIdentifier(o))
                notes.append(o)
            except x509.ExtensionNotFound:
                pass
        try:
            c.cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage)
            notes.append("EKU codeSigning (critical)")
        except x509.ExtensionNotFound:
            pass
        rows.append(
            f"| `{n}` | {c.cert.subject.rfc4514_string()} | {issuer} | {c.cert.serial_number:#x} | "
            f"{c.cert.not_valid_before_utc:%Y-%m-%d}..{c.cert.not_valid_after_utc:%Y-%m-%d} | "
            f"{c.cert.signature_hash_algorithm.name} | {', '.join(notes)} |")
    return "\n".join(rows)


def readme(cases: list[dict], pki: dict[str, Cert]) -> str:
    return TEMPLATE.format(
        schema=schema_section(), rows=fixture_rows(cases, "receipts"), hostile_rows=fixture_rows(cases, "hostile"),
        pki_table=pki_rows(pki), BUNDLE_ID=BUNDLE_ID, opaque=OPAQUE_VALUE.hex(), sha1=sha1_hash(utf8(BUNDLE_ID)).hex(),
        guid=str(DEVICE_GUID).upper(), guid_bytes=DEVICE_GUID.bytes.hex())


TEMPLATE = """# Test receipts

Synthetic App Store receipts (PKCS#7 SignedData around a DER receipt payload)
signed by a private test PKI. **Generated — do not edit by hand.** Regenerate
from the repository root with

    python3 TestReceipts/generate.py            # regenerate, then an openssl self-check
    python3 TestReceipts/generate.py --no-check # regenerate only
    python3 TestReceipts/generate.py --check    # regenerate into a temporary folder and
                                                # compare with the committed files

(Python ≥ 3.11 + `cryptography`; the self-check needs the `openssl` command.)
The generator is the package `generator/`, one module per concept: `der`,
`oids`, `pki`, `payload`, `pkcs7`, `forgery`; `outcome` and `fixture` (how a
fixture is declared); the fixtures in `receipts`, `hostile_certificates` and
`hostile_content`; then `manifest` (the case schema), `readme`, `selfcheck`; the StoreKit 2
JWS fixtures have `jws_*` modules of their own (last section). `generate.py` only
runs it. The private keys in `pki/*.key.pem`
are reused when present, and certificates have fixed names, serials and dates,
so regenerating gives byte-identical files (RSA PKCS#1 v1.5 and the hostile
fixtures' ECDSA are deterministic); `--check` says so, or compare with
`cd TestReceipts/receipts && sha256sum -c SHA256SUMS`. If the keys are deleted,
new ones are created and every certificate and receipt changes.

Nothing here is derived from real receipts or Apple certificates.

{schema}
## Verification rules assumed by the outcomes

* "App Store rules": exactly one SignerInfo; eContentType is data and the
  content is embedded; digest SHA-256 (SHA-1 accepted unless a "require
  SHA-256" policy is set; anything else rejected); signature RSA PKCS#1 v1.5;
  chain signer ← intermediate ← root ending at the trusted root given with
  `--root pki/test-root.der`; the signer has the extension
  1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1;
  certificates are checked for validity **at the receipt creation date
  (attribute 12)**, not "now" (test-signer expires 2026-01-01).
* "StoreKit Testing mode": the receipt is signed directly by the trusted
  StoreKit certificate (`pki/storekit-test.der`), no Apple OIDs required.

## The outcome columns

A receipt fixture has one case per trust configuration it is tried under. The
first is the headline and is under App Store rules with
`--root pki/test-root.der` unless labelled; "signature **valid**, decoding
**fails**" means the payload decoder alone gives that code too (`decoder`).
"Decodes to" lists values (`receipt`) that hold under every configuration that
verifies the fixture.

## Fixtures (`receipts/`)

| File | What it is | Outcome a verifier must give |
|---|---|---|
{rows}

`SHA256SUMS` lists the SHA-256 of every file above.

## Hostile fixtures (`hostile/`)

Receipts an attacker with a developer account could write: forged certificates
claiming test-intermediate's name and key identifier (hand-written DER with
deterministic pseudo-random keys and signature bytes: no private halves), too
many certificates, keys outside the key policy, algorithm labels that do not fit
the key; then strings chosen to deceive a reader, sizes chosen to starve a
server, a look-alike identity, and every receipt type, all genuinely signed by
test-signer. `hostile/SHA256SUMS` lists their SHA-256.

| File | What it is | Outcome a verifier must give |
|---|---|---|
{hostile_rows}

## The sample payload

SET OF `SEQUENCE {{ type INTEGER, version INTEGER, value OCTET STRING }}`, all
version 1 except type 99. Written **unsorted**, in this order:

| Type | Value |
|---|---|
| 0 receipt type | UTF8String "ProductionSandbox" |
| 1 app item id | INTEGER 0 |
| 2 bundle id | UTF8String "{BUNDLE_ID}" |
| 3 application version | UTF8String "1.4.2" |
| 4 opaque value | raw bytes `{opaque}` |
| 5 SHA-1 hash | raw 20 bytes `{sha1}` |
| 10 age rating | IA5String "4+" |
| 12 creation date | IA5String "2025-06-01T12:00:00Z" |
| 17 in-app #1 | consumable (below) |
| 15 download id | INTEGER 0 |
| 16 version external identifier | INTEGER 0 |
| 17 in-app #2 | auto-renewable subscription (below) |
| 99 (unknown, **version 2**) | raw bytes `deadbeef` — must be kept as an unknown attribute |
| 18 original purchase date | IA5String "2013-08-01T07:00:00Z" |
| 17 in-app #3 | refunded non-consumable (below) |
| 19 original application version | UTF8String "1.0" |

SHA-1 hash = SHA1(device GUID bytes ‖ opaque value ‖ the full bundle id
attribute value, i.e. the UTF8String TLV `0c 20 …`), with device GUID
**{guid}** (bytes `{guid_bytes}`).

In-app entries (each a SET in type order 1701, 1702, …):

| Type | #1 consumable | #2 subscription | #3 refunded non-consumable |
|---|---|---|---|
| 1701 quantity | 3 | 1 | 1 |
| 1702 product id | com.example.coins.100 | com.example.pro.monthly | com.example.unlock |
| 1703 transaction id | 2000000000000001 | 2000000000000002 | 2000000000000003 |
| 1704 purchase date | 2025-05-01T10:00:00Z | 2025-05-20T09:30:00.250Z | 2025-04-02T08:00:00+0200 |
| 1705 original transaction id | 2000000000000001 | 2000000000000002 | 2000000000000003 |
| 1706 original purchase date | 2025-05-01T10:00:00Z | 2025-05-20T09:30:00Z | 2025-04-02T08:00:00+0200 |
| 1707 product type (1 consumable, 3 auto-renewable, 0 non-consumable, as in real receipts) | 1 | 3 | 0 |
| 1708 expires date | "" | 2025-06-20T09:30:00Z | "" |
| 1711 web order line item id | 0 | 5000000000123456 | 0 |
| 1712 cancellation date | "" | "" | 2025-04-10T00:00:00-0700 |
| 1713 is trial period | 0 | 1 | 0 |
| 1719 is in intro offer period | 0 | 0 | 0 |
| 1721 promotional offer id | — | com.example.pro.winback | — |
| 1799 (unknown, version 1) | — | UTF8String "kept" | — |

Strings are UTF8String, dates IA5String (empty IA5String when absent),
numbers DER INTEGER, all wrapped in the attribute's OCTET STRING.

`storekit.receipt` payload: 0 "Xcode", 1 = 0, 2 "{BUNDLE_ID}", 3 "1.4.2",
4/5 as above, 12 "2025-06-01T13:00:00+0100", one 17 (quantity 1,
com.example.coins.100, transaction "0", purchase 2025-06-01T12:59:30+0100,
product type 1), 19 "1.0", 21 "4001-01-01T00:00:00+0000".

## Container

DER `ContentInfo {{ signedData, [0] SignedData {{ version 1, digestAlgorithms
{{ sha256 + NULL }}, encapContentInfo {{ data, [0] OCTET STRING payload }},
certificates [0] IMPLICIT (signer, intermediate, root — in that order),
signerInfos {{ SignerInfo {{ version 1, IssuerAndSerialNumber (issuer Name
copied from the signer certificate), sha256, rsaEncryption + NULL, signature
}} }} }} }}`, no signed attributes unless stated.

## Test PKI (`pki/`)

RSA-2048 keys `NAME.key.pem` (PKCS#8, unencrypted — test keys only),
certificates `NAME.der`; `NAME.pem` too for the roots (test-root, other-root,
storekit-test). CA certificates have basicConstraints CA:TRUE critical and
keyUsage keyCertSign+cRLSign critical; end-entity certificates CA:FALSE
critical and keyUsage digitalSignature critical; all but storekit-test have a
SubjectKeyIdentifier, all issued ones an AuthorityKeyIdentifier. The Apple
OIDs are non-critical extensions whose value is DER NULL (`05 00`).
storekit-test has keyUsage digitalSignature+keyCertSign critical and
extendedKeyUsage codeSigning critical.

| Name | Subject | Issuer | Serial | Validity (UTC) | Signed with | Notes |
|---|---|---|---|---|---|---|
{pki_table}

## Self-check used by the generator

    openssl cms -verify -inform DER -in receipts/sample.receipt \\
        -CAfile pki/test-root.pem -purpose any -attime 1748779200 -out /dev/null

(1748779200 = 2025-06-01T12:00:00Z.) Likewise for sha1, signed-attributes and
(with `-CAfile pki/storekit-test.pem`) storekit; tampered-payload must fail;
every `*.receipt` must parse with `openssl asn1parse -inform DER`.
"""
