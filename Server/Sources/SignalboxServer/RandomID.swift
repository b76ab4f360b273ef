import Foundation

/// Ids of stored records (apps, events): random version-4 UUIDs in lower case.
///
/// The bytes come from `Secret.randomBytes` (`SystemRandomNumberGenerator`, `getrandom` on Linux), which never
/// opens a descriptor and traps rather than fail silently; Foundation's `UUID()` reads `/dev/urandom`.
enum RandomID {
    static func make() -> String {
        var bytes = Secret.randomBytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let uuid = (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
        return UUID(uuid: uuid).uuidString.lowercased()
    }
}
