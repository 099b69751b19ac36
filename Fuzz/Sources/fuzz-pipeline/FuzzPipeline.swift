// libFuzzer target "pipeline" (see FuzzTarget.pipeline). Build and run it with Fuzz/run.sh.
import FuzzEntry

@main
enum FuzzPipeline {
    static func main() {
        runLibFuzzer { data, size in
            _ = harness.run(.pipeline, input(data, size))
            return 0
        }
    }
}
