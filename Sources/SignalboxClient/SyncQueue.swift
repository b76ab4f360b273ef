import Foundation
import SignalboxAPI

/// The durable sync queue: one latest snapshot per registration key, sent in order (the installation first),
/// acknowledged per revision, refreshed daily, backed off after failures that may pass. Several processes
/// (the app and its extensions) may run one over the same store; a key being sent by one is left to it.
public final class SyncQueue: Sendable {
    public struct Configuration: Sendable {
        /// Signalbox's base URL, e.g. `https://push.example.com`.
        public var baseURL: URL
        public var appId: String
        /// An acknowledged snapshot is sent again after this long, so the server's `lastSeenAt` stays true.
        public var refreshInterval: TimeInterval = 86_400
        public var backoff = Backoff()
        /// How long a process may hold a key it is sending before another process may send it.
        public var sendingTimeout: TimeInterval = 60
        /// The id of a new installation (after a sign-out, a user change, or another user's installation).
        public var makeInstallationId: @Sendable () -> String = { UUID().uuidString.lowercased() }

        public init(baseURL: URL, appId: String) {
            self.baseURL = baseURL
            self.appId = appId
        }
    }

    let configuration: Configuration
    let store: any SyncStore
    let transport: any HTTPTransport
    let credentials: DeviceCredentials
    let clock: any SignalboxClock

    public init(
        configuration: Configuration, store: any SyncStore, credentials: DeviceCredentials,
        transport: any HTTPTransport = URLSessionTransport(), clock: any SignalboxClock = SystemClock()
    ) {
        self.configuration = configuration
        self.store = store
        self.transport = transport
        self.credentials = credentials
        self.clock = clock
    }

    /// Makes `snapshot` the latest for its key. An unchanged snapshot changes nothing (it is not sent again).
    /// An installation whose user differs from the one registered before starts a new installation id (the old id
    /// stays the other user's; the device's tokens move to the new one when it registers them), and the device
    /// JWT of the previous user is not used again.
    public func set(_ snapshot: RegistrationSnapshot) throws {
        let switched = try store.update { state in
            if let entry = state.entries[snapshot.key], entry.snapshot == snapshot { return false }
            var switched = false
            if case .installation(let new) = snapshot, case .installation(let old)? = state.entries["installation"]?.snapshot,
                old.userId != new.userId {
                switched = true
                if let previous = old.userId, new.userId != nil, previous != new.userId {
                    state.abandonedInstallationIds = (state.abandonedInstallationIds ?? []) + [state.installationId]
                    state.moveToNewInstallation(configuration.makeInstallationId(), keepingInstallation: false)
                }
            }
            var entry = state.entries[snapshot.key] ?? SyncEntry(snapshot: snapshot, revision: 0)
            entry.snapshot = snapshot
            entry.revision = state.nextRevision
            entry.sendingUntil = nil
            state.nextRevision += 1
            state.entries[snapshot.key] = entry
            return switched
        }
        if switched { credentials.forgetToken() }
    }

    /// The state as stored now.
    public func state() throws -> SyncState { try store.update { $0 } }

    /// The installation id kept in the store (created with the store).
    public func installationId() throws -> String { try store.update { $0.installationId } }

    /// Sends what is due, in order, until nothing is due or a failure that may pass stops the round.
    @discardableResult
    public func sync() async throws -> SyncReport {
        var report = SyncReport()
        try await deleteAbandonedInstallations(&report)
        var round = Round()
        for _ in 0..<64 {
            let now = clock.now
            guard let pick = try store.update({ state in Self.pick(&state, now: now, configuration: configuration, round: round) }) else { break }
            let (installation, user) = try store.update { state -> (String, String?) in
                guard case .installation(let request)? = state.entries["installation"]?.snapshot else { return (state.installationId, nil) }
                return (state.installationId, request.userId)
            }
            let outcome = await send(pick, installationId: installation, user: user)
            let stop = try store.update { state in
                Self.apply(outcome, to: &state, pick: pick, now: clock.now, configuration: configuration, round: &round, report: &report)
            }
            if stop { break }
        }
        try await sendReloads(&report)
        report.nextWake = try store.update { Self.nextWake($0, now: clock.now, configuration: configuration) }
        return report
    }
}
