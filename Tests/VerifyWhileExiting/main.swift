import Foundation
import ReceiptParser
import ReceiptTestSupport

// A process that exits while another of its threads is still verifying, as a server does when it
// is stopped under load: ProcessExitTests runs it many times and expects a clean exit each time.
// The thread makes a new verifier for every receipt, so certificates and keys are parsed and
// freed (OpenSSL's locks taken) all the time, also while exit(3) runs.
let receipt = try fixture("sample.receipt")
let started = DispatchSemaphore(value: 0)
let worker = Thread {
    while true {
        let verified = try? testRootVerifier().verifyAndDecode(receipt)
        precondition(verified != nil, "the sample receipt no longer verifies")
        started.signal()
    }
}
worker.start()
started.wait()
usleep(2_000)
exit(0)
