/// Ids of stored records (apps, events): random version-4 UUIDs in lower case.
///
/// The bytes come from `SystemRandomNumberGenerator` (`getrandom` on Linux), which traps rather than fail.
/// Foundation's `UUID()` reads `/dev/urandom` through a descriptor, and with the descriptors exhausted it
/// returned `00000000-0000-4000-8000-000000000000` every time; an event was accepted with that id.
enum RandomID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = withUnsafeBytes(of: (generator.next() as UInt64, generator.next() as UInt64)) { Array($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
