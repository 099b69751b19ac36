#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The members of one object of an answer, read by the library's ``PayloadFields`` rules (one
/// JSON type per documented member, `null` as absent, the rest kept), with signed members taken
/// from the tokens the answer verified. Every failure is the answer's `unreadable` error.
struct AnswerFields {
    private var fields: PayloadFields
    /// The object's path in the answer, with a trailing dot (empty at the top).
    private let path: String
    private let answer: AppStoreAnswer

    init(_ answer: AppStoreAnswer) throws(AppStoreAPIError) {
        try self.init(answer.body, name: nil, answer: answer)
    }

    private init(_ value: StrictJSON.Value, name: String?, answer: AppStoreAnswer) throws(AppStoreAPIError) {
        self.answer = answer
        path = name.map { $0 + "." } ?? ""
        do {
            fields = try PayloadFields(value, name: name)
        } catch {
            throw .unreadable(host: answer.host, reason: "\(error.code.name): \(error.reason)")
        }
    }

    /// The members no model read.
    var unknownFields: [StrictJSON.Member] { fields.unknownFields }

    // Each field as PayloadFields reads it; its error becomes the answer's.
    mutating func string(_ key: String) throws(AppStoreAPIError) -> String? {
        do { return try fields.string(key) } catch { throw unreadable(error) }
    }

    mutating func bool(_ key: String) throws(AppStoreAPIError) -> Bool? {
        do { return try fields.bool(key) } catch { throw unreadable(error) }
    }

    mutating func int64(_ key: String) throws(AppStoreAPIError) -> Int64? {
        do { return try fields.int64(key) } catch { throw unreadable(error) }
    }

    mutating func date(_ key: String) throws(AppStoreAPIError) -> Date? {
        do { return try fields.date(key) } catch { throw unreadable(error) }
    }

    mutating func value<Enumeration: RawRepresentable>(_ key: String) throws(AppStoreAPIError) -> Enumeration?
        where Enumeration.RawValue == String {
        do { return try fields.value(key) } catch { throw unreadable(error) }
    }

    mutating func value<Enumeration: RawRepresentable>(_ key: String) throws(AppStoreAPIError) -> Enumeration?
        where Enumeration.RawValue == Int32 {
        do { return try fields.value(key) } catch { throw unreadable(error) }
    }

    /// A string member the model cannot do without (the one its call is for).
    mutating func requiredString(_ key: String) throws(AppStoreAPIError) -> String {
        guard let value = try string(key) else { throw missing(key) }
        return value
    }

    /// An integer-valued enumeration the model cannot do without.
    mutating func requiredValue<Enumeration: RawRepresentable>(_ key: String) throws(AppStoreAPIError) -> Enumeration
        where Enumeration.RawValue == Int32 {
        guard let value: Enumeration = try value(key) else { throw missing(key) }
        return value
    }

    /// A signed member the model cannot do without (the one its call is for).
    mutating func requiredToken<Payload: SignedMemberPayload>(_ key: String) throws(AppStoreAPIError) -> VerifiedToken<Payload> {
        guard let value: VerifiedToken<Payload> = try token(key) else { throw missing(key) }
        return value
    }

    /// A signed member: the token the answer verified at its path.
    mutating func token<Payload: SignedMemberPayload>(_ key: String) throws(AppStoreAPIError) -> VerifiedToken<Payload>? {
        guard let jws = try string(key) else { return nil }
        return try verified(jws, at: path + key)
    }

    /// An array of signed members (absent is empty).
    mutating func tokens<Payload: SignedMemberPayload>(_ key: String) throws(AppStoreAPIError) -> [VerifiedToken<Payload>] {
        let strings: [String]?
        do { strings = try fields.strings(key) } catch { throw unreadable(error) }
        guard let list = strings else { return [] }
        var tokens: [VerifiedToken<Payload>] = []
        tokens.reserveCapacity(list.count)
        for (index, jws) in list.enumerated() {
            tokens.append(try verified(jws, at: "\(path)\(key)[\(index)]"))
        }
        return tokens
    }

    /// An array of objects, each read by `item` (absent is empty).
    mutating func objects<Item>(_ key: String, _ item: (inout AnswerFields) throws(AppStoreAPIError) -> Item) throws(AppStoreAPIError) -> [Item] {
        let objects: [StrictJSON.Value]?
        do { objects = try fields.rawObjects(key) } catch { throw unreadable(error) }
        guard let elements = objects else { return [] }
        var items: [Item] = []
        items.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            var fields = try AnswerFields(element, name: "\(path)\(key)[\(index)]", answer: answer)
            items.append(try item(&fields))
        }
        return items
    }

    /// The answer verified every token member when it was read; the lookup fails only for a
    /// member the answer does not treat as a token, which is this module's mistake.
    private func verified<Payload: SignedMemberPayload>(_ jws: String, at member: String) throws(AppStoreAPIError) -> VerifiedToken<Payload> {
        guard let inspection = answer.token(at: member), let decoded = inspection.decoded, let payload = Payload.from(decoded) else {
            throw .unreadable(host: answer.host, reason: "\(member) holds no verified \(Payload.self)")
        }
        return VerifiedToken(jws: jws, payload: payload, inspection: inspection)
    }

    private func missing(_ key: String) -> AppStoreAPIError {
        .unreadable(host: answer.host, reason: "the answer has no \(path)\(key)")
    }

    private func unreadable(_ error: ReceiptError) -> AppStoreAPIError {
        .unreadable(host: answer.host, reason: "\(error.code.name): \(error.reason)")
    }
}
