// libFuzzer target "render" (see FuzzTarget.render). Build and run it with Fuzz/run.sh.
import FuzzEntry

@main
enum FuzzRender {
    static func main() {
        runLibFuzzer { data, size in
            _ = harness.run(.render, input(data, size))
            return 0
        }
    }
}
