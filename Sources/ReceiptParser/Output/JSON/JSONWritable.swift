/// A value that writes itself with a ``JSONWriter``: the one definition of a model's JSON (keys
/// sorted, absent values left out), written without building it first. The models' `Encodable`
/// conformance replays what this writes.
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
