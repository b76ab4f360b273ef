import Foundation

/// What a bearer credential looks like, judged without storage.
enum CredentialShape {
    /// Three canonical base64url parts, the header and claims not empty.
    case deviceToken([Substring])
    /// Has dots, but is not a JWT of canonical base64url.
    case malformedToken
    /// `sbk_` and 32 bytes of base64url (43 characters), as `Secret.generate` makes them.
    case serverKey
    case unknown

    static let serverKeyPrefix = "sbk_"
    static let serverKeyLength = serverKeyPrefix.utf8.count + 43

    init(_ credential: String) {
        if credential.utf8.contains(UInt8(ascii: ".")) {
            let parts = credential.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ Base64URL.isCanonical($0.utf8) }) else {
                self = .malformedToken
                return
            }
            self = .deviceToken(parts)
        } else if credential.utf8.count == Self.serverKeyLength, credential.hasPrefix(Self.serverKeyPrefix),
            Base64URL.isCanonical(credential.utf8.dropFirst(Self.serverKeyPrefix.utf8.count))
        {
            self = .serverKey
        } else {
            self = .unknown
        }
    }
}

/// Canonical base64url (RFC 7515 §2): the URL alphabet, no padding, no length that cannot be, and the unused
/// low bits of the last character zero, so that each byte string has exactly one encoding.
enum Base64URL {
    static func isCanonical(_ text: some Collection<UInt8>) -> Bool {
        guard !text.isEmpty, text.count % 4 != 1 else { return false }
        var last: UInt8 = 0
        for byte in text {
            guard let value = value(of: byte) else { return false }
            last = value
        }
        switch text.count % 4 {
        case 2: return last & 0x0F == 0
        case 3: return last & 0x03 == 0
        default: return true
        }
    }

    /// The bytes of canonical base64url text (checked with `isCanonical` first).
    static func decode(_ text: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            guard let value = value(of: character) else { return [] }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return bytes
    }

    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
