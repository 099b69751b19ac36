#!/usr/bin/env python3
# Reads `perf script -F comm,tid,ip,sym,dso | swift demangle --simplified` (Server/scripts/profile)
# and gives each sample to the component of its frame nearest the leaf that names one: malloc
# under JSONWriter is response writing, under Base64.decode request decoding. Samples with
# a kernel leaf are counted in their component and also shown as its kernel part.
import re, sys, collections
RULES = [  # (component, regex on a frame's symbol+dso), nearest-to-leaf match wins
 ("response JSON: JSONWriter (both routes)", r"JSONWriter|JSONWritable|VerifyReceiptResponse\.|TypedResponse\.|CivilTime|PacificTime|RFC3339\.write|ByteBuffer\.init\(json|Response\.json|write\(to: inout"),
 ("response JSON: JSONEncoder (none expected)", r"JSONEncoder|_JSONEncoder"),
 ("request: base64 decoding", r"Base64\.decode"),
 ("request: StrictJSON parsing", r"StrictJSON|VerifyReceiptRequest"),
 ("logging", r"DisplaySafeLogHandler|StreamLogHandler|Logger\.|LogRequestsMiddleware|ReceiptService\.log"),
 ("verification: OpenSSL", r"libcrypto|libssl"),
 ("verification: payload decoding (Swift)", r"ReceiptPayloadDecoder|ReceiptDecoder|ASN1|DER"),
 ("verification: other (container, chain cache, checks)", r"ReceiptVerifier|ReceiptContainer|ChainCache|ReceiptService\.verify|VerifiedReceipt|Receipt\b|excludingOldTransactions"),
 ("verification gate", r"VerificationGate|ReceiptService\.gated"),
 ("body collection", r"readBody|collect\(upTo|RequestBody|NIOAsyncChannelInboundStream|readableBytesView"),
 ("route handlers (own code)", r"in buildApplication\(|ReceiptService\."),
 ("framework: Hummingbird router/responder", r"Hummingbird|Router|Responder|Middleware|HTTPServerBuilder|HTTP1Channel|ErrorMiddleware"),
 ("framework: NIO (HTTP codec, channel, event loop)", r"NIO|ChannelPipeline|ByteBuffer|llhttp|EventLoop|Channel"),
 ("Swift concurrency runtime (task hops, executors)", r"swift_task|swift_job|swift::AsyncTask|Executor|dispatch_|_dispatch|swift_continuation"),
]
RULES = [(n, re.compile(p)) for n, p in RULES]
counts = collections.Counter(); kernel = collections.Counter(); total = 0
threads = collections.Counter()
def flush(frames, comm):
    global total
    if not frames: return
    total += 1
    threads[re.sub(r"#\d+$", "", comm)] += 1
    leaf_kernel = "[kernel" in frames[0]
    for f in frames:
        for name, rx in RULES:
            if rx.search(f):
                counts[name] += 1
                if leaf_kernel: kernel[name] += 1
                return
    counts["kernel, no user frame" if leaf_kernel else "other"] += 1
    if leaf_kernel: kernel["kernel, no user frame"] += 1
frames = []; comm = ""
for line in sys.stdin:
    if not line.strip():
        flush(frames, comm); frames = []; continue
    if not line[0].isspace():
        flush(frames, comm); frames = []; comm = line.split()[0]; continue
    parts = line.strip().split(" ", 1)
    frames.append(parts[1] if len(parts) > 1 else parts[0])
flush(frames, comm)
print(f"samples: {total}")
for name, n in counts.most_common():
    print(f"{100*n/total:6.1f} %  {name}" + (f"  (of which in the kernel: {100*kernel[name]/total:.1f} %)" if kernel[name] else ""))
print("threads: " + ", ".join(f"{k} {100*v/total:.0f} %" for k, v in threads.most_common()))
