"""README.md's StoreKit 2 section, written from cases.json's jws/ cases (the tables) and the JWS PKI."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from . import oids
from .jws_manifest import GROUPS
from .jws_outcome import JWS_ROOT, RULES, UNREADABLE
from .jws_pki import SPECS
from .outcome import OPTIONS
from .pki import Cert
from .readme import shown


def option_text(key: str, value: object) -> str:
    if key == "as_kind":
        return f"asked for as `{value}`"
    flag = OPTIONS[key][0].split()[0]
    return f"`{flag} {shown(str(value))}`"


def case_text(entry: dict) -> str:
    options = ", ".join(option_text(k, v) for k, v in entry["options"].items() if (k, v) != ("root", JWS_ROOT))
    verdict = "**verified**" if entry["error"] is None else f"**{entry['error']}**"
    text = f"{verdict} (exit {entry['exit_status']})"
    if entry.get("other_errors"):
        text += " — also " + ", ".join(f"`{c}`" for c in entry["other_errors"])
    if entry.get("note"):
        text += " — " + shown(entry["note"])
    return (options + ": " if options else "") + text


def group_table(group, entries: list[dict]) -> str:
    rows = []
    for f in group:
        cases = [e for e in entries if e["file"] == f"jws/{f.file}"]
        kind = f.kind or "none"
        if f.members:
            kind += " (body: " + ", ".join(f"`{m['name']}` {m['kind']}" for m in cases[0]["members"]) + ")"
        rows.append(f"| `{f.file}` | {kind} | {shown(f.what)} | {'; '.join(case_text(e) for e in cases)} |")
    return (f"### {group.title} ({len(group)} files, {len(entries_of(group, entries))} cases)\n\n{group.about}\n\n"
            "| File | Kind | What it is | Cases: options → outcome |\n|---|---|---|---|\n" + "\n".join(rows))


def entries_of(group, entries: list[dict]) -> list[dict]:
    names = {f"jws/{f.file}" for f in group}
    return [e for e in entries if e["file"] in names]


def key_text(cert: x509.Certificate) -> str:
    key = cert.public_key()
    return f"EC {key.curve.name}" if isinstance(key, ec.EllipticCurvePublicKey) else f"RSA {key.key_size}"


def pki_rows(pki: dict[str, Cert]) -> str:
    rows = []
    for spec in SPECS:
        cert = pki[spec.name].cert
        try:
            bc = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
            path_length = "" if bc.path_length is None else f", pathlen {bc.path_length}"
            notes = [f"CA:TRUE{path_length}" if bc.ca else "CA:FALSE"]
        except x509.ExtensionNotFound:
            notes = ["no basicConstraints"]
        notes += [o for o in (oids.APPLE_WWDR_INTERMEDIATE, oids.APPLE_RECEIPT_SIGNING) if o in spec.markers]
        if spec.note:
            notes.append(spec.note)
        rows.append(f"| `{spec.name}` | {cert.subject.rfc4514_string()} | {spec.issuer or 'self-signed'} | "
                    f"{cert.serial_number:#x} | {cert.not_valid_before_utc:%Y-%m-%d}.."
                    f"{cert.not_valid_after_utc:%Y-%m-%d} | {key_text(cert)} | {cert.signature_hash_algorithm.name} | {', '.join(notes)} |")
    return "\n".join(rows)


def counts(entries: list[dict]) -> str:
    by_exit = {s: sum(e["exit_status"] == s for e in entries) for s in (0, 1, 2)}
    files = len({e["file"] for e in entries})
    return (f"{files} files, {len(entries)} cases: {by_exit[0]} verified (exit 0), {by_exit[1]} refused by a rule "
            f"(exit 1), {by_exit[2]} unreadable (exit 2)")


def jws_section(cases: list[dict], pki: dict[str, Cert]) -> str:
    entries = [c for c in cases if c["file"].startswith("jws/")]
    tables = "\n\n".join(group_table(g, entries) for g in GROUPS)
    return SECTION.format(counts=counts(entries), tables=tables, pki_rows=pki_rows(pki),
                          unreadable=", ".join(f"`{c}`" for c in UNREADABLE),
                          rules=", ".join(f"`{c}`" for c in RULES))


SECTION = """
## StoreKit 2 JWS fixtures (`jws/`)

Compact JWS tokens (`.jws`) and the JSON bodies they arrive in (`.json`), signed
by the JWS test PKI below, shaped like Apple's StoreKit 2 signed data:
{counts}. Nothing is derived from real tokens or Apple's certificates.
Made by the `jws_*` modules of the generator: `jsontext` (JSON written byte for
byte: key order, a key twice, escaped keys, raw numbers), `jws` (compact
serialization, ES256 as r ‖ s), `jws_pki`, `storekit2` (the payloads),
`jws_outcome` and `jws_fixture` (how a file, its cases and its probe are
declared), the fixtures in `jws_valid`, `jws_valid_edges`, `jws_syntax`,
`jws_trust`, `jws_chain` and `jws_content`, then `jws_manifest` (their cases), `jws_readme`
and the self-check (`jws_rules`, `jws_reading`, `jws_selfcheck`). ECDSA signatures (tokens and
certificates) are deterministic (RFC 6979), so the files regenerate byte for
byte from the keys in `pki/jws-*.key.pem`. Each file holds the token (or body)
and one line feed, unless its description says otherwise.
`jws/SHA256SUMS` lists every fixture's SHA-256.

Their cases are in `cases.json` (see "The case manifest" above): every case
names its trust, `--root pki/jws-root.der` unless it says otherwise (the
tables below leave that root out).

### Rules assumed by the outcomes

* **Exit status follows the code.** Unreadable (exit 2): {unreadable}. A
  broken rule or failed check (exit 1): {rules}. This holds for nested tokens and
  body members too: a notification whose nested token cannot be read gives that
  token's code and exit 2.
* **Order of checks** (it decides the code only for the few tokens with several
  defects, which list the others in `other_errors`): size (over 1 MiB, before
  anything else) → three parts, strict base64url → header, then payload: UTF-8,
  JSON (depth ≤ 64 with the outer object as level 1, no key twice after
  unescaping), an object → the payload's members have their documented JSON types
  → `alg`, `crit` → `x5c` shape (an array of 3 strings; 1 in StoreKit Testing
  mode), each entry strict standard base64 of exactly one DER certificate,
  `x5c[2]` byte for byte the configured root → intermediate issued by the root
  (name and signature) and a CA, leaf issued by the intermediate → the two Apple
  markers → leaf key EC P-256 → the signature → the kind → the date (presence,
  then every certificate's validity) → nested tokens, each through all of this,
  then their agreement with the notification → the caller's checks.
* **Syntax.** Whitespace around the whole token (space, tab, CR, LF) is not part
  of it; anything else that is not base64url (a space, line break, U+200B or NUL
  inside, `=`, `+`, `/`) makes it malformed, as do a part whose length is 1 mod 4
  and unused bits that are not zero (strict decoding: one token string per
  token). An empty part is valid base64url of zero bytes, so `header.payload.` is
  three parts with an empty signature. UTF-8 is checked before JSON (bytes that
  are not UTF-8: `malformedToken`); a byte order mark is not JSON
  (`invalidJSON`); a header or payload that is JSON but not an object is
  `malformedToken`. 1 MiB = 1048576 bytes of token, whitespace around excluded:
  `size-at-limit.jws` is exactly that and verifies.
* **Header.** `alg` must be the string `ES256` exactly; any `crit` (even empty)
  is refused; everything else (`kid`, `typ`, `cty`, `x5t#S256`, `jku`, `x5u`,
  `jwk`, unknown members) is ignored and never fetched or used: the only key is
  `x5c[0]`'s.
* **Certificates.** `x5c` not an array is `untrustedChain` (it holds no chain);
  an entry that is not a string is `invalidCertificate`. "Issued by" means the
  issuer's name and signature; a CA means basicConstraints CA:TRUE (no extension
  is not a CA). Markers: the leaf needs 1.2.840.113635.100.6.11.1, the
  intermediate 1.2.840.113635.100.6.2.1 (presence). With
  `--storekit-testing`, `x5c` is exactly the configured certificate (byte for
  byte), the signature is checked with its key and it is judged at the token's
  date like any certificate; no Apple markers are needed.
* **Signature.** Exactly 64 bytes r ‖ s with 0 < r, s < n; a DER signature is
  not verified. **High-S is accepted**: OpenSSL and CryptoKit verify both (r, s)
  and (r, n − s), and JWS (RFC 7515/7518) has no low-S rule; the only effect is a
  second token string for the same payload, harmless because tokens are told
  apart by their ids (transactionId, notificationUUID), never by their bytes.
* **Dates.** The chain is judged at the payload's `signedDate` (an
  AppTransaction's `receiptCreationDate`), never at "now"; validity includes
  notBefore and notAfter (RFC 5280) and is compared to the millisecond.
  Fractional milliseconds (Xcode) are accepted; the fixtures' fractions are all
  below one half, so truncating and rounding to milliseconds agree. `--at`
  replaces the date of the token and of its nested tokens. No date and no `--at`:
  `missingSignedDate`. A nested token is judged at its own date and does not
  borrow its notification's.
* **Kinds.** Detected from member names (notificationType → notification;
  receiptType, receiptCreationDate, originalApplicationVersion or
  applicationVersion → appTransaction; transactionId → transaction; a renewal
  member → renewalInfo; else none: `wrongKind`). A kind asked for (`as_kind`, a
  body member's name, a nested token's place) must equal the detected one.
* **Checks.** Identifiers and environments compare byte for byte (`sandbox` is
  not `Sandbox`; decomposed é is not precomposed é). A check on a kind that has
  no such member (bundle id or App Apple ID on renewal info, App Apple ID on a
  transaction) is not applicable and passes; a token of a kind that has the
  member but lacks it (absent or `null`) fails the check. Notifications are
  checked with the values of data, summary, externalPurchaseToken or appData;
  their nested tokens must agree with them on bundleId, environment (an
  AppTransaction's receiptType) and appAppleId where both carry them.
* **Bodies.** Every signed member is verified (each of `signedTransactions`,
  both `signedTransactionInfo` and `signedRenewalInfo`); the body verifies only
  when all do, and the first failure in document order gives the code. Other
  members (`revision`, `hasMore`, ...) are read, not checked. A key twice
  anywhere in the body is `duplicateKey`; the depth limit counts the body.
* **Display.** Payload strings with terminal escapes, bidi controls, line
  breaks and tabs verify; text and summary outputs show them escaped (as for
  receipts), JSON keeps the exact value.

{tables}

### JWS test PKI (`pki/jws-*`)

Keys `NAME.key.pem` (PKCS#8, unencrypted, test keys only; jws-root-twin uses
jws-root's), certificates `NAME.der`, and `NAME.pem` for jws-root,
jws-attacker-root and jws-storekit. Extensions in the order Apple's have them:
CA certificates SubjectKeyIdentifier (root) / AuthorityKeyIdentifier and
SubjectKeyIdentifier (issued), basicConstraints critical, keyUsage
keyCertSign+cRLSign critical; leaves basicConstraints CA:FALSE critical,
AuthorityKeyIdentifier, SubjectKeyIdentifier, keyUsage digitalSignature
critical; the Apple markers non-critical, value DER NULL. jws-storekit and
jws-storekit-other copy Xcode's "StoreKit Testing in Xcode" layout:
basicConstraints CA:TRUE pathlen 0 critical, subjectAltName email, keyUsage
digitalSignature critical, no key identifiers, no markers.

| Name | Subject | Issuer | Serial | Validity (UTC) | Key | Signed with | Notes |
|---|---|---|---|---|---|---|---|
{pki_rows}

### JWS self-check used by the generator

`generator/jws_selfcheck.py` reads only the files: an independent verifier
(Python `json` with a duplicate-key hook, `cryptography` for the signature and
each certificate signature, its own base64 and kind rules in `jws_rules`) must
reach every case's exit status and code, and find exactly the declared defects
in every token that has several; each hostile file's specific defect is probed
(the signature really is DER, the key really is there twice, the part really
holds a space, ...) by the probe declared beside its builder, written with
`jws_reading` (the file's bytes read with `json`, `base64` and `cryptography`,
nothing the tokens were made with), and every file that must not verify needs
one; and `openssl verify -x509_strict -attime` accepts the chain of
every token that verifies, at its date.
"""
