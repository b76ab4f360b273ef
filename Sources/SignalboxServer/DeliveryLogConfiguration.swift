import Foundation

/// How much of the delivery log is kept per app: lines younger than `retention`, at most `maxLinesPerApp`.
public struct DeliveryLogConfiguration: Sendable {
    /// Lines older than this are deleted (default 7 days).
    public var retention: Duration = .seconds(7 * 86_400)
    /// Each app keeps at most this many of its newest lines.
    public var maxLinesPerApp = 100_000
    /// How often the log is pruned.
    public var pruneInterval: Duration = .seconds(60)

    public init() {}

    /// Reads `SIGNALBOX_DELIVERY_LOG_DAYS` (positive, up to ten years) and `SIGNALBOX_DELIVERY_LOG_MAX_LINES` (positive).
    public mutating func apply(environment: [String: String]) {
        if let days = environment["SIGNALBOX_DELIVERY_LOG_DAYS"].flatMap(Double.init), days > 0, days <= 3_650 {
            retention = .seconds(days * 86_400)
        }
        if let lines = environment["SIGNALBOX_DELIVERY_LOG_MAX_LINES"].flatMap(Int.init), lines > 0 { maxLinesPerApp = lines }
    }
}
