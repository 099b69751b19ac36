import Logging
import ReceiptParser

/// Passes log records on to another handler with the message and every metadata value made
/// display text (``DisplayText``): a bundle identifier or an error reason taken from a forged
/// receipt cannot break a record into two lines, forge a line with `\r`, or paint the terminal
/// of whoever tails the log. Values are also shortened to ``DisplayText/reasonLimit``, so one
/// record stays one bounded line.
public struct DisplaySafeLogHandler: LogHandler {
    private var inner: any LogHandler

    /// Wraps `inner`, which formats and writes the records (e.g. `StreamLogHandler`).
    public init(wrapping inner: any LogHandler) {
        self.inner = inner
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue.mapValues(Self.displayable) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue.map(Self.displayable) }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = "\(DisplayText.escape(event.message.description, limit: DisplayText.reasonLimit))"
        event.metadata = event.metadata?.mapValues(Self.displayable)
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
