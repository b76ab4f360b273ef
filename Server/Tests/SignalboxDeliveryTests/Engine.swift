import Crypto
import Foundation
import Logging
import SignalboxAPI
import SignalboxAPNs
import SignalboxDelivery
import SignalboxMemoryStore
import SignalboxModel
import SignalboxTestSupport
import Synchronization
import Testing

/// The delivery engine (fan-out and dispatcher) on the memory store, answered by an in-memory APNs, on a wall clock
/// the test moves: no sockets, no database, no retry that happens because real time passed.
struct Engine {
    static let appId = "a"
    let store: MemoryStore
    /// The store the engine uses (`wrap`'s result).
    let delivery: any DeliveryStore
    let clock: TestClock
    let apns: RecordingAPNs
    let signals: DeliverySignals

    /// Runs the engine while `body` runs; it is stopped when `body` returns or throws.
    /// - Parameters:
    ///   - configure: the delivery configuration (pages, slots).
    ///   - answer: APNs's answer to the `attempt`th push (1, 2, …) to `token`.
    ///   - wrap: the delivery store the engine uses, around the memory store.
    ///   - stopping: called as the engine is told to stop, before it has stopped.
    static func run(
        configure: (inout DeliveryConfiguration) -> Void = { _ in },
        wrap: (MemoryStore) -> any DeliveryStore = { $0 },
        answer: @escaping @Sendable (_ token: String, _ attempt: Int) async -> APNsResponse = { _, _ in APNsResponse(status: 200) },
        stopping: () -> Void = {},
        _ body: (Engine) async throws -> Void
    ) async throws {
        var configuration = DeliveryConfiguration()
        configure(&configuration)
        let clock = TestClock()
        let store = MemoryStore()
        try await store.createApp(app(appId, at: clock.now))
        let apns = RecordingAPNs(answer: answer)
        let tokens = ProviderTokenManager(
            key: SigningKey(privateKey: P256.Signing.PrivateKey(), keyId: "KEY1234567", teamId: "TEAM123456"), now: { clock.now }
        )
        let sender = PushSender(client: APNsClient(transport: apns.transport)) { _ in
            PushSender.Credentials(bundleId: "com.example.garage", tokens: tokens)
        }
        let signals = DeliverySignals()
        let logger = Logger(label: "test.engine")
        let delivery = wrap(store)
        let dispatcher = Dispatcher(store: delivery, sender: sender, signals: signals, configuration: configuration, logger: logger, now: { clock.now })
        let fanOut = FanOutService(store: delivery, signals: signals, configuration: configuration, logger: logger, now: { clock.now })
        let engine = Engine(store: store, delivery: delivery, clock: clock, apns: apns, signals: signals)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await dispatcher.run() }
            group.addTask { try await fanOut.run() }
            do {
                try await body(engine)
            } catch {
                group.cancelAll()
                stopping()
                throw error
            }
            group.cancelAll()
            stopping()
        }
    }

    /// An app of the same team as the others (the sender signs for every app with one key).
    private static func app(_ id: String, at now: Date) -> AppRecord {
        AppRecord(
            id: id, bundleId: "com.example.garage.\(id)", teamId: "TEAM123456", keyId: "KEY1234567", environment: .sandbox,
            sealedPrivateKey: [1], sealedDeviceSecret: [2], serverKeyHash: "hash-\(id)", createdAt: now
        )
    }

    /// Adds an app beside `appId`.
    func createApp(_ id: String) async throws { try await store.createApp(Self.app(id, at: clock.now)) }

    /// Installations `i0000`… of `app` with one `door` control each, tokens `firstToken`, `firstToken` + 1, … in hex.
    func register(_ count: Int, app: String = Self.appId, firstToken: Int = 0xA000) async throws -> [String] {
        var tokens: [String] = []
        for index in 0..<count {
            let id = String(format: "i%04d", index)
            let token = String(format: "%064x", firstToken + index)
            try await store.putInstallation(appId: app, Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: clock.now)
            try await store.putControls(appId: app, installationId: id, [Control(kind: "door", pushToken: token)], now: clock.now)
            tokens.append(token)
        }
        return tokens
    }

    /// Accepts an event to every `door` control of `app`, as the events route does.
    func post(_ id: String, app: String = Self.appId) async throws {
        let event = EventRecord(
            id: id, appId: app, request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all), createdAt: clock.now
        )
        try await store.createEvent(event)
        signals.eventAccepted(event.queued)
    }

    func status(_ id: String, app: String = Self.appId) async throws -> EventStatus? { try await store.eventStatus(appId: app, id: id) }

    /// Waits until `condition` holds: a hang, not a slow run, reaches the limit. - Returns: whether it held.
    @discardableResult
    func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("gave up waiting: \(what)")
        return false
    }

    /// Waits until the event is done.
    @discardableResult
    func waitUntilDone(_ id: String, app: String = Self.appId) async throws -> EventStatus? {
        try await waitUntil("event \(id) done") { try await status(id, app: app)?.state == .done }
        return try await status(id, app: app)
    }
}

/// An APNs that answers from a closure and counts what each token was sent.
final class RecordingAPNs: Sendable {
    private let sent = Mutex<[String: Int]>([:])
    private let answer: @Sendable (String, Int) async -> APNsResponse

    init(answer: @escaping @Sendable (String, Int) async -> APNsResponse) {
        self.answer = answer
    }

    var transport: InMemoryTransport {
        InMemoryTransport { [self] request in
            let token = request.push.deviceToken.hex
            let attempt = sent.withLock { sent in
                sent[token, default: 0] += 1
                return sent[token]!
            }
            return await answer(token, attempt)
        }
    }

    /// Pushes sent per token.
    var counts: [String: Int] { sent.withLock { $0 } }
}
