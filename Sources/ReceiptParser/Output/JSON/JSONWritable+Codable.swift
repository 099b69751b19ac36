#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `Encodable` derived from the writer: a model's JSON is defined once, by its `write(to:)`, and
// its `encode(to:)` replays that text into any `Encoder`, so the two cannot drift. Nothing on a
// hot path encodes this way (the tools and the server write with JSONWriter); it serves callers
// who hand the models to a `JSONEncoder` of their own.

extension JSONWritable {
    /// `Encodable`: the members ``write(to:)`` writes, with its names and values (dates as RFC
    /// 3339 strings whatever the encoder's date strategy), into `encoder`.
    package func encodeWritten(to encoder: any Encoder) throws {
        var json = JSONWriter()
        write(to: &json)
        // Our own text, nested as deep as the values it was made from (a token's payload may
        // nest 64 levels inside a report): no input limit applies.
        try JSONValueCoding(value: StrictJSON.parse(json.finish(), maximumDepth: .max)).encode(to: encoder)
    }
}

/// A JSON value through `Codable`: numbers as integers when they are, else as `Decimal` (every
/// digit kept); object members in the order the coder gives them.
struct JSONValueCoding: Codable {
    var value: StrictJSON.Value

    init(value: StrictJSON.Value) { self.value = value }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() { value = .null; return }
            if let flag = try? single.decode(Bool.self) { value = .bool(flag); return }
            if let integer = try? single.decode(Int64.self) { value = .number(String(integer)); return }
            if let decimal = try? single.decode(Decimal.self) { value = .number(decimal.description); return }
            if let text = try? single.decode(String.self) { value = .string(text); return }
            if let elements = try? single.decode([JSONValueCoding].self) { value = .array(elements.map(\.value)); return }
        }
        let container = try decoder.container(keyedBy: Key.self)
        var members: [(key: String, value: StrictJSON.Value)] = []
        for key in container.allKeys {
            members.append((key.stringValue, try container.decode(JSONValueCoding.self, forKey: key).value))
        }
        value = .object(members)
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for member in members { try container.encode(JSONValueCoding(value: member.value), forKey: Key(stringValue: member.key)) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(JSONValueCoding(value: element)) }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int64(text) {
                try container.encode(integer)
            } else if let decimal = Decimal(string: text) {
                try container.encode(decimal)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}
