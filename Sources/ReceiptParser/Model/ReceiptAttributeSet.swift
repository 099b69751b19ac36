/// The attributes of one receipt SET (the receipt itself or an in-app purchase), exactly as
/// signed and in encoded order.
///
/// The set keeps the SET's encoded bytes, shared with the decoded payload, and reads an
/// attribute when you ask for it: keeping every raw attribute costs the decoder nothing per
/// attribute. Two sets are equal when their encodings are; in JSON a set is an array of
/// ``ReceiptAttribute``.
public struct ReceiptAttributeSet: Collection, Sendable, Hashable, Codable, ExpressibleByArrayLiteral {
    /// The SET's content: `count` well-formed DER attributes, checked by the decoder or written
    /// by ``init(_:)``, so reading them again cannot fail.
    private let content: ArraySlice<UInt8>
    /// The number of attributes.
    public let count: Int

    /// A position in the set: where an attribute's encoding starts.
    public struct Index: Comparable, Hashable, Sendable {
        fileprivate let offset: Int
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    }

    /// A checked SET content and its attribute count, from a decoder.
    @_spi(Benchmarks) public init(checkedContent content: ArraySlice<UInt8>, count: Int) {
        self.content = content
        self.count = count
    }

    /// Makes an empty set.
    public init() {
        content = []
        count = 0
    }

    /// Makes a set holding `attributes`, encoded as DER in this order.
    public init(_ attributes: some Sequence<ReceiptAttribute>) {
        var der = [UInt8]()
        var count = 0
        for attribute in attributes {
            var fields = [UInt8]()
            DERWriter.append(ASN1Tag.integer, DERWriter.integer(attribute.type), to: &fields)
            DERWriter.append(ASN1Tag.integer, DERWriter.integer(attribute.version), to: &fields)
            DERWriter.append(ASN1Tag.octetString, Array(attribute.value), to: &fields)
            DERWriter.append(ASN1Tag.sequence, fields, to: &der)
            count += 1
        }
        self.init(checkedContent: der[...], count: count)
    }

    public init(arrayLiteral attributes: ReceiptAttribute...) { self.init(attributes) }

    public var startIndex: Index { Index(offset: 0) }
    public var endIndex: Index { Index(offset: content.count) }
    public var isEmpty: Bool { count == 0 }

    public func index(after position: Index) -> Index {
        Index(offset: read(at: position).end)
    }

    public subscript(position: Index) -> ReceiptAttribute {
        let fields = read(at: position)
        let value = content.index(content.startIndex, offsetBy: fields.value.lowerBound)
        return ReceiptAttribute(type: fields.type, version: fields.version,
                                value: ByteString(content[value..<(value + fields.value.count)]))
    }

    /// The attribute encoded at `position`, as offsets into `content`.
    private func read(at position: Index) -> AttributeFields {
        precondition(position.offset >= 0 && position.offset < content.count, "ReceiptAttributeSet index out of range")
        return content.withUnsafeBufferPointer { buffer in
            var reader = AttributeReader(buffer, content: position.offset..<buffer.count)
            guard let fields = try? reader.next() else { preconditionFailure("ReceiptAttributeSet holds checked DER") }
            return fields
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { ByteString(lhs.content) == ByteString(rhs.content) }
    public func hash(into hasher: inout Hasher) { ByteString(content).hash(into: &hasher) }

    /// Calls `body` with each attribute's type, version and value bytes, in order, without
    /// making a ``ReceiptAttribute`` of each (for the JSON writer, which may see millions).
    func forEachAttribute(_ body: (Int, Int, UnsafeBufferPointer<UInt8>) -> Void) {
        content.withUnsafeBufferPointer { buffer in
            // One reader per attribute, as `subscript` reads them: a reader counts what it reads
            // against the decoder's limit, which a set made by `init(_:)` need not keep.
            var offset = 0
            while offset < buffer.count {
                var reader = AttributeReader(buffer, content: offset..<buffer.count)
                guard let fields = try? reader.next() else { preconditionFailure("ReceiptAttributeSet holds checked DER") }
                body(fields.type.rawValue, fields.version, UnsafeBufferPointer(rebasing: buffer[fields.value]))
                offset = fields.end
            }
        }
    }

    /// Reads the JSON ``write(to:)`` writes: an array of ``ReceiptAttribute``, encoded again as DER.
    public init(from decoder: any Decoder) throws {
        self.init(try [ReceiptAttribute](from: decoder))
    }

    /// The set as a DER SET, as a payload or an in-app entry is signed.
    var der: [UInt8] {
        var der = [UInt8]()
        DERWriter.append(ASN1Tag.set, Array(content), to: &der)
        return der
    }
}
