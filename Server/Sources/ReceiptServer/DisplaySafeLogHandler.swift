import Logging
import ReceiptParser

/// Passes log records on to another handler with the message and every metadata value made
/// display text (``DisplayText``): a bundle identifier or an error reason taken from a forged
/// receipt cannot break a record into two lines, forge a line with `\r`, or paint the terminal
/// of whoever tails the log. Values are also shortened to ``DisplayText/reasonLimit``, so one
/// record stays one bounded line.
///
/// The logger's own metadata and the metadata provider's are kept here, as given, and merged and
/// escaped only when a record is written (base, then provider, then the record's own, as
/// `StreamLogHandler` does). The framework gives every request's logger a request id: escaping it
/// on every request, and the inner handler re-rendering its metadata each time, cost 5 % of the
/// server's time under `/health` load, for records that are mostly never written.
public struct DisplaySafeLogHandler: LogHandler {
    private var inner: any LogHandler

    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// Wraps `inner`, which formats and writes the records (e.g. `StreamLogHandler`); its
    /// metadata and metadata provider move here, so that they are escaped too.
    public init(wrapping inner: any LogHandler) {
        self.inner = inner
        metadata = inner.metadata
        metadataProvider = inner.metadataProvider
        if !metadata.isEmpty { self.inner.metadata = [:] }
        if metadataProvider != nil { self.inner.metadataProvider = nil }
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata {
            merged.merge(explicit) { _, explicit in explicit }
        }
        event.message = "\(DisplayText.escape(event.message.description, limit: DisplayText.reasonLimit))"
        event.metadata = merged.isEmpty ? nil : merged.mapValues(Self.displayable)
        inner.log(event: event)
    }

    /// A metadata value with every string in it made display text.
    static func displayable(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(DisplayText.escape(text, limit: DisplayText.reasonLimit))
        case .stringConvertible(let item): .string(DisplayText.escape(item.description, limit: DisplayText.reasonLimit))
        case .array(let values): .array(values.map(displayable))
        case .dictionary(let members): .dictionary(members.mapValues(displayable))
        }
    }
}
