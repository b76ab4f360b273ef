import Foundation

/// Times are stored as Unix milliseconds (`BIGINT`), the same on every backend.
extension Date {
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
