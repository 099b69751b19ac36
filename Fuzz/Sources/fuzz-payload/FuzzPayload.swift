// libFuzzer target "payload" (see FuzzTarget.payload). Build and run it with Fuzz/run.sh.
import FuzzEntry

@main
enum FuzzPayload {
    static func main() {
        runLibFuzzer { data, size in
            _ = harness.run(.payload, input(data, size))
            return 0
        }
    }
}
