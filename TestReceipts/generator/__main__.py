"""Regenerate the fixtures, or check that regenerating changes nothing.

    python3 TestReceipts/generate.py            # regenerate + openssl self-check
    python3 TestReceipts/generate.py --no-check  # regenerate only
    python3 TestReceipts/generate.py --check     # regenerate into a temporary folder, compare

Needs Python >= 3.11 and the `cryptography` package; the self-check needs the `openssl` CLI.

Written into the output folder (TestReceipts/ by default):

    pki/NAME.key.pem   RSA-2048 private keys (PKCS#8 PEM, unencrypted); reused if present
    pki/NAME.der       certificates (DER); NAME.pem as well for the trust roots
    receipts/...       the fixtures, plus SHA256SUMS
    hostile/...        hostile fixtures (forged certificates, bombs, hostile strings), plus SHA256SUMS
    pki/jws-*          the StoreKit 2 JWS test PKI (EC keys, reused if present)
    jws/...            StoreKit 2 JWS tokens and JSON bodies, plus SHA256SUMS
    cases.json         every fixture's expected outcomes (receipts and tokens, one schema), read by the Swift tests
    README.md          written from cases.json and the PKI
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

from .fixture import Kit
from .hostile_certificates import CERTIFICATES
from .hostile_content import CONTENT
from .jws_fixture import JWSKit
from .jws_manifest import build_jws, jws_cases
from .jws_pki import build_jws_pki
from .jws_readme import jws_section
from .jws_selfcheck import jws_check
from .manifest import manifest, manifest_json
from .pki import build_pki
from .readme import readme
from .receipts import RECEIPTS
from .selfcheck import openssl_check

FOLDER = Path(__file__).resolve().parent.parent
FIXTURES = [*RECEIPTS, *CERTIFICATES, *CONTENT]
FOLDERS = ("receipts", "hostile", "jws")  # each with a SHA256SUMS of its fixtures


def checksums(files: dict[str, bytes]) -> bytes:
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(files.items())).encode()


def generate(out: Path) -> tuple[dict[str, bytes], Kit]:
    """Every output but the PKI (which build_pki writes itself), by path under `out`."""
    kit = Kit(build_pki(out / "pki"))
    files = {f.file: f.build(kit) for f in FIXTURES}
    assert all(len(data) < 1 << 20 for data in files.values()), "a fixture of a megabyte or more"
    jws_kit = JWSKit(build_jws_pki(out / "pki"))
    files |= build_jws(jws_kit)
    for folder in FOLDERS:
        prefix = folder + "/"
        sums = checksums({k.removeprefix(prefix): v for k, v in files.items() if k.startswith(prefix)})
        files[prefix + "SHA256SUMS"] = sums
    data = manifest(FIXTURES, jws_cases())
    files["cases.json"] = manifest_json(data).encode()
    files["README.md"] = (readme(data["cases"], kit.pki) + jws_section(data["cases"], jws_kit.pki)).encode()
    return files, kit


def write(out: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def check(committed: Path) -> int:
    """Regenerate with the committed keys into a temporary folder and compare every file."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "pki").mkdir()
        for key in (committed / "pki").glob("*.key.pem"):
            shutil.copy(key, out / "pki" / key.name)
        files, _ = generate(out)
        write(out, files)
        produced = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
        differing = [p for p in produced if not (committed / p).is_file()
                     or not filecmp.cmp(out / p, committed / p, shallow=False)]
        stale = [str(p.relative_to(committed)) for folder in FOLDERS if (committed / folder).is_dir()
                 for p in (committed / folder).iterdir() if str(p.relative_to(committed)) not in produced]
    for p in differing:
        print(f"  differs: {p}")
    for p in stale:
        print(f"  not generated: {p}")
    print(f"{len(produced)} files compared: " + ("identical" if not differing and not stale else "DIFFERENT"))
    return 0 if not differing and not stale else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate ReceiptParser's test fixtures.")
    ap.add_argument("--no-check", action="store_true", help="skip the openssl self-check")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder and compare with the committed files; write nothing")
    ap.add_argument("--out", type=Path, default=FOLDER, help="output folder (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.check:
        return check(args.out)

    print("PKI, receipts, manifest, README ...")
    files, kit = generate(args.out)
    write(args.out, files)
    print(f"wrote {len(files)} files to {args.out}")
    if args.no_check:
        return 0
    print("openssl self-check ...")
    ok = openssl_check(args.out, list(files), kit.sample_payload)
    print("JWS self-check ...")
    ok &= jws_check(args.out)
    if not ok:
        print("SELF-CHECK FAILED")
        return 1
    print("self-check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
