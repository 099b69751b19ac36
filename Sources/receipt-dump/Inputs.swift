#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ReceiptParser
import ReceiptReports

/// One receipt to look at: where it came from, and how to get its bytes. Files are read, and
/// the names of listed files made, when the receipt is processed, on whichever core processes
/// it, not up front on the main thread.
struct ReceiptSource: Sendable {
    private enum Origin: Sendable {
        case file(String)
        case listedFile([UInt8])  // a path from a directory listing, as bytes
        case bytes(name: String, Result<[UInt8], Problem>)
    }

    private let origin: Origin

    init(name: String, bytes: Result<[UInt8], Problem>) { origin = .bytes(name: name, bytes) }
    init(path: String) { origin = .file(path) }
    init(listedPath: [UInt8]) { origin = .listedFile(listedPath) }

    /// The file's path, or what the bytes were read from.
    var name: String {
        switch origin {
        case .file(let path): return path
        case .listedFile(let path): return String(decoding: path, as: UTF8.self)
        case .bytes(let name, _): return name
        }
    }

    /// The receipt's bytes; `name` is `self.name`, passed in to spare making it again. A listed
    /// file is opened by its path's own bytes: its name is made for display and turns bytes
    /// that are not UTF-8 into U+FFFD, which could name another file.
    func load(name: String) -> Result<[UInt8], Problem> {
        let contents: [UInt8]?
        switch origin {
        case .bytes(_, let bytes): return bytes
        case .listedFile(let path): contents = FileSystem.contents(ofPath: path)
        case .file: contents = FileManager.default.contents(atPath: name).map { [UInt8]($0) }
        }
        guard let contents else {
            return .failure(Problem(code: "unreadableFile", reason: "cannot read \(name)"))
        }
        return .success(contents)
    }
}

/// Expands the command line's inputs: files, directories (walked recursively, sorted), `-` for
/// standard input, and JSON Lines files of base64 receipts.
enum Inputs {
    static func collect(paths: [String], jsonl: [String]) -> [ReceiptSource] {
        var sources: [ReceiptSource] = []
        for path in paths {
            if path == "-" {
                sources.append(ReceiptSource(name: "-", bytes: .success(StandardStreams.readInput())))
                continue
            }
            if FileSystem.isDirectory(path) {
                sources += directory(path)
            } else {
                sources.append(file(path))
            }
        }
        for path in jsonl {
            sources += lines(path)
        }
        return sources
    }

    static func file(_ path: String) -> ReceiptSource { ReceiptSource(path: path) }

    /// Every regular, non-hidden file below `path`, sorted by the bytes of their paths (as
    /// `LC_ALL=C ls` does). Walked with readdir, whose entry types spare a stat per file:
    /// FileManager's enumerator cost more than verifying did.
    private static func directory(_ path: String) -> [ReceiptSource] {
        var files: [[UInt8]] = []
        var prefix = Array(path.utf8)
        if prefix.last != UInt8(ascii: "/") { prefix.append(UInt8(ascii: "/")) }
        var ancestors: [DirectoryIdentity] = []
        guard walk(&prefix, into: &files, below: &ancestors) else {
            return [ReceiptSource(name: path, bytes: .failure(Problem(code: "unreadableFile", reason: "cannot list \(path)")))]
        }
        // Bytes and memcmp: sorting Strings (Unicode-aware) took a quarter of the listing.
        files.sort(by: precedesByBytes)
        return files.map(ReceiptSource.init(listedPath:))
    }

    private static func precedesByBytes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { right in
                let order = memcmp(left.baseAddress!, right.baseAddress!, min(left.count, right.count))
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
    }

    /// A directory's device and inode numbers.
    private struct DirectoryIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// Appends the files below the directory `path` (which ends in "/") to `files`; `path` is
    /// restored before returning. A directory already in `ancestors` (a symbolic link back up
    /// the tree) is not entered again.
    private static func walk(_ path: inout [UInt8], into files: inout [[UInt8]], below ancestors: inout [DirectoryIdentity]) -> Bool {
        guard let stream = path.withUnsafeBufferPointer({ buffer in
            String(decoding: buffer, as: UTF8.self).withCString(opendir)
        }) else { return false }
        defer { closedir(stream) }
        var status = stat()
        guard fstat(dirfd(stream), &status) == 0 else { return false }
        let identity = DirectoryIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        guard !ancestors.contains(identity) else { return true }
        ancestors.append(identity)
        defer { ancestors.removeLast() }
        let directoryLength = path.count
        defer { path.removeSubrange(directoryLength...) }
        while let entry = readdir(stream) {
            path.removeSubrange(directoryLength...)
            let hidden = withUnsafeBytes(of: entry.pointee.d_name) { name in
                guard name.first != UInt8(ascii: ".") else { return true }
                path.append(contentsOf: name.prefix { $0 != 0 })
                return false
            }
            guard !hidden else { continue }
            var type = Int32(entry.pointee.d_type)
            if type == Int32(DT_UNKNOWN) || type == Int32(DT_LNK) {
                var status = stat()
                guard String(decoding: path, as: UTF8.self).withCString({ stat($0, &status) }) == 0 else { continue }
                type = (status.st_mode & S_IFMT) == S_IFDIR ? Int32(DT_DIR) : (status.st_mode & S_IFMT) == S_IFREG ? Int32(DT_REG) : 0
            }
            if type == Int32(DT_DIR) {
                path.append(UInt8(ascii: "/"))
                _ = walk(&path, into: &files, below: &ancestors)
            } else if type == Int32(DT_REG) {
                files.append(path)
            }
        }
        return true
    }

    /// One receipt per non-empty line: base64, or a request body `{"receipt-data": ...}`.
    private static func lines(_ path: String) -> [ReceiptSource] {
        guard let data = FileManager.default.contents(atPath: path) else {
            return [ReceiptSource(name: path, bytes: .failure(Problem(code: "unreadableFile", reason: "cannot read \(path)")))]
        }
        var sources: [ReceiptSource] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let bytes = [UInt8](line).filter { $0 != UInt8(ascii: "\r") }
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            sources.append(ReceiptSource(name: "\(path):\(index + 1)", bytes: .success(bytes)))
        }
        return sources
    }
}
