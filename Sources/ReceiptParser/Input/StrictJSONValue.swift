extension StrictJSON {
    /// A JSON value as ``StrictJSON/parse(_:)`` read it: object members in the order written,
    /// numbers as their text (so no precision is lost or invented).
    public enum Value: Sendable, Hashable {
        /// An object's members, in order; keys are unique.
        case object([(key: String, value: Value)])
        /// An array's elements.
        case array([Value])
        /// A string, escapes undone.
        case string(String)
        /// A number's text as written, such as `-12.5e3`; it matches RFC 8259's grammar.
        case number(String)
        /// `true` or `false`.
        case bool(Bool)
        /// `null`.
        case null

        /// The member named `key` of an object (keys compared byte for byte); nil for other values.
        public subscript(key: String) -> Value? {
            guard case .object(let members) = self else { return nil }
            return members.first { StrictJSON.sameBytes($0.key, key) }?.value
        }

        /// Equal when of the same kind with equal contents: member order counts, strings and
        /// keys compare byte for byte, numbers by their text.
        public static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.object(let left), .object(let right)):
                return left.count == right.count && zip(left, right).allSatisfy { StrictJSON.sameBytes($0.key, $1.key) && $0.value == $1.value }
            case (.array(let left), .array(let right)): return left == right
            case (.string(let left), .string(let right)): return StrictJSON.sameBytes(left, right)
            case (.number(let left), .number(let right)): return left == right
            case (.bool(let left), .bool(let right)): return left == right
            case (.null, .null): return true
            default: return false
            }
        }

        /// Hashes what ``==`` compares (strings and keys by their bytes).
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .object(let members):
                hasher.combine(0)
                hasher.combine(members.count)
                for member in members {
                    hasher.combine(member.key.utf8.count)
                    for byte in member.key.utf8 { hasher.combine(byte) }
                    member.value.hash(into: &hasher)
                }
            case .array(let elements):
                hasher.combine(1)
                hasher.combine(elements)
            case .string(let value):
                hasher.combine(2)
                hasher.combine(value.utf8.count)
                for byte in value.utf8 { hasher.combine(byte) }
            case .number(let text):
                hasher.combine(3)
                hasher.combine(text)
            case .bool(let value):
                hasher.combine(4)
                hasher.combine(value)
            case .null:
                hasher.combine(5)
            }
        }

        /// Compact JSON text that ``StrictJSON/parse(_:)`` reads back to an equal value.
        public func rendered() -> String {
            var json = JSONWriter()
            write(to: &json)
            return json.finishString()
        }
    }
}

extension StrictJSON {
    /// One member of an object, as signed: its key and value. The payload models keep the
    /// members they do not know as a list of these, in order.
    public struct Member: Sendable, Hashable {
        /// The key, escapes undone.
        public var key: String
        /// The value, as read.
        public var value: Value

        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }

        /// Equal when keys are equal byte for byte and values are equal.
        public static func == (lhs: Member, rhs: Member) -> Bool {
            StrictJSON.sameBytes(lhs.key, rhs.key) && lhs.value == rhs.value
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(Value.object([(key, value)]))
        }
    }
}

extension StrictJSON.Value: JSONWritable {
    public func write(to json: inout JSONWriter) {
        switch self {
        case .object(let members):
            json.beginObject()
            for member in members {
                json.key(member.key)
                member.value.write(to: &json)
            }
            json.endObject()
        case .array(let elements):
            json.beginArray()
            for element in elements { element.write(to: &json) }
            json.endArray()
        case .string(let value): json.string(value)
        case .number(let text): json.numberText(text)
        case .bool(let value): json.bool(value)
        case .null: json.null()
        }
    }
}
