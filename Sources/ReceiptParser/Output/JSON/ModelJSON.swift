// The models' JSON, defined once: each model's members in sorted key order, written directly.
// `Encodable` replays this text (JSONWritable+Codable.swift). `Decodable` reads it back: a
// receipt and an in-app purchase through the raw attributes they keep, decoded again as signed,
// so no list of their named fields stands beside this one; the small records (certificates, the
// verification report) by their synthesized conformance, whose keys are their property names.

extension Receipt: JSONWritable, Codable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    /// Reads the JSON ``write(to:)`` writes through what was signed: the named fields are
    /// decoded again from ``attributes``, as ``ReceiptPayloadDecoder`` decodes a payload, and the
    /// in-app purchases are the ones written (a list narrowed by a filter stays narrowed), each
    /// read the same way. A receipt whose named fields do not come from its attributes (one
    /// made in code) reads back as its attributes say.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SignedMembers.self)
        self = try ReceiptAttributeSet.decodeSigned(in: container, forKey: .attributes, as: ReceiptPayloadDecoder.decode)
        inAppPurchases = try container.decode([InAppPurchase].self, forKey: .inAppPurchases)
    }

    /// The members `Decodable` reads: what was signed, and the purchases shown.
    private enum SignedMembers: String, CodingKey { case attributes, inAppPurchases }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("ageRating", ageRating)
        json.member("appItemID", appItemID)
        json.member("applicationVersion", applicationVersion)
        json.member("attributes", attributes)
        json.member("bundleID", bundleID)
        json.member("creationDate", creationDate)
        json.member("downloadID", downloadID)
        json.member("expirationDate", expirationDate)
        json.member("inAppPurchases", inAppPurchases)
        json.member("opaqueValue", opaqueValue)
        json.member("originalApplicationVersion", originalApplicationVersion)
        json.member("originalPurchaseDate", originalPurchaseDate)
        json.member("receiptType", receiptType)
        json.member("sha1Hash", sha1Hash)
        json.member("versionExternalIdentifier", versionExternalIdentifier)
        json.endObject()
    }
}

extension InAppPurchase: JSONWritable, Codable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    /// Reads the JSON ``write(to:)`` writes through what was signed: the named fields are
    /// decoded again from ``attributes``, as an entry of a receipt's payload is.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: SignedMembers.self)
        self = try ReceiptAttributeSet.decodeSigned(in: container, forKey: .attributes, as: ReceiptPayloadDecoder.decodeInAppPurchase)
    }

    /// The member `Decodable` reads: what was signed.
    private enum SignedMembers: String, CodingKey { case attributes }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("attributes", attributes)
        json.member("cancellationDate", cancellationDate)
        json.member("expiresDate", expiresDate)
        json.member("isInIntroOfferPeriod", isInIntroOfferPeriod)
        json.member("isTrialPeriod", isTrialPeriod)
        json.member("originalPurchaseDate", originalPurchaseDate)
        json.member("originalTransactionID", originalTransactionID)
        json.member("productID", productID)
        json.member("productType", productType)
        json.member("promotionalOfferID", promotionalOfferID)
        json.member("purchaseDate", purchaseDate)
        json.member("quantity", quantity)
        json.member("transactionID", transactionID)
        json.member("webOrderLineItemID", webOrderLineItemID)
        json.endObject()
    }
}

extension ReceiptAttributeSet {
    /// The set at `key`, decoded as signed by `decode` (the payload decoder's rules); a set it
    /// refuses is corrupt data.
    static func decodeSigned<Key: CodingKey, Model>(in container: KeyedDecodingContainer<Key>, forKey key: Key,
                                                    as decode: ([UInt8]) throws(ReceiptError) -> Model) throws -> Model {
        let attributes = try container.decode(ReceiptAttributeSet.self, forKey: key)
        do {
            return try decode(attributes.der)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
        }
    }
}

extension ReceiptAttributeSet: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        json.beginArray()
        forEachAttribute { type, version, value in ReceiptAttribute.write(type: type, version: version, value: value, to: &json) }
        json.endArray()
    }
}

extension ReceiptAttribute: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        value.storage.withUnsafeBufferPointer { Self.write(type: type, version: version, value: $0, to: &json) }
    }

    static func write(type: Int, version: Int, value: UnsafeBufferPointer<UInt8>, to json: inout JSONWriter) {
        json.beginObject()
        json.member("type", type)
        json.key("value")
        json.hex(value)
        json.member("version", version)
        json.endObject()
    }
}

extension ByteString: JSONWritable {
    public func write(to json: inout JSONWriter) { json.hex(self) }
}

extension VerificationReport: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("chain", chain)
        json.member("digestAlgorithm", digestAlgorithm)
        json.member("mode", mode.rawValue)
        json.member("validationTime", validationTime)
        json.endObject()
    }
}

extension CertificateSummary: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("issuer", issuer)
        json.member("notAfter", notAfter)
        json.member("notBefore", notBefore)
        json.member("serialNumber", serialNumber)
        json.member("sha256", sha256)
        json.member("subject", subject)
        json.endObject()
    }
}

extension CertificateDetails: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("appleMarkers", appleMarkers)
        json.member("extensions", extensions)
        json.member("isCertificateAuthority", isCertificateAuthority)
        json.member("signatureAlgorithm", signatureAlgorithm)
        json.member("summary", summary)
        json.endObject()
    }
}

extension CertificateDetails.Extension: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("critical", critical)
        json.member("oid", oid)
        json.endObject()
    }
}

extension VerifiedReceipt: JSONWritable {
    /// `Encodable`: the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("receipt", receipt)
        json.member("verification", verification)
        json.endObject()
    }
}

extension Verdict: JSONWritable {
    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
