#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The pipeline, in the order data flows: input detection (`Input/`) → the PKCS #7 envelope
// (`Container/`) → trust (`Trust/`) → the payload (`Payload/`) → the models (`Model/`).
// This file is the only place that sequences the steps, so every entry point (the library's
// calls, receipt-dump, receipt-server) runs them in the same order: the signature before any
// byte of the payload is read.

extension ReceiptInspection {
    /// Runs the pipeline over one input (raw, base64 or a verifyReceipt request body): reads
    /// it, verifies it when `verifier` is given, decodes it, and keeps every failure.
    ///
    /// The verdict follows "Unreadable or not verified": a failure is a trust failure
    /// (``ReceiptError/Code/isTrustFailure``: not verified) or a reading failure (unreadable)
    /// by its code wherever it is met, so an envelope refused for trust reasons (more
    /// certificates than allowed) is not verified when there is a verifier; and a receipt that
    /// did not verify is not verified whatever its payload holds.
    public static func inspect(_ input: [UInt8], verifier: ReceiptVerifier?,
                               options: InspectionOptions = InspectionOptions()) -> ReceiptInspection {
        var inspection = ReceiptInspection()
        let container: ReceiptContainer
        do {
            container = try ReceiptContainer.parse(ReceiptInput.receiptBytes(from: input))
        } catch {
            if verifier != nil, Verdict(failure: error) == .notVerified {
                inspection.verification = .failure(error)
            } else {
                inspection.readError = error
            }
            return inspection
        }
        inspection.container = container
        if options.summarizesCertificates { inspection.certificates = container.certificateSummaries() }
        if let verifier {
            do {
                inspection.verification = .success(try verifier.verify(container))
            } catch where !error.code.isTrustFailure {
                // Met while verifying, but a reading failure (the creation date certificates
                // are judged at is no date): unreadable, as in "Unreadable or not verified".
                inspection.readError = error
                return inspection
            } catch {
                inspection.verification = .failure(error)
                guard options.decodesUnverified else { return inspection }
            }
        }
        do {
            inspection.receipt = try ReceiptPayloadDecoder.decode(container.payloadBytes, keepingInAppPurchases: options.keepsInAppPurchases,
                                                                  inAppPurchaseCount: &inspection.inAppPurchaseCount)
        } catch {
            inspection.readError = error
        }
        return inspection
    }
}

extension ReceiptVerifier {
    /// Reads, verifies and decodes a receipt given as raw bytes, base64 or a request body.
    public func verifyAndDecode(_ input: [UInt8]) throws(ReceiptError) -> VerifiedReceipt {
        try inspect(input, options: .verifiedOnly).verified()
    }

    /// Runs the pipeline over one input and keeps every outcome, failures included. A receipt
    /// that fails verification is decoded only with ``InspectionOptions/decodesUnverified``.
    public func inspect(_ input: [UInt8], options: InspectionOptions = InspectionOptions()) -> ReceiptInspection {
        ReceiptInspection.inspect(input, verifier: self, options: options)
    }

    /// Verifies the signature and the certificate chain of a parsed receipt.
    public func verify(_ container: ReceiptContainer) throws(ReceiptError) -> VerificationReport {
        var budget = SignatureBudget()
        return try verify(container, budget: &budget)
    }

    /// ``verify(_:)`` with the signature checks counted in `budget` (tests read it back).
    func verify(_ container: ReceiptContainer, budget: inout SignatureBudget) throws(ReceiptError) -> VerificationReport {
        // The receipt's own time, read only once its signature holds.
        try evaluate(container, budget: &budget) { () throws(ReceiptError) -> Date in
            guard let created = try ReceiptPayloadDecoder.creationDate(in: container.payloadBytes) else {
                throw ReceiptError(.missingCreationDate, "the receipt has no creation date (attribute 12) and no validation time was given")
            }
            return created
        }
    }
}
