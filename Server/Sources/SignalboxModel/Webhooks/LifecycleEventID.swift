import Foundation
import Synchronization

/// Lifecycle event ids that sort by time: `lev_`, the time in milliseconds (13 hex digits), a per-process random
/// part and counter. Ids made by one process sort in the order they were made; across instances, by their time.
public enum LifecycleEventID {
    private static let process = String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(8)
    private static let counter = Atomic<UInt32>(0)

    public static func next(at date: Date) -> String {
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded()))
        let count = counter.add(1, ordering: .relaxed).newValue
        return "lev_" + String(milliseconds, radix: 16).leftPadded(13) + process + String(count, radix: 16).leftPadded(8)
    }

    /// Whether `text` has the shape of an id (a cursor from outside is checked before it reaches storage).
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count == 33 && text.hasPrefix("lev_") && text.utf8.dropFirst(4).allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
