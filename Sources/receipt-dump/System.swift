#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The few operating-system calls receipt-dump makes itself. It imports FoundationEssentials
// only, not Foundation (which has FileHandle and NSLock): on Linux, loading Foundation and ICU
// took more of a one-receipt run than verifying the receipt did.

/// A mutual-exclusion lock.
final class Lock: @unchecked Sendable {
    // @unchecked: the mutex is what makes sharing safe; it lives at a fixed address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

enum StandardStreams {
    /// Everything on standard input, up to end of file or the first read error.
    static func readInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                return bytes
            }
        }
    }

    /// Writes all of `text` to standard error, unbuffered, so a progress bar shows at once.
    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
    }

    /// Writes `pieces`, with `separator` between each two, to standard output in one go: each
    /// copied once into one buffer, not joined into a String and then printed (0.4 ms against
    /// 0.55 for 2 000 summary lines).
    static func writeOutput(_ pieces: some Collection<String>, separator: String = "") {
        let separatorLength = separator.utf8.count
        var buffer: [UInt8] = []
        buffer.reserveCapacity(pieces.reduce(separatorLength * max(pieces.count - 1, 0)) { $0 + $1.utf8.count })
        for (index, piece) in pieces.enumerated() {
            if index > 0 && separatorLength > 0 { buffer += separator.utf8 }
            buffer += piece.utf8
        }
        buffer.withUnsafeBytes { writeAll($0, to: STDOUT_FILENO) }
    }

    /// Writes all of `bytes`, retrying after interruptions and short writes; gives up on an error.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        var rest = bytes
        while !rest.isEmpty {
            let written = write(descriptor, rest.baseAddress, rest.count)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[written...])
        }
    }
}

enum FileSystem {
    /// The whole file at `path` (bytes, no terminating NUL), or nil if it cannot be read.
    static func contents(ofPath path: [UInt8]) -> [UInt8]? {
        let descriptor = (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
        }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                contents += chunk[..<count]
            } else if count == 0 {
                return contents
            } else if errno != EINTR {
                return nil
            }
        }
    }

    /// Whether `path` names a directory, following symbolic links.
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}
