#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ReceiptParser

/// A progress bar on standard error, only when it is a terminal and there is more than one receipt.
final class Progress: @unchecked Sendable {
    private let total: Int
    private let enabled: Bool
    private var done = 0
    private var lastDrawn = -1
    private let lock = ReadWriteLock()

    init(total: Int) {
        self.total = total
        enabled = total > 1 && isatty(STDERR_FILENO) == 1
    }

    func advance() {
        guard enabled else { return }
        lock.withLock {
            done += 1
            let percent = done * 100 / total
            guard percent != lastDrawn else { return }
            lastDrawn = percent
            let width = 30
            let filled = percent * width / 100
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            StandardStreams.writeError("\r[\(bar)] \(done)/\(total)")
        }
    }

    func finish() {
        guard enabled else { return }
        StandardStreams.writeError("\r\u{1B}[K")
    }
}
