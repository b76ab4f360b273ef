import Foundation

/// Why a registration did not reach the server.
public struct SyncError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public var key: String
    /// The HTTP status, or `nil` for a network failure.
    public var status: Int?
    public var code: String
    public var message: String
    public var at: Date

    public var description: String { "\(key): \(status.map(String.init) ?? "network") \(code): \(message)" }
}
