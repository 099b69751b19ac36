import CReceiptDumpThreads

/// receipt-dump's parallelism: the calling thread plus one thread per other processor the
/// process may use (`receipt_dump_threads_apply`). libdispatch's second worker began its first
/// iteration 0.2–5.5 ms late in a fresh process, a tenth of a 2 000-receipt run.
enum Workers {
    /// `transform` applied to every item, in order; the items are shared out one at a time.
    static func map<Item: Sendable, Value: Sendable>(_ items: [Item], _ transform: @Sendable (Item) -> Value) -> [Value] {
        Array(unsafeUninitializedCapacity: items.count) { buffer, initialized in
            let slots = Slots(base: buffer.baseAddress)
            apply(items.count) { index in (slots.base! + index).initialize(to: transform(items[index])) }
            initialized = items.count
        }
    }

    /// Runs `first` on this thread while `second` runs on another processor, if there is one
    /// (else after `first`), and returns both results.
    static func together<First, Second: Sendable>(_ first: () -> First, _ second: @Sendable () -> Second) -> (First, Second) {
        var firstValue: First?
        var secondValue: Second?
        withUnsafeMutablePointer(to: &secondValue) { secondSlot in
            let slot = Slots(base: secondSlot)
            apply(2) { index in
                if index == 0 { firstValue = first() } else { slot.base!.pointee = second() }
            }
        }
        return (firstValue!, secondValue!)
    }

    /// Calls `body` for every index below `iterations` and returns when all calls have. Index 0
    /// runs on this thread, the others on any processor, so for them `body` may touch only
    /// what is safe to share and what no other index touches.
    private static func apply(_ iterations: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            var body = body
            withUnsafeMutableBytes(of: &body) { context in
                receipt_dump_threads_apply(iterations, { context, index in
                    context!.assumingMemoryBound(to: ((Int) -> Void).self).pointee(index)
                }, context.baseAddress)
            }
        }
    }
}

/// A pointer handed to threads that each write their own element through it.
private struct Slots<Element>: @unchecked Sendable {
    // @unchecked: every element is written by one thread only, and read after
    // receipt_dump_threads_apply has joined them all.
    let base: UnsafeMutablePointer<Element>?
}
