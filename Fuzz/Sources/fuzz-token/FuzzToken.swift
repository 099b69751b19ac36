// libFuzzer target "token" (see FuzzTarget.token). Build and run it with Fuzz/run.sh.
import FuzzEntry

@main
enum FuzzToken {
    static func main() {
        runLibFuzzer { data, size in
            _ = harness.run(.token, input(data, size))
            return 0
        }
    }
}
