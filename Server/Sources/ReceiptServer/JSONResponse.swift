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

extension JSONWriter {
    /// `"error":{"code":…,"member":…,"reason":…}`, the error member of every refusal in the typed
    /// routes' shape; `member` (the request's member at fault) only when known.
    mutating func errorMember(code: String, member: String?, reason: String) {
        key("error")
        beginObject()
        self.member("code", code)
        self.member("member", member)
        self.member("reason", reason)
        endObject()
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

    /// `{"status":STATUS,"error":MESSAGE}`: the body of every refusal outside a receipt's own.
    static func jsonError(status: HTTPResponse.Status, receiptStatus: Int64, message: String) -> Response {
        json(status: status) { json in
            json.beginObject()
            json.member("status", receiptStatus)
            json.member("error", message)
            json.endObject()
        }
    }
}
