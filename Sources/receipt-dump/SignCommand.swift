import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptCommandLine
import ReceiptParser

/// `receipt-dump sign …`: the signatures Apple asks a server to make for StoreKit's offers,
/// with the team's In-App Purchase key, as Apple's app-store-server-library makes them.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt-dump sign",
        abstract: "Sign what StoreKit takes for offers, with your App Store Connect key.",
        discussion: """
        Credentials: --key-file (the .p8), --key-id, --issuer-id, --bundle-id, or APP_STORE_KEY_FILE, \
        APP_STORE_KEY_ID, APP_STORE_ISSUER_ID, APP_STORE_BUNDLE_ID. Exit status: 0 signed; 64 usage.
        """,
        subcommands: [PromotionalOffer.self, PromotionalOfferV2.self, IntroductoryOfferEligibility.self]
    )

    /// What every signature takes: the key, the output, and optionally the nonce.
    struct Credentials: ParsableArguments {
        @OptionGroup var key: AppStoreCredentialOptions
        @Option(help: "text (people) or json (programs).")
        var format: Format = .text
        @Option(help: ArgumentHelp("The nonce, a UUID (a new one by default).", valueName: "UUID"))
        var nonce: String?

        enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

        func validate() throws {
            if let nonce, UUID(uuidString: nonce) == nil { throw ValidationError("--nonce takes a UUID.") }
        }

        func signer(needsIssuer: Bool) throws -> OfferSigner {
            OfferSigner(try key.credentials(requiresIssuer: needsIssuer))
        }

        var nonceValue: UUID { nonce.flatMap(UUID.init(uuidString:)) ?? UUID() }

        /// The members, as `name: value` lines or one JSON object.
        func print(_ members: [(String, String)]) {
            switch format {
            case .json:
                var json = JSONWriter(layout: .indented)
                json.beginObject()
                for (name, value) in members { json.key(name); json.string(value) }
                json.endObject()
                Swift.print(json.finishString())
            case .text:
                for (name, value) in members { Swift.print("\(name): \(DisplayText.escape(value))") }
            }
        }
    }

    struct PromotionalOffer: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "promotional-offer",
                                                        abstract: "A promotional offer signature (the original API's, base64 DER).")
        @Option(help: ArgumentHelp("The subscription's product id.", valueName: "ID")) var product: String
        @Option(help: ArgumentHelp("The offer's id from App Store Connect.", valueName: "ID")) var offer: String
        @Option(name: .customLong("app-account-token"), help: ArgumentHelp("The app's applicationUsername (may be empty).", valueName: "TOKEN"))
        var appAccountToken = ""
        @Option(help: ArgumentHelp("UNIX milliseconds (now by default); the offer is valid for 24 hours.", valueName: "MS")) var timestamp: Int64?
        @OptionGroup var credentials: Credentials

        func run() throws {
            let nonce = credentials.nonceValue
            let timestamp = timestamp ?? Int64(Date().timeIntervalSince1970 * 1000)
            let signer = try credentials.signer(needsIssuer: false)
            let signed = signer.promotionalOfferSignature(productIdentifier: product, offerIdentifier: offer, appAccountToken: appAccountToken,
                                                          nonce: nonce, timestamp: timestamp)
            credentials.print([("keyIdentifier", signer.keyID), ("nonce", nonce.uuidString.lowercased()),
                               ("signature", signed.signature), ("signedText", signed.signedText), ("timestamp", String(timestamp))])
        }
    }

    struct PromotionalOfferV2: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "promotional-offer-v2",
                                                        abstract: "The JWS StoreKit takes for a promotional offer (iOS 18.4 and later).")
        @Option(help: ArgumentHelp("The subscription's product id.", valueName: "ID")) var product: String
        @Option(help: ArgumentHelp("The offer's id from App Store Connect.", valueName: "ID")) var offer: String
        @Option(name: .customLong("transaction-id"), help: ArgumentHelp("Any transaction id of the customer (recommended).", valueName: "ID"))
        var transactionID: String?
        @Option(name: .customLong("issued-at"), help: ArgumentHelp("The JWS's iat, RFC 3339 (now by default).", valueName: "T")) var issuedAt: String?
        @OptionGroup var credentials: Credentials

        func validate() throws { if let issuedAt { _ = try RFC3339.instant(issuedAt, option: "--issued-at") } }

        func run() throws {
            let jws = try credentials.signer(needsIssuer: true).promotionalOfferV2(
                productId: product, offerIdentifier: offer, transactionId: transactionID,
                issuedAt: issuedAt.flatMap(RFC3339.date(from:)) ?? Date(), nonce: credentials.nonceValue)
            credentials.print([("jws", jws)])
        }
    }

    struct IntroductoryOfferEligibility: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "introductory-offer-eligibility",
                                                        abstract: "The JWS StoreKit takes to say whether the customer may have the introductory offer.")
        @Option(help: ArgumentHelp("The subscription's product id.", valueName: "ID")) var product: String
        @Option(help: ArgumentHelp("true: eligible; false: not.", valueName: "BOOL")) var allow: Bool
        @Option(name: .customLong("transaction-id"), help: ArgumentHelp("Any transaction id of the customer.", valueName: "ID"))
        var transactionID: String
        @Option(name: .customLong("issued-at"), help: ArgumentHelp("The JWS's iat, RFC 3339 (now by default).", valueName: "T")) var issuedAt: String?
        @OptionGroup var credentials: Credentials

        func validate() throws { if let issuedAt { _ = try RFC3339.instant(issuedAt, option: "--issued-at") } }

        func run() throws {
            let jws = try credentials.signer(needsIssuer: true).introductoryOfferEligibility(
                productId: product, allowIntroductoryOffer: allow, transactionId: transactionID,
                issuedAt: issuedAt.flatMap(RFC3339.date(from:)) ?? Date(), nonce: credentials.nonceValue)
            credentials.print([("jws", jws)])
        }
    }
}
