import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import ReceiptServer
#if os(Linux)
import Glibc

/// A client that starts a request and then goes quiet must not hold a connection forever.
/// (Raw sockets, written for Linux.)
struct SlowClientTests {
    @Test func stalledRequestIsClosedAfterTheIdleTimeout() async throws {
        let app = buildApplication(try ServerTests.testRootConfiguration { $0.idleTimeoutSeconds = 1 }, logger: ServerTests.logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            try #require(connected == 0)
            // Half a request: headers promise a body that never comes.
            let partial = "POST /verifyReceipt HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{\"receipt-data\":"
            _ = partial.withCString { send(descriptor, $0, strlen($0), 0) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let started = Date()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var received = 1
            while received > 0 { received = recv(descriptor, &buffer, buffer.count, 0) }
            let waited = Date().timeIntervalSince(started)
            #expect(received == 0, "the server closed the connection (recv returned \(received))")
            #expect(waited < 5, "closed after \(waited) s, idle timeout 1 s")
        }
    }
}
#endif
