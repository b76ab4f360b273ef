import Foundation

/// `PUT .../enumerators/{id}`'s answer as the client reads it.
public struct LeaseAnswer: Sendable, Hashable, Decodable {
    public var domain: String
    public var container: String
    public var expiresAt: Date
}
