#!/usr/bin/env python3
"""A receipt-server webhook receiver: checks each delivery's signature with the Standard Webhooks
reference library (pip install standardwebhooks), skips a webhook-id it has handled already
(deliveries are at least once), and answers 2xx only once the event is handled.

Usage: RECEIPT_SERVER_WEBHOOK_SECRET=whsec_... python3 webhook-receiver.py [PORT]
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks.webhooks import Webhook

webhook = Webhook(os.environ["RECEIPT_SERVER_WEBHOOK_SECRET"])
handled: set[str] = set()  # keep this in your database, beside the effect of each event


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            # Checks webhook-signature over webhook-id, webhook-timestamp (within 5 minutes) and the body.
            event = webhook.verify(body, {name.lower(): value for name, value in self.headers.items()})
        except Exception as error:  # noqa: BLE001
            print(f"refused: {error}", file=sys.stderr)
            self.send_response(400)
            self.end_headers()
            return
        event_id = self.headers["webhook-id"]
        if event_id not in handled:
            data = event["data"]
            if event["type"] == "entitlement.changed":
                print(f"{data['user']}: {data['productId']} {data['previousStatus']} -> {data['status']}"
                      f" (entitled: {data['entitled']})", flush=True)
            else:
                print(f"{data['user']}: {event['type']} {data['transactionId']}", flush=True)
            handled.add(event_id)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 9000), Handler).serve_forever()
