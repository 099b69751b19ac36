"""The JWS self-check: an independent reading of jws/ that must agree with cases.json's jws/ cases.

It uses nothing the generator made the tokens with, only the files: Python's json (with a hook
that refuses a key twice), its own strict base64, `cryptography` for every signature (the
token's ES256 and the certificates'), and its own statement of the rules (README, "Rules
assumed by the outcomes"). For every case it finds the defects in the order of those rules and
checks that the first is the manifest's code and that a token has exactly the defects the
manifest declares; then each hostile file's specific defect is probed (the probes are declared
beside the builders, written in `jws_reading`'s independent words), and `openssl verify`
accepts the chain of every token that verifies, at its date.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import tempfile
from decimal import Decimal
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from .jws_manifest import token_files
from .jws_rules import (INTERMEDIATE_OID, LEAF_OID, MAX_SIZE, N, UNREADABLE, Unreadable, b64std_strict, b64url_strict,
                        agreement, check_types, identity, json_strict, kind_of, millis)


class Verifier:
    def __init__(self, out: Path, options: dict):
        self.options = options
        self.storekit = "storekit_testing" in options
        self.anchor = (out / (options.get("storekit_testing") or options["root"])).read_bytes()
        self.at = options.get("at")
        self.chains: list[tuple[list[bytes], Decimal]] = []  # verified chains and their dates, for openssl

    def token(self, text: str, expected_kind: str | None, defects: list[str]) -> dict | None:
        """Reads and checks one token, appending every broken rule to `defects` in the order of the
        rules; raises Unreadable for what cannot be read. Returns the payload."""
        text = text.strip(" \t\r\n")
        if len(text.encode()) > MAX_SIZE:
            raise Unreadable("tooLarge", "over 1 MiB")
        segments = text.split(".")
        if len(segments) != 3:
            raise Unreadable("malformedToken", f"{len(segments)} parts")
        header_bytes, payload_bytes, signature = (b64url_strict(s) for s in segments)
        header, payload = json_strict(header_bytes), json_strict(payload_bytes)
        if not isinstance(header, dict) or not isinstance(payload, dict):
            raise Unreadable("malformedToken", "not an object")
        kind = kind_of(payload)
        if kind is not None:
            check_types(payload, kind)
        start = len(defects)
        if header.get("alg") != "ES256":
            defects.append("unsupportedSignatureAlgorithm")
        if "crit" in header:
            defects.append("unsupportedCriticalHeader")
        certs = self.chain(header.get("x5c"), defects)
        if certs:
            self.signature(certs[0], (segments[0] + "." + segments[1]).encode(), signature, defects)
        if kind is None or (expected_kind is not None and kind != expected_kind):
            defects.append("wrongKind")
        date = self.date(payload, kind, defects)
        if certs and date is not None:
            moment = dt.datetime.fromtimestamp(0, dt.timezone.utc) + dt.timedelta(milliseconds=float(date))
            for cert in certs:
                if not cert.not_valid_before_utc <= moment <= cert.not_valid_after_utc:
                    defects.append("certificateNotValidAtTime")
                    break
        if kind == "notification":
            self.nested(payload, defects)
        if len(defects) == start and certs:
            self.chains.append(([c.public_bytes(serialization.Encoding.DER) for c in certs], date))
        return payload

    def chain(self, x5c: object, defects: list[str]) -> list[x509.Certificate]:
        count = 1 if self.storekit else 3
        if not isinstance(x5c, list) or len(x5c) != count:
            defects.append("untrustedChain")
            return []
        ders = [b64std_strict(e) if isinstance(e, str) else None for e in x5c]
        certs = []
        for der in ders:
            try:
                cert = x509.load_der_x509_certificate(der) if der else None
            except ValueError:
                cert = None
            if cert is None or cert.public_bytes(serialization.Encoding.DER) != der:
                defects.append("invalidCertificate")
                return []
            certs.append(cert)
        if ders[-1] != self.anchor:
            defects.append("untrustedChain")
        if self.storekit:
            return certs
        leaf, inter, root = certs
        if not (issued(inter, root) and is_ca(inter) and issued(leaf, inter)):
            defects.append("untrustedChain")
        if not (has(leaf, LEAF_OID) and has(inter, INTERMEDIATE_OID)):
            defects.append("missingAppleExtension")
        key = leaf.public_key()
        if not (isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1)):
            defects.append("keyNotAllowed")
        return certs

    @staticmethod
    def signature(cert: x509.Certificate, signed: bytes, signature: bytes, defects: list[str]) -> None:
        key = cert.public_key()
        r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
        try:
            if not (isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1)):
                raise InvalidSignature
            if len(signature) != 64 or not (0 < r < N and 0 < s < N):
                raise InvalidSignature
            key.verify(encode_dss_signature(r, s), signed, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            defects.append("signatureInvalid")

    def date(self, payload: dict, kind: str | None, defects: list[str]) -> Decimal | None:
        if self.at:
            return Decimal(int(dt.datetime.fromisoformat(self.at.replace("Z", "+00:00")).timestamp() * 1000))
        value = millis(payload.get("receiptCreationDate" if kind == "appTransaction" else "signedDate"))
        if value is None:
            defects.append("missingSignedDate")
        return value

    def nested(self, payload: dict, defects: list[str]) -> None:
        outer = identity(payload, "notification")
        places = [(payload.get("data"), "signedTransactionInfo", "transaction"),
                  (payload.get("data"), "signedRenewalInfo", "renewalInfo"),
                  (payload.get("appData"), "signedAppTransactionInfo", "appTransaction")]
        inners = []
        for holder, member, kind in places:
            if not isinstance(holder, dict) or holder.get(member) is None:
                continue
            inner = self.token(holder[member], kind, defects)
            inners.append(inner)
            found = identity(inner, kind_of(inner))
            for field, code in (("bundle", "appIdentityMismatch"), ("environment", "environmentMismatch"),
                                ("appAppleId", "appIdentityMismatch")):
                if found.get(field) is not None and outer.get(field) is not None and found[field] != outer[field]:
                    defects.append(code)
        if all(isinstance(i, dict) for i in inners):
            agreement([payload, *inners], defects)

    def checks(self, payload: dict, defects: list[str]) -> None:
        found = identity(payload, kind_of(payload))
        expected = {"bundle": self.options.get("bundle_id"), "appAppleId": self.options.get("app_apple_id"),
                    "environment": ENVIRONMENTS.get(self.options.get("environment"))}
        for field, code in (("bundle", "appIdentityMismatch"), ("environment", "environmentMismatch"),
                            ("appAppleId", "appIdentityMismatch")):
            if expected[field] is not None and field in found and found[field] != expected[field]:
                defects.append(code)


def issued(cert: x509.Certificate, issuer: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(issuer)
        return True
    except (ValueError, TypeError, InvalidSignature):
        return False


def is_ca(cert: x509.Certificate) -> bool:
    try:
        return cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        return False


def has(cert: x509.Certificate, dotted: str) -> bool:
    return any(e.oid.dotted_string == dotted for e in cert.extensions)


# receipt-dump's --environment words, as payloads spell the environment.
ENVIRONMENTS = {"production": "Production", "sandbox": "Sandbox", "xcode": "Xcode"}
SIGNED_MEMBERS = {"signedPayload": "notification", "signedTransactionInfo": "transaction",
                  "signedRenewalInfo": "renewalInfo", "signedAppTransactionInfo": "appTransaction"}


def run_case(out: Path, entry: dict) -> tuple[str | None, list[str], Verifier]:
    """(the first code, every defect found) of one case."""
    data = (out / entry["file"]).read_bytes()
    verifier = Verifier(out, entry["options"])
    defects: list[str] = []
    try:
        text = data.decode("utf-8")
        if entry["input"] == "body":
            body = json_strict(data, "invalidJSON")
            tokens = []
            for key, value in body.items():
                if key == "signedTransactions":
                    tokens += [(v, "transaction") for v in value]
                elif key in SIGNED_MEMBERS:
                    tokens.append((value, SIGNED_MEMBERS[key]))
        else:
            tokens = [(text, entry["options"].get("as_kind"))]
        payloads = []
        for token, kind in tokens:
            payload = verifier.token(token, kind, defects)
            if not defects:
                verifier.checks(payload, defects)
            if defects:
                break
            payloads.append(payload)
        if not defects:
            agreement(payloads, defects)
    except Unreadable as e:
        return e.code, [e.code], verifier
    except UnicodeDecodeError:
        return "malformedToken", ["malformedToken"], verifier
    return (defects[0] if defects else None), defects, verifier


# --- openssl, on the chains that verify

def openssl_chains(chains: dict[tuple, bool]) -> bool:
    exe = shutil.which("openssl")
    if exe is None:
        print("  openssl not found; chain cross-check skipped")
        return True
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def pem(name: str, der: bytes) -> str:
            path = folder / name
            path.write_bytes(x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM))
            return str(path)
        for ders, date in chains:
            anchor = pem("anchor.pem", ders[-1])
            attime = int(date) // 1000
            if any(x509.load_der_x509_certificate(d).not_valid_after_utc.timestamp() == attime for d in ders):
                attime -= 1  # OpenSSL's notAfter is exclusive (X509_cmp_time), RFC 5280's inclusive
            args = [exe, "verify", "-x509_strict", "-no-CApath", "-no-CAstore", "-CAfile", anchor,
                    "-attime", str(attime)]
            if len(ders) == 3:
                args += ["-untrusted", pem("untrusted.pem", ders[1])]
            r = subprocess.run([*args, pem("leaf.pem", ders[0])], capture_output=True, text=True)
            if r.returncode != 0:
                ok = False
                print(f"  FAIL openssl verify at {date}: {r.stdout.strip()} {r.stderr.strip()}")
    print(f"  openssl verify -x509_strict: {len(chains)} verified chains at their dates "
          + ("accepted" if ok else "NOT all accepted"))
    return ok


def jws_check(out: Path) -> bool:
    entries = [c for c in json.loads((out / "cases.json").read_text())["cases"] if c["file"].startswith("jws/")]
    ok, chains = True, {}
    for entry in entries:
        code, found, verifier = run_case(out, entry)
        declared = [entry["error"], *entry.get("other_errors", [])] if entry["error"] else []
        exit_status = 0 if code is None else 2 if code in UNREADABLE else 1
        if code != entry["error"] or exit_status != entry["exit_status"] or sorted(set(found)) != sorted(declared):
            ok = False
            print(f"  FAIL {entry['file']} {entry['options']}: manifest {entry['error']} + "
                  f"{entry.get('other_errors', [])}, found {found}")
        if code is None:
            for ders, date in verifier.chains:
                chains[tuple(ders), date] = True
    print(f"  independent verifier: {len(entries)} cases " + ("agree with cases.json" if ok else "DISAGREE"))
    verified = {e["file"] for e in entries if e["error"] is None}
    probed = {f"jws/{f.file}": f.probes for f in token_files() if f.probes}
    unprobed = sorted({e["file"] for e in entries} - verified - set(probed))
    if unprobed:
        ok = False
        print(f"  FAIL no defect probe for {unprobed}")
    count = 0
    for file, probes in probed.items():
        data = (out / file).read_bytes()
        for probe in probes:
            count += 1
            try:
                holds = probe.holds(data, out)
            except Exception as e:  # noqa: BLE001 - a probe that cannot even run has failed
                holds, file = False, f"{file} ({e})"
            if not holds:
                ok = False
                print(f"  FAIL defect probe {file}")
    print(f"  defect probes: {count} on {len(probed)} files " + ("have their defect" if ok else "NOT all"))
    return openssl_chains(chains) and ok

