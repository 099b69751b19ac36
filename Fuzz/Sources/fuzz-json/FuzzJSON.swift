// libFuzzer target "json" (see FuzzTarget.json). Build and run it with Fuzz/run.sh.
import FuzzEntry

@main
enum FuzzJSON {
    static func main() {
        runLibFuzzer { data, size in
            _ = harness.run(.json, input(data, size))
            return 0
        }
    }
}
