#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The members of one signed payload object, read field by field as the models declare them:
/// the one place that checks each documented field's JSON type, so a model is a list of fields.
///
/// A documented field of another JSON type throws ``ReceiptError/Code/wrongValueType`` naming it
/// (with its path inside the payload, `data.appAppleId`) and the type found; `null` counts as
/// absent. The members no field read are kept, in order, as ``unknownFields``: a model loses
/// nothing Apple sends, including fields documented after this library was written.
///
/// Public so that other JSON Apple signs or sends (the App Store Server API's answers) is read by
/// the same rules.
public struct PayloadFields: Sendable {
    /// How dates are written in the object read.
    public enum DateForm: Sendable {
        /// Milliseconds since 1970 as a JSON number, as Apple signs them (a fraction is accepted).
        case milliseconds
        /// RFC 3339 strings, as the models' own JSON writes them (read back by `Codable`).
        case rfc3339
    }

    private let members: [(key: String, value: StrictJSON.Value)]
    /// Per member: its key's ``keyBitIndex(_:)`` in the low six bits, and ``taken`` once a field
    /// read it.
    private var slots: [UInt8]
    private static let taken: UInt8 = 0x80
    /// The bit of every member's key: a field whose bit is clear is absent without a search, as
    /// most of a model's fields are in any one payload; a search compares only keys of its bit.
    private let keyBits: UInt64
    /// Where the next field is looked for first.
    private var next = 0
    /// Before each key in reasons: empty at the top, `data.` inside `data`.
    private let path: String
    private let dateForm: DateForm

    /// The members of `value`, which must be an object.
    ///
    /// - Parameter name: the object's own name in reasons (`data`), nil for the payload itself.
    public init(_ value: StrictJSON.Value, name: String? = nil, dateForm: DateForm = .milliseconds) throws(ReceiptError) {
        guard case .object(let members) = value else {
            throw ReceiptError(.wrongValueType, "\(name ?? "the payload") is \(value.typeName); the payload says an object")
        }
        self.members = members
        slots = members.map { Self.keyBitIndex($0.key) }
        keyBits = slots.reduce(0) { $0 | 1 &<< UInt64($1) }
        path = name.map { "\($0)." } ?? ""
        self.dateForm = dateForm
    }

    /// The members no field read, in the order signed.
    public var unknownFields: [StrictJSON.Member] {
        members.indices.filter { slots[$0] & Self.taken == 0 }.map { StrictJSON.Member(key: members[$0].key, value: members[$0].value) }
    }

    /// The value of `key`, marked as read; nil when absent or null. Keys compare byte for byte
    /// (String's `==` would take a Kelvin sign for a `K`). The models read fields in the order
    /// Apple writes them, so the member after the last one found is tried first.
    private mutating func take(_ key: String) -> StrictJSON.Value? {
        let bit = Self.keyBitIndex(key)
        guard keyBits & 1 &<< UInt64(bit) != 0 else { return nil }
        func matches(_ index: Int) -> Bool { slots[index] & ~Self.taken == bit && StrictJSON.sameBytes(members[index].key, key) }
        let index: Int
        if next < members.count, matches(next) {
            index = next
        } else if let found = members.indices.first(where: matches) {
            index = found
        } else {
            return nil
        }
        next = index + 1
        slots[index] |= Self.taken
        if case .null = members[index].value { return nil }
        return members[index].value
    }

    /// One of 64 bits, from a key's length in bytes and its first byte: keys with the same bytes
    /// have the same bit.
    private static func keyBitIndex(_ key: String) -> UInt8 {
        let utf8 = key.utf8
        return UInt8(truncatingIfNeeded: (utf8.count &* 7 &+ Int(utf8.first ?? 0)) & 63)
    }

    private func wrongType(_ key: String, _ found: StrictJSON.Value, _ expected: String) -> ReceiptError {
        ReceiptError(.wrongValueType, "\(path)\(key) is \(found.typeName); the payload says \(expected)")
    }

    private func wrongNumber(_ key: String, _ text: String, _ problem: String) -> ReceiptError {
        let shown = text.count > 40 ? "\(text.prefix(40))…" : text
        return ReceiptError(.wrongValueType, "\(path)\(key) is \(shown), \(problem)")
    }

    // MARK: Fields

    public mutating func string(_ key: String) throws(ReceiptError) -> String? {
        guard let value = take(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, value, "a string") }
        return text
    }

    public mutating func strings(_ key: String) throws(ReceiptError) -> [String]? {
        guard let value = take(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, value, "an array of strings") }
        var texts: [String] = []
        texts.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let text) = element else { throw wrongType("\(key)[\(texts.count)]", element, "a string") }
            texts.append(text)
        }
        return texts
    }

    public mutating func bool(_ key: String) throws(ReceiptError) -> Bool? {
        guard let value = take(key) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(key, value, "true or false") }
        return flag
    }

    /// An integer, exactly: `1.0`, `1e3` and numbers past 64 bits are refused, not rounded.
    public mutating func int64(_ key: String) throws(ReceiptError) -> Int64? {
        guard let value = take(key) else { return nil }
        guard case .number(let text) = value else { throw wrongType(key, value, "an integer") }
        guard let integer = Int64(text) else {
            throw wrongNumber(key, text, Self.isInteger(text) ? "out of the range of a 64-bit integer" : "not an integer")
        }
        return integer
    }

    /// An integer, exactly, within 32 bits (Apple's Int32 fields and enums).
    public mutating func int32(_ key: String) throws(ReceiptError) -> Int32? {
        guard let value = take(key) else { return nil }
        guard case .number(let text) = value else { throw wrongType(key, value, "an integer") }
        guard let integer = Int32(text) else {
            throw wrongNumber(key, text, Self.isInteger(text) ? "out of the range of a 32-bit integer" : "not an integer")
        }
        return integer
    }

    /// Milliseconds since 1970 (a fraction of a millisecond is kept: Xcode writes them), within
    /// the years 0000 to 9999 so that every date read can be written as RFC 3339.
    public mutating func date(_ key: String) throws(ReceiptError) -> Date? {
        guard let value = take(key) else { return nil }
        switch (dateForm, value) {
        case (.milliseconds, .number(let text)):
            guard let date = UnixMilliseconds.date(from: text) else {
                throw wrongNumber(key, text, "not milliseconds within the years 0000 to 9999")
            }
            return date
        case (.rfc3339, .string(let text)):
            guard let date = RFC3339.date(from: text) else {
                throw ReceiptError(.wrongValueType, "\(path)\(key) is not an RFC 3339 date")
            }
            return date
        case (.milliseconds, _):
            throw wrongType(key, value, "milliseconds since 1970 as a number")
        case (.rfc3339, _):
            throw wrongType(key, value, "an RFC 3339 date as a string")
        }
    }

    /// A string-valued enumeration; values not documented are kept.
    public mutating func value<Enumeration: RawRepresentable>(_ key: String) throws(ReceiptError) -> Enumeration? where Enumeration.RawValue == String {
        try string(key).flatMap(Enumeration.init(rawValue:))
    }

    /// An integer-valued enumeration; values not documented are kept.
    public mutating func value<Enumeration: RawRepresentable>(_ key: String) throws(ReceiptError) -> Enumeration? where Enumeration.RawValue == Int32 {
        try int32(key).flatMap(Enumeration.init(rawValue:))
    }

    /// A documented sub-object, read by its model with the same rules.
    mutating func object<Model: SignedPayloadObject>(_ key: String) throws(ReceiptError) -> Model? {
        guard let value = take(key) else { return nil }
        var fields = try PayloadFields(value, name: "\(path)\(key)", dateForm: dateForm)
        return try Model(fields: &fields)
    }

    /// An object whose members are not documented precisely enough to model; kept as signed.
    public mutating func rawObject(_ key: String) throws(ReceiptError) -> StrictJSON.Value? {
        guard let value = take(key) else { return nil }
        guard case .object = value else { throw wrongType(key, value, "an object") }
        return value
    }

    /// An array of objects not documented precisely enough to model; kept as signed.
    public mutating func rawObjects(_ key: String) throws(ReceiptError) -> [StrictJSON.Value]? {
        guard let value = take(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, value, "an array of objects") }
        for (index, element) in elements.enumerated() {
            guard case .object = element else { throw wrongType("\(key)[\(index)]", element, "an object") }
        }
        return elements
    }

    // MARK: Numbers

    /// Whether a JSON number's text has no fraction and no exponent.
    private static func isInteger(_ text: String) -> Bool {
        !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
    }
}

/// A payload model or one of its documented sub-objects: read by ``PayloadFields``, written by
/// ``JSONWriter``, and `Codable` through that JSON (dates as RFC 3339 strings, unknown members
/// beside the known ones): `Decodable` reads it with the fields Apple's payload is read with.
protocol SignedPayloadObject: JSONWritable {
    /// Reads the model's fields; the members left are its unknown fields.
    init(fields: inout PayloadFields) throws(ReceiptError)
}

extension SignedPayloadObject {
    /// Reads a payload object as Apple signs it.
    static func read(_ payload: StrictJSON.Value) throws(ReceiptError) -> Self {
        var fields = try PayloadFields(payload)
        return try Self(fields: &fields)
    }

    /// Reads the model back from its own JSON (``JSONWritable``'s form).
    static func read(written value: StrictJSON.Value) throws(ReceiptError) -> Self {
        var fields = try PayloadFields(value, dateForm: .rfc3339)
        return try Self(fields: &fields)
    }

    /// `Decodable`: the JSON the model writes.
    static func decoded(from decoder: any Decoder) throws -> Self {
        let value = try JSONValueCoding(from: decoder).value
        do {
            return try read(written: value)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }
}

extension JSONWriter {
    /// Writes `key` and a 32-bit integer, if there is one.
    mutating func member(_ key: StaticString, _ value: Int32?) {
        member(key, value.map(Int64.init))
    }

    /// Writes members a model kept without knowing them, after its own.
    mutating func members(_ unknown: [StrictJSON.Member]) {
        for member in unknown {
            key(member.key)
            member.value.write(to: &self)
        }
    }
}
