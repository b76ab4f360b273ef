import Foundation
import SignalboxAPI
import Synchronization
@testable import SignalboxClient

/// A clock tests move by hand; `sleep(until:)` jumps to the deadline.
final class ManualClock: SignalboxClock {
    private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
    func sleep(until deadline: Date) async throws { date.withLock { $0 = max($0, deadline) } }
}

/// Records requests and answers each with `respond` (a network failure when it throws).
final class MemoryTransport: HTTPTransport {
    typealias Respond = @Sendable (HTTPRequestData) throws -> HTTPResponseData
    private let state: Mutex<(requests: [HTTPRequestData], respond: Respond)>

    init(_ respond: @escaping Respond = { _ in HTTPResponseData(status: 204) }) { state = Mutex(([], respond)) }

    func answer(_ respond: @escaping Respond) { state.withLock { $0.respond = respond } }

    func send(_ request: HTTPRequestData) async throws -> HTTPResponseData {
        let respond = state.withLock { state in
            state.requests.append(request)
            return state.respond
        }
        return try respond(request)
    }

    var requests: [HTTPRequestData] { state.withLock { $0.requests } }
    /// "METHOD last-path-segments" of every request, e.g. "PUT controls".
    var sent: [String] { requests.map { Self.describe($0) } }
    func clear() { state.withLock { $0.requests = [] } }

    static func describe(_ request: HTTPRequestData) -> String {
        let parts = request.url.path.split(separator: "/").dropFirst(5)
        return ([request.method] + (parts.isEmpty ? ["installation"] : parts.map(String.init))).joined(separator: " ")
    }

    /// The JSON body of a request as a dictionary.
    static func json(_ request: HTTPRequestData) -> [String: Any] {
        request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }
}

struct Offline: Error {}

/// A queue over an in-memory store and transport, with jitter fixed at its lowest.
struct QueueFixture {
    let clock = ManualClock()
    let transport: MemoryTransport
    let store: any SyncStore
    let queue: SyncQueue
    let fetches = Box(0)

    init(transport: MemoryTransport = MemoryTransport(), store: any SyncStore = MemorySyncStore(installationId: "inst-1")) {
        self.transport = transport
        self.store = store
        var configuration = SyncQueue.Configuration(baseURL: URL(string: "http://signalbox.test")!, appId: "app-1")
        configuration.backoff = Backoff(base: 2, cap: 600, random: { 0 })
        let counter = fetches
        let manual = self.clock
        let credentials = DeviceCredentials(clock: manual) {
            let count = counter.withLock { value in
                value += 1
                return value
            }
            return DeviceCredential(token: "jwt-\(count)", expiresAt: manual.now.addingTimeInterval(3600))
        }
        queue = SyncQueue(configuration: configuration, store: store, credentials: credentials, transport: transport, clock: manual)
    }

    static let installation = RegistrationSnapshot.installation(InstallationRequest(userId: "u1", channels: ["home:42"]))
    static func controls(_ tokens: String...) -> RegistrationSnapshot {
        .controls(ControlsRequest(controls: tokens.map { Control(kind: "door", configuration: .object(["door": .string("north")]), pushToken: $0) }))
    }
}

/// A value shared with `@Sendable` closures.
final class Box<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<T: Sendable>(_ body: (inout sending Value) -> T) -> T { value.withLock { body(&$0) } }
    /// The value before `value` replaced it.
    func exchange(_ new: Value) -> Value { value.withLock { old in defer { old = new }; return old } }
}
