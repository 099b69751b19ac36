#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Files through open(2) and read(2), not Foundation's FileManager (see StandardStreams.swift
// for why receipt-dump does without Foundation).

enum FileSystem {
    /// The whole file at `path` (bytes, no terminating NUL), or nil if it cannot be read. Read
    /// into a buffer of the file's size, as FileManager does, without zeroing a chunk per file.
    static func contents(ofPath path: [UInt8]) -> [UInt8]? {
        let descriptor = (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
        }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        var contents: [UInt8] = []
        var failed = false
        // One byte more than the size, so that a file that did not grow ends in one pass.
        var room = max(Int(status.st_size), 0) + 1
        while !failed {
            let before = contents.count
            contents.reserveCapacity(before + room)
            contents.append(contentsOf: repeatElement(0, count: room))
            let got = contents.withUnsafeMutableBytes { buffer in
                var total = 0
                while total < room {
                    let count = read(descriptor, buffer.baseAddress! + before + total, room - total)
                    if count > 0 { total += count } else if count == 0 || errno != EINTR { failed = count < 0; break }
                }
                return total
            }
            contents.removeLast(room - got)
            if got < room { break }  // end of file
            room = max(contents.count, 4096)  // the file grew while read: read on
        }
        return failed ? nil : contents
    }

    /// Whether `path` names a directory, following symbolic links.
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}
