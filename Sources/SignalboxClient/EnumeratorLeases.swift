import Foundation
import SignalboxAPI

/// Keeps the server told which File Provider enumerators are alive in this process: a lease per open
/// enumerator, renewed at half its length while the extension is awake, dropped on `invalidate()`.
/// The working set and replicated domains are always pushed, so they are never leased. Offline, renewals
/// only replace each other in the queue and one not sent within its lease is dropped: leases lapse.
public actor EnumeratorLeases {
    /// `NSFileProviderItemIdentifier.workingSet`'s raw value.
    public static let workingSet = "NSFileProviderWorkingSetContainerItemIdentifier"

    private struct Lease {
        var domain: String
        var container: String
        var renewAt: Date
    }

    private let queue: SyncQueue
    private let clock: any SignalboxClock
    public let leaseSeconds: Int
    private var live: [String: Lease] = [:]

    public init(queue: SyncQueue, leaseSeconds: Int = 600, clock: any SignalboxClock = SystemClock()) {
        self.queue = queue
        self.leaseSeconds = leaseSeconds
        self.clock = clock
    }

    /// An enumerator started; returns whether it is leased (not for the working set or a replicated domain).
    @discardableResult
    public func open(domain: String, container: String) throws -> Bool {
        guard container != Self.workingSet, try !isReplicated(domain) else { return false }
        let key = RegistrationSnapshot.enumeratorKey(domain: domain, container: container)
        try lease(domain: domain, container: container)
        live[key] = Lease(domain: domain, container: container, renewAt: renewalTime())
        return true
    }

    /// The enumerator was invalidated: the server stops pushing for its container.
    public func invalidate(domain: String, container: String) throws {
        let key = RegistrationSnapshot.enumeratorKey(domain: domain, container: container)
        guard live.removeValue(forKey: key) != nil else { return }
        try queue.set(.enumeratorGone(domain: domain, container: container))
    }

    /// Queues a renewal for every lease at half its length; returns when the next one is due.
    @discardableResult
    public func renewDue() throws -> Date? {
        let now = clock.now
        for (key, lease) in live where lease.renewAt <= now {
            try self.lease(domain: lease.domain, container: lease.container)
            live[key]?.renewAt = renewalTime()
        }
        return nextRenewal
    }

    /// When `renewDue()` has work next.
    public var nextRenewal: Date? { live.values.map(\.renewAt).min() }

    /// The containers leased by this process.
    public var leased: [(domain: String, container: String)] { live.values.map { ($0.domain, $0.container) } }

    private func lease(domain: String, container: String) throws {
        try queue.set(.enumeratorLease(domain: domain, container: container, leaseSeconds: leaseSeconds, requestedAt: clock.now))
    }

    private func renewalTime() -> Date { clock.now.addingTimeInterval(TimeInterval(leaseSeconds) / 2) }

    /// Whether the app registered the domain as replicated.
    private func isReplicated(_ domain: String) throws -> Bool {
        guard case .fileProvider(let request) = try queue.state().entries["file-provider"]?.snapshot else { return false }
        return request.domains.contains { $0.id == domain && $0.replicated }
    }
}
