import Foundation

/// Time as the SDK sees it: injected so queues, back-off and leases are tested without sleeping.
public protocol SignalboxClock: Sendable {
    var now: Date { get }
    /// Returns at `deadline` (or at once when it has passed); throws when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The wall clock.
public struct SystemClock: SignalboxClock {
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}
