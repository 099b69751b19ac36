"""The generator of ReceiptParser's test fixtures (TestReceipts/): a test PKI, receipts, hostile
receipts, StoreKit 2 JWS tokens, the manifest of their expected outcomes (cases.json, one
schema for both) and README.md.

Run it with `python3 TestReceipts/generate.py` (see `__main__.py` for the options). Modules,
in the order data flows: der, oids -> pki, payload -> pkcs7, forgery -> outcome, fixture ->
receipts, hostile_certificates, hostile_content -> manifest -> readme; selfcheck runs openssl
over the result. JWS: jsontext, jws, jws_pki, storekit2 -> jws_outcome, jws_fixture ->
jws_valid, jws_syntax, jws_trust, jws_content -> jws_manifest -> manifest, jws_readme; jws_selfcheck
verifies the result independently.
"""
