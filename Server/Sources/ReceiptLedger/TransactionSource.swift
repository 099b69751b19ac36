/// Where the ledger learnt of a transaction: a PKCS #7 receipt or a StoreKit 2 signed transaction.
public enum TransactionSource: String, Sendable, Hashable, Codable {
    case receipt
    case jws
}
