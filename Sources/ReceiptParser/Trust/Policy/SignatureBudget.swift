/// How many signature checks verifying one receipt may cost.
///
/// A genuine App Store receipt needs three: the receipt's own, the signer's by the WWDR
/// intermediate, the intermediate's by the root. The fourth leaves room for one more intermediate
/// candidate (a renewed intermediate under the same name and key identifier). An attacker who
/// fills the envelope with certificates claiming the intermediate's name and key identifier
/// gets no more than that: past the budget the chain is ``ReceiptError/Code/untrustedChain``.
/// A receipt whose chain the ``ChainCache`` remembers costs one.
struct SignatureBudget: Sendable {
    /// The checks one receipt may cost.
    static let perReceipt = 4

    /// The most checks allowed.
    let limit: Int
    /// The checks made so far.
    private(set) var used = 0

    init(limit: Int = SignatureBudget.perReceipt) {
        self.limit = limit
    }

    /// Takes one check from the budget, or throws when none is left.
    mutating func spend(on what: @autoclosure () -> String) throws(ReceiptError) {
        guard used < limit else {
            throw ReceiptError(.untrustedChain,
                               "the signature budget ran out: \(limit) signature checks per receipt are allowed, all spent before \(what())")
        }
        used += 1
    }
}
