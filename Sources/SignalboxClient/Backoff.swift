import Foundation

/// How long to wait after a failure that may pass (network, 408, 429, 5xx): exponential with full jitter
/// between half and all of the step, never less than the server's `Retry-After`.
public struct Backoff: Sendable {
    public var base: TimeInterval = 2
    public var cap: TimeInterval = 15 * 60
    /// A number in 0..<1; injected so tests know the jitter.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    public init(base: TimeInterval = 2, cap: TimeInterval = 15 * 60, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.base = base
        self.cap = cap
        self.random = random
    }

    /// The wait after `failures` failures in a row (1 for the first).
    public func delay(failures: Int, retryAfter: TimeInterval?) -> TimeInterval {
        let step = min(cap, base * pow(2, Double(max(0, min(failures - 1, 30)))))
        let jittered = step * (0.5 + 0.5 * random())
        return max(jittered, min(retryAfter ?? 0, cap * 4))
    }

    /// `Retry-After` as seconds or an HTTP date.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = TimeInterval(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSince(now)) }
    }
}
