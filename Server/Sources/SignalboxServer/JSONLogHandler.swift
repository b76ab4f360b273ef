import Foundation
import Logging
import SignalboxAPI
import Synchronization

/// A swift-log handler writing one JSON object per line (`LOG_FORMAT=json`), for log collectors that would
/// otherwise have to parse text lines:
/// `{"label":"signalbox","level":"info","message":"…","metadata":{"key":"value"},"source":"…","time":"2026-…Z"}`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable ([UInt8]) -> Void
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - write: receives each line with its newline; standard output by default.
    ///   - now: the clock of the `time` field.
    public init(
        label: String, write: @escaping @Sendable ([UInt8]) -> Void = JSONLogHandler.standardOutput,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.label = label
        self.write = write
        self.now = now
        metadataProvider = LoggingSystem.metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var object: [String: Any] = [
            "time": SignalboxJSON.format(now()), "level": event.level.rawValue, "label": label,
            "message": event.message.description, "source": event.source,
        ]
        if !merged.isEmpty { object["metadata"] = merged.mapValues(Self.json) }
        // Strings, arrays and dictionaries of strings always serialize.
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return
        }
        line.append(UInt8(ascii: "\n"))
        write(Array(line))
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let array): array.map(json)
        case .dictionary(let dictionary): dictionary.mapValues(json)
        }
    }

    /// Writes a whole line with one call under a lock, so lines of concurrent loggers never interleave.
    public static let standardOutput: @Sendable ([UInt8]) -> Void = { bytes in
        outputLock.withLock { _ in try? FileHandle.standardOutput.write(contentsOf: bytes) }
    }

    private static let outputLock = Mutex(())
}
