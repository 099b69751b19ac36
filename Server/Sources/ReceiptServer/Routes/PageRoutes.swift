import Hummingbird
import NIOCore
import ReceiptParser

/// The support page: `GET /` and `POST /`, where support staff paste a base64 receipt or signed
/// data; with a ledger, `POST /ledger`, the page's ledger lookup (and an order id asked of Apple
/// with the server's credentials, which the page never shows).
struct PageRoutes {
    let service: ReceiptService
    let ledger: ServerLedger?
    /// Looks order ids up at Apple, when the server has App Store credentials.
    var reconciler: Reconciler? = nil

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let service = self.service
        let configuration = service.configuration
        let ledgerSection = ledger == nil ? "" : SupportPage.ledgerSection(.form)
        let reconciler = self.reconciler

        routes.get("/") { _, _ in
            Self.html(SupportPage.render(nil, input: "", now: configuration.statusTime, signedDataVerifier: configuration.signedDataVerifier,
                                         ledgerSection: ledgerSection))
        }

        routes.post("/") { request, context in
            let body = try await service.readBody(request)
            let pasted = try SupportPage.formValue(named: "receipt", in: body) ?? ""
            let input = Array(pasted.utf8)
            let logger = context.logger
            // The same router as receipt-dump's: a token or a JSON body of tokens, else a receipt.
            let result: SupportPage.Result? = await service.gated(body, route: "page") {
                if SignedDataInput.isSignedData(input) {
                    let outcome = service.inspectPasted(signedData: input)
                    service.log(outcome, route: "page", logger: logger)
                    return .signedData(outcome)
                }
                let outcome = service.verify(input)
                service.log(outcome, route: "page", logger: logger)
                return .receipt(outcome)
            }
            guard let result else { throw Refusal.busy(service.gate) }
            return Self.html(SupportPage.render(result, input: pasted, now: configuration.statusTime,
                                                signedDataVerifier: configuration.signedDataVerifier, ledgerSection: ledgerSection))
        }

        if let ledger {
            routes.post("ledger") { request, _ in
                let body = try await service.readBody(request)
                let (status, lookup) = await ledger.lookUp(form: body, reconciler: reconciler)
                return Self.html(SupportPage.render(nil, input: "", now: configuration.statusTime,
                                                    signedDataVerifier: configuration.signedDataVerifier,
                                                    ledgerSection: SupportPage.ledgerSection(lookup)), status: status)
            }
        }
        return routes
    }

    /// The page has no scripts and no external assets; the policy says so to the browser, so that
    /// markup that ever slipped through escaping could still not run or load anything.
    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8",
                                        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
