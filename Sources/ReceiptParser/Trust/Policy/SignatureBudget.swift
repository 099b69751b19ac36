/// How many signature checks verifying one receipt or token may cost.
///
/// A genuine App Store receipt or StoreKit 2 token needs three: its own, the signer's by the WWDR
/// intermediate, the intermediate's by the root. The fourth leaves room for one more intermediate
/// candidate (a renewed intermediate under the same name and key identifier). An attacker who
/// fills the envelope with certificates claiming the intermediate's name and key identifier
/// gets no more than that: past the budget the chain is ``ReceiptError/Code/untrustedChain``.
/// Data whose chain the ``ChainCache`` remembers costs one.
struct SignatureBudget: Sendable {
    /// The checks one verification may cost.
    static let perVerification = 4

    /// The most checks allowed.
    let limit: Int
    /// The checks made so far.
    private(set) var used = 0

    init(limit: Int = SignatureBudget.perVerification) {
        self.limit = limit
    }

    /// Takes one check from the budget, or throws when none is left.
    mutating func spend(on what: @autoclosure () -> String) throws(ReceiptError) {
        guard used < limit else {
            throw ReceiptError(.untrustedChain,
                               "the signature budget ran out: \(limit) signature checks per verification are allowed, all spent before \(what())")
        }
        used += 1
    }
}
