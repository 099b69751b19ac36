#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `receipt-dump api …` runs `receipt-dump-api …`, the App Store Server API client (built with
/// the Server package: it needs an HTTP client, which receipt-dump and the library do without).
/// It is looked for beside receipt-dump, then on PATH.
enum APICommand {
    static func exec(_ arguments: [String]) -> Never {
        let name = "receipt-dump-api"
        var candidates: [String] = []
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        if length > 0 {
            let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = path.lastIndex(of: "/") { candidates.append(String(path[..<slash]) + "/" + name) }
        }
        let argv = [name] + arguments
        for candidate in candidates where access(candidate, X_OK) == 0 {
            run(candidate, argv, search: false)
        }
        run(name, argv, search: true)
        StandardStreams.writeError("""
            receipt-dump api needs \(name), the App Store Server API client, beside receipt-dump or on PATH. \
            Build it with: swift build -c release --package-path Server --product \(name)

            """)
        exit(64)
    }

    private static func run(_ path: String, _ argv: [String], search: Bool) {
        var pointers = argv.map { strdup($0) }
        pointers.append(nil)
        if search { execvp(path, pointers) } else { execv(path, pointers) }
        // Only reached when exec failed.
        for pointer in pointers { free(pointer) }
    }
}
