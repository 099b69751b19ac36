extension ASN1Reader {
    /// Iterates over the children of a constructed element, in order.
    func children(of parent: ASN1Element, depth: Int = 0) -> Children {
        Children(reader: self, cursor: parent.contentStart, limit: parent.contentEnd, depth: depth + 1)
    }

    /// The children of one constructed element, read one at a time, each checked as it is read.
    struct Children {
        let reader: ASN1Reader
        var cursor: Int
        let limit: Int
        let depth: Int

        var isAtEnd: Bool { cursor >= limit }

        /// The next child, or nil after the last one.
        mutating func next() throws(ReceiptError) -> ASN1Element? {
            guard cursor < limit else { return nil }
            let element = try reader.element(at: cursor, limit: limit, depth: depth)
            cursor = element.end
            return element
        }

        /// The next child, which must exist and carry `identifier`.
        mutating func next(_ identifier: UInt8, _ what: @autoclosure () -> String,
                           else code: ReceiptError.Code) throws(ReceiptError) -> ASN1Element {
            guard let element = try next(), element.identifier == identifier else {
                throw ReceiptError(code, "expected \(what())")
            }
            return element
        }

        /// The next child if it carries `identifier`; otherwise nothing is consumed.
        mutating func optional(_ identifier: UInt8) throws(ReceiptError) -> ASN1Element? {
            guard cursor < limit, reader[cursor] == identifier else { return nil }
            return try next()
        }
    }
}
