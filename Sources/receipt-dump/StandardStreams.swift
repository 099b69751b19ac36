#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Standard input, output and error through read(2) and write(2): receipt-dump imports
// FoundationEssentials only, not Foundation (which has FileHandle): on Linux, loading Foundation
// and ICU took more of a one-receipt run than verifying the receipt did.

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

    /// Writes `pieces`, with `separator` between each two, to standard output: through one
    /// buffer, not joined into a String and then printed (0.4 ms against 0.55 for 2 000 summary
    /// lines), a large piece straight from its own storage.
    static func writeOutput(_ pieces: some Collection<String>, separator: String = "") {
        var output = OutputBuffer()
        for (index, piece) in pieces.enumerated() {
            if index > 0 { output.append(separator) }
            output.append(piece)
        }
        output.flush()
    }

    /// Standard output, gathered: small pieces are copied into a buffer written when full or
    /// flushed; a piece of the buffer's size or more is written from its own storage, so a
    /// report of hundreds of megabytes is not copied again.
    struct OutputBuffer {
        static let capacity = 1 << 20
        private var buffer: [UInt8] = []

        mutating func append(_ text: String) {
            var text = text  // withUTF8 copies only a string that is not native UTF-8
            text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }

        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            if buffer.count + bytes.count > Self.capacity { flush() }
            if bytes.count >= Self.capacity {
                writeAll(bytes, to: STDOUT_FILENO)
            } else {
                buffer.append(contentsOf: bytes)
            }
        }

        mutating func flush() {
            buffer.withUnsafeBytes { writeAll($0, to: STDOUT_FILENO) }
            buffer.removeAll(keepingCapacity: true)
        }
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
