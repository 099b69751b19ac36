"""The generator of ReceiptParser's test fixtures (TestReceipts/): a test PKI, receipts, hostile
receipts, the manifest of their expected outcomes (fixtures.json) and README.md.

Run it with `python3 TestReceipts/generate.py` (see `__main__.py` for the options). Modules,
in the order data flows: der, oids -> pki, payload -> pkcs7, forgery -> outcome, fixture ->
receipts, hostile_certificates, hostile_content -> manifest -> readme; selfcheck runs openssl
over the result.
"""
