#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address and whether it is a public (globally routed) one: webhooks go only to public addresses,
/// so a key holder cannot make the server probe loopback, private networks or cloud metadata services. Pure (no
/// I/O); `WebhookTargetCheck` resolves a host and asks each of its addresses.
public struct NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]

    /// Why an address is not public; nil for a public one.
    public enum Range: String, Sendable {
        case unspecified, loopback, `private`, sharedAddressSpace = "shared address space", linkLocal = "link-local"
        case reserved, multicast, broadcast, benchmarking, documentation
    }

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A literal address: dotted-quad IPv4 or textual IPv6 (brackets and a `%zone` are dropped); nil for anything else.
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, String(text), &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    public var isPublic: Bool { nonPublicRange == nil }

    /// The special-purpose range holding the address, if any (IANA's registries, the ranges an internal network
    /// or a cloud host uses); IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by it.
    public var nonPublicRange: Range? {
        bytes.count == 4 ? Self.classify(v4: bytes) : Self.classify(v6: bytes)
    }

    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    private static func classify(v4 b: [UInt8]) -> Range? {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): return .unspecified
        case (10, _, _), (172, 16...31, _), (192, 168, _): return .private
        case (100, 64...127, _): return .sharedAddressSpace
        case (127, _, _): return .loopback
        case (169, 254, _): return .linkLocal
        case (192, 0, 0): return .reserved
        case (198, 18...19, _): return .benchmarking
        case (224...239, _, _): return .multicast
        case (255, 255, 255) where b[3] == 255: return .broadcast
        case (240...255, _, _): return .reserved
        default: return nil
        }
    }

    private static func classify(v6 b: [UInt8]) -> Range? {
        let v4 = Array(b[12...])
        let head = b[0..<10].allSatisfy { $0 == 0 }
        if head, b[10] == 0, b[11] == 0 {
            // ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d.
            if b[12..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? .loopback : (b[15] == 0 ? .unspecified : .reserved) }
            return classify(v4: v4) ?? .reserved
        }
        if head, b[10] == 0xFF, b[11] == 0xFF { return classify(v4: v4) }  // ::ffff:a.b.c.d, IPv4-mapped
        if b[0..<8].allSatisfy({ $0 == 0 }), b[8] == 0xFF, b[9] == 0xFF, b[10] == 0, b[11] == 0 { return classify(v4: v4) }  // ::ffff:0:a.b.c.d
        if b[0...1] == [0x00, 0x64], b[2...3] == [0xFF, 0x9B] {
            // 64:ff9b::/96 is NAT64 of a.b.c.d; 64:ff9b:1::/48 is a local-use NAT64 prefix.
            if b[4..<12].allSatisfy({ $0 == 0 }) { return classify(v4: v4) }
            if b[4...5] == [0x00, 0x01] { return .private }
        }
        if b[0] == 0x20, b[1] == 0x02 { return classify(v4: Array(b[2...5])) }  // 2002::/16, 6to4 of a.b.c.d
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return .documentation }
        if b[0] & 0xFE == 0xFC { return .private }  // fc00::/7, unique local
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return .private }  // fec0::/10, the former site-local
        if b[0] == 0xFF { return .multicast }
        if b[0] == 0x01, b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // 100::/64, discard-only
        return nil
    }
}
