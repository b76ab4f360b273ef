/// A device push token as lower-case hex: non-empty, even length, any size (`apns.md` §1.6).
public struct DeviceToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The lower-case hexadecimal form used in `:path`.
    public let hex: String

    /// The longest token accepted, in hex characters (200 bytes; real tokens are 32–100 bytes).
    public static let maximumHexLength = 400

    /// Validates and lower-cases a hex token.
    /// - Throws: `DeviceToken.Invalid` when empty, odd-length, too long or not hex.
    public init(hex: String) throws(Invalid) {
        guard !hex.isEmpty else { throw Invalid(message: "token is empty") }
        guard hex.utf8.count <= Self.maximumHexLength else {
            throw Invalid(message: "token is longer than \(Self.maximumHexLength) hex characters")
        }
        guard hex.utf8.count.isMultiple(of: 2) else { throw Invalid(message: "token has an odd number of hex digits") }
        // One pass, and no copy for the usual lower-case token: every push parses one (4 % of a fan-out's CPU before).
        var hasUpperCase = false
        for byte in hex.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "F"): hasUpperCase = true
            default: throw Invalid(message: "token is not hexadecimal")
            }
        }
        self.hex = hasUpperCase ? hex.lowercased() : hex
    }

    /// Encodes raw token bytes (as WidgetKit, ControlCenter and PushKit hand them out).
    public init(bytes: some Sequence<UInt8>) throws(Invalid) {
        try self.init(hex: Hex.encode(bytes))
    }

    public var description: String { hex }

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(hex: value) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    /// Why a string is not a device token.
    public struct Invalid: Error, Sendable, Equatable {
        public let message: String
    }
}

