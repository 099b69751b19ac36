/// A value that writes itself with a ``JSONWriter``: the models write the same JSON as their
/// `Codable` conformance does with ``Foundation/JSONEncoder/receiptModels(prettyPrinted:)``
/// (keys sorted, absent values left out), without building it first.
public protocol JSONWritable {
    /// Writes the value as one JSON value.
    func write(to json: inout JSONWriter)
}

extension Array: JSONWritable where Element: JSONWritable {
    public func write(to json: inout JSONWriter) {
        json.beginArray()
        for element in self { element.write(to: &json) }
        json.endArray()
    }
}

extension String: JSONWritable {
    public func write(to json: inout JSONWriter) { json.string(self) }
}
