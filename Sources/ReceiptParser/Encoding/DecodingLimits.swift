/// Hard limits that keep hostile input from costing unbounded time or memory.
///
/// Input past a limit is rejected with ``ReceiptError/Code/tooLarge`` (or
/// ``ReceiptError/Code/nestingTooDeep`` for depth); input at a limit is accepted.
public enum DecodingLimits {
    /// The largest receipt accepted, in bytes (after base64 decoding). The largest real receipt
    /// we know of is 79 KB; 32 MiB leaves room for receipts with tens of thousands of purchases.
    public static let maximumInputSize = 32 << 20
    /// The deepest ASN.1 nesting accepted. Real receipts nest 9 levels deep.
    public static let maximumDepth = 32
    /// The most attributes one attribute set may hold (the top level, or one in-app purchase).
    /// Real receipts hold up to about 230; the limit bounds the models' memory to a small
    /// multiple of the input.
    public static let maximumAttributeCount = 200_000
    /// The most in-app purchases one receipt may hold. The largest real receipt has 187.
    public static let maximumInAppPurchases = 100_000
    /// The most certificates a receipt's SignedData may carry. Apple sends 3 (signer, WWDR
    /// intermediate, root); 10 leaves room for a cross-signed intermediate or two while keeping
    /// the certificates parsed and the signatures tried for one receipt small and bounded.
    public static let maximumCertificates = 10
    /// The largest certificate accepted, in bytes. Apple's are 1.1 to 1.5 KB; parsing cost
    /// grows with size, so a bound on the count alone would not bound the work.
    public static let maximumCertificateSize = 16 << 10
    /// The deepest nesting of arrays and objects accepted in JSON input (request bodies,
    /// input files). A verifyReceipt body nests 1 level.
    public static let maximumJSONDepth = 32
    /// The largest compact JWS accepted, in bytes. Apple's are 3 to 19 KB (a notification
    /// with its nested tokens); a token is read whole, so this bounds the memory it costs.
    public static let maximumTokenSize = 1 << 20
    /// The deepest nesting of arrays and objects accepted in a JWS header or payload, or in a
    /// JSON body around tokens. Apple's payloads nest 3 levels.
    public static let maximumTokenJSONDepth = 64
}
