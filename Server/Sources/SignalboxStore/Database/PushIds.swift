import Synchronization

/// Outbox push ids: a random 64-bit prefix per process and a counter, in hex.
///
/// Unique without a UUID per push: `UUID()` reads `/dev/urandom` (open, read, close) and formats with
/// `snprintf`, 1.5 % of the server's CPU during a fan-out, inside the store's lock.
enum PushIds {
    private static let prefix = hex(UInt64.random(in: .min ... .max))
    private static let counter = Atomic<UInt64>(0)

    static func next() -> String {
        prefix + hex(counter.add(1, ordering: .relaxed).newValue)
    }

    /// 16 lower-case hex digits.
    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
