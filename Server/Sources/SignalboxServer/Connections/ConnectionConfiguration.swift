/// Limits on HTTP connections, so a peer that opens many connections or sends slowly cannot exhaust the
/// process's file descriptors or hold connections forever.
public struct ConnectionConfiguration: Sendable {
    /// From a connection's first byte (or its opening) until the request head is complete.
    public var headerTimeout: Duration = .seconds(10)
    /// From the request head until the body's end.
    public var bodyTimeout: Duration = .seconds(30)
    /// A keep-alive connection with no request in progress is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// Open HTTP connections at most; `nil` derives it from the file-descriptor limit minus `reserve`.
    /// A configured value is still capped by the limit.
    public var maxConnections: Int?
    /// Descriptors kept free of HTTP connections for SQLite, APNs connections and the runtime.
    public var reserve = 256

    public init() {}

    /// The connection cap for a process allowed `descriptorLimit` open files: below the limit by the reserve
    /// (at least an eighth of the limit), never above a configured `maxConnections`.
    public func connectionCap(descriptorLimit: Int) -> Int {
        let derived = max(1, descriptorLimit - max(reserve, descriptorLimit / 8))
        return min(maxConnections ?? derived, derived)
    }
}
