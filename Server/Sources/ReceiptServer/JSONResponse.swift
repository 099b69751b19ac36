import Hummingbird
import NIOCore
import ReceiptParser

extension ByteBuffer {
    /// The compact JSON `write` writes, copied once from the writer into the buffer.
    init(json write: (inout JSONWriter) -> Void) {
        var json = JSONWriter(capacity: 2048)
        write(&json)
        self = json.withUnsafeBytes { ByteBuffer(bytes: $0) }
    }
}

extension Response {
    /// A JSON response with the body `write` writes.
    static func json(status: HTTPResponse.Status = .ok, _ write: (inout JSONWriter) -> Void) -> Response {
        json(status: status, body: ByteBuffer(json: write))
    }

    /// A JSON response with a body already written.
    static func json(status: HTTPResponse.Status = .ok, body: ByteBuffer) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

}
