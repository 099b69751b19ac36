// The models' JSON, written directly: the members of each `Codable` model in sorted key order,
// as `JSONEncoder.receiptModels` sorts them. JSONReportTests and the server's
// typedAnswerIsTheModelsCodableJSON check that both write the same text.

extension Receipt: JSONWritable {
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

extension InAppPurchase: JSONWritable {
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

extension ReceiptAttributeSet: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginArray()
        forEachAttribute { type, version, value in ReceiptAttribute.write(type: type, version: version, value: value, to: &json) }
        json.endArray()
    }
}

extension ReceiptAttribute: JSONWritable {
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
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("critical", critical)
        json.member("oid", oid)
        json.endObject()
    }
}

extension Verdict: JSONWritable {
    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
