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
    /// into uninitialized memory of the file's size: zeroing it first cost as much as reading.
    static func contents(ofPath path: [UInt8]) -> [UInt8]? {
        let descriptor = (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
        }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        var contents: [UInt8] = []
        // One byte more than the size, so that a file that did not grow ends in one pass.
        var room = max(Int(status.st_size), 0) + 1
        while true {
            var failed = false
            let chunk = [UInt8](unsafeUninitializedCapacity: room) { buffer, count in
                while count < room {
                    let got = read(descriptor, buffer.baseAddress! + count, room - count)
                    if got > 0 { count += got } else if got == 0 || errno != EINTR { failed = got < 0; break }
                }
            }
            if failed { return nil }
            if contents.isEmpty { contents = chunk } else { contents += chunk }
            if chunk.count < room { return contents }  // end of file
            room = max(contents.count, 4096)  // the file grew while read: read on
        }
    }

    /// Whether `path` names a directory, following symbolic links.
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}
