import Foundation

/// How much of the delivery log is kept per app: lines younger than `retention`, at most `maxLinesPerApp`.
public struct DeliveryLogConfiguration: Sendable {
    /// Lines older than this are deleted (default 7 days).
    public var retention: Duration = .seconds(7 * 86_400)
    /// Each app keeps at most this many of its newest lines; 0 writes no log.
    public var maxLinesPerApp = 100_000
    /// How often the log is pruned.
    public var pruneInterval: Duration = .seconds(60)

    public init() {}
}
