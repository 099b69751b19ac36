import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// A connection's requests run on the event loop that serves its socket (`ConnectionLoopChannel`),
/// without crossing to Swift's cooperative threads and back; bodies over the inline size still
/// leave the loops for the verification gate's threads.
struct ConnectionLoopTests {
    /// Verifies the sample request twice on one connection, with bodies up to `inlineBodySize`
    /// verified where they arrive; whether each verification ran on an event loop.
    func placesOfVerification(inlineBodySize: Int) async throws -> [Bool] {
        let places = NIOLockedValueBox<[Bool]>([])
        let configuration = try ServerTests.testRootConfiguration {
            $0.inlineBodySize = inlineBodySize
            $0.beforeVerification = { _ in
                places.withLockedValue { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
            }
        }
        let request = ByteBuffer(bytes: try Paths.fixture("sample-request.json"))
        try await buildApplication(configuration, logger: ServerTests.logger).test(.live) { client in
            for _ in 0..<2 {
                let response = try await client.execute(uri: "/verifyReceipt", method: .post, body: request)
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"status\":0"))
            }
        }
        return places.withLockedValue { $0 }
    }

    @Test func smallBodiesAreVerifiedOnTheirConnectionsEventLoop() async throws {
        #expect(try await placesOfVerification(inlineBodySize: 64 << 10) == [true, true])
    }

    @Test func largeBodiesAreVerifiedOffTheEventLoops() async throws {
        #expect(try await placesOfVerification(inlineBodySize: 0) == [false, false])
    }
}
