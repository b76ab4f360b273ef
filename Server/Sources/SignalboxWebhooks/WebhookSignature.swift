import Crypto
import Foundation

/// The `Signalbox-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one `v1` per signing
/// secret (two while a rotation's overlap lasts, the current secret's first). A receiver recomputes the HMAC
/// with its secret and accepts the delivery when any `v1` matches and `t` is recent.
public enum WebhookSignature {
    public static let headerName = "Signalbox-Signature"

    /// The header's value for `body` sent at `timestamp` (whole seconds) under each of `secrets`.
    public static func header(timestamp: Int64, body: [UInt8], secrets: [String]) -> String {
        (["t=\(timestamp)"] + secrets.map { "v1=" + signature(timestamp: timestamp, body: body, secret: $0) }).joined(separator: ",")
    }

    /// The lower-case hex HMAC-SHA256 of `"<timestamp>.<body>"` under `secret`.
    public static func signature(timestamp: Int64, body: [UInt8], secret: String) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: Data(secret.utf8)))
        mac.update(data: Data("\(timestamp).".utf8))
        mac.update(data: body)
        return mac.finalize().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether `header` carries a valid signature of `body` under `secret`, made within `tolerance` of `now`
    /// (what a receiver does; the tests verify deliveries with it).
    public static func verify(header: String, body: [UInt8], secret: String, now: Date, tolerance: TimeInterval = 300) -> Bool {
        let fields = header.split(separator: ",").compactMap { field -> (Substring, Substring)? in
            guard let equals = field.firstIndex(of: "=") else { return nil }
            return (field[..<equals], field[field.index(after: equals)...])
        }
        guard let timestamp = fields.first(where: { $0.0 == "t" }).flatMap({ Int64($0.1) }),
              abs(now.timeIntervalSince1970 - TimeInterval(timestamp)) <= tolerance
        else { return false }
        let expected = Array(signature(timestamp: timestamp, body: body, secret: secret).utf8)
        return fields.contains { name, value in
            name == "v1" && Array(value.utf8).count == expected.count && zip(Array(value.utf8), expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
