import Foundation
import ReceiptParser

/// Everything receipt-dump learned about one file.
struct DumpResult: Encodable {
    let file: String
    /// Why the file could not be read or decoded, if it could not.
    var readError: Problem?
    var receipt: Receipt?
    /// nil when verification was not asked for.
    var verification: Result<VerificationReport, Problem>?
    var certificates: [CertificateSummary] = []

    static func make(file: String, verifier: ReceiptVerifier?) -> DumpResult {
        var result = DumpResult(file: file)
        guard let input = FileManager.default.contents(atPath: file) else {
            result.readError = Problem(code: "unreadableFile", reason: "cannot read \(file)")
            return result
        }
        let container: ReceiptContainer
        do {
            container = try ReceiptContainer.parse(ReceiptInput.receiptBytes(from: [UInt8](input)))
        } catch {
            result.readError = Problem(error)
            return result
        }
        result.certificates = container.certificateSummaries()
        if let verifier {
            do {
                result.verification = .success(try verifier.verify(container))
            } catch {
                result.verification = .failure(Problem(error))
            }
        }
        do {
            result.receipt = try ReceiptPayloadDecoder.decode(container.payload)
        } catch {
            result.readError = Problem(error)
        }
        return result
    }

    /// 0 verified (or decoded, without verification), 1 not verified, 2 unreadable.
    var exitStatus: Int32 {
        if readError != nil { return 2 }
        if case .failure = verification { return 1 }
        return 0
    }

    /// The reason to show: the read error, else the verification error.
    var problem: Problem? {
        if let readError { return readError }
        if case .failure(let error) = verification { return error }
        return nil
    }

    var verdict: String {
        switch verification {
        case nil: return "not checked (--no-verify)"
        case .success: return "verified"
        case .failure: return "not verified"
        }
    }

    enum CodingKeys: String, CodingKey {
        case file, status, verdict, error, verification, certificates, receipt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(exitStatus, forKey: .status)
        try container.encode(readError == nil ? verdict : "unreadable", forKey: .verdict)
        try container.encodeIfPresent(problem, forKey: .error)
        if case .success(let report) = verification {
            try container.encode(report, forKey: .verification)
        }
        try container.encode(certificates, forKey: .certificates)
        try container.encodeIfPresent(receipt, forKey: .receipt)
    }
}


/// A failure as receipt-dump reports it: a stable code and a reason.
struct Problem: Error, Encodable {
    let code: String
    let reason: String

    init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    init(_ error: ReceiptError) {
        self.init(code: error.code.name, reason: error.reason)
    }
}
