#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Looking for a few known bytes in an input that may be megabytes: the standard library's
/// `contains(_: some Collection)` compares element by element through generic code.
enum ByteSearch {
    /// Whether `needle` (not empty) occurs in `bytes`: memchr to each place its first byte
    /// occurs, then one compare there.
    static func contains(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { haystack in
            needle.withUnsafeBufferPointer { needle in
                guard let base = haystack.baseAddress, let wanted = needle.baseAddress else { return false }
                let lastStart = haystack.count - needle.count
                var offset = 0
                while offset <= lastStart {
                    guard let found = memchr(base + offset, Int32(first), lastStart - offset + 1) else { return false }
                    let start = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                    if memcmp(base + start, wanted, needle.count) == 0 { return true }
                    offset = start + 1
                }
                return false
            }
        }
    }
}
