// libFuzzer target "input" (see FuzzTarget.input). Build and run it with Fuzz/run.sh.
import FuzzEntry

@main
enum FuzzInput {
    static func main() {
        runLibFuzzer { data, size in
            _ = harness.run(.input, input(data, size))
            return 0
        }
    }
}
