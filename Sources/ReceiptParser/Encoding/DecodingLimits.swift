/// Hard limits that keep hostile input from costing unbounded time or memory.
public enum DecodingLimits {
    /// The largest receipt accepted, in bytes (after base64 decoding). The largest real receipt
    /// we know of is 79 KB; 32 MiB leaves room for receipts with tens of thousands of purchases.
    public static let maximumInputSize = 32 << 20
    /// The deepest ASN.1 nesting accepted. Real receipts nest 9 levels deep.
    public static let maximumDepth = 32
}
