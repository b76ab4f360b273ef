import APNsSimulator
import Foundation
import SignalboxAPI
import SignalboxAPNs
import SignalboxModel
import SignalboxStoreTestSupport

/// One step of a cross-check sequence, drawn at random and applied to every backend alike.
enum CrossCheckOperation {
    case putInstallation(app: String, Installation, maxPerUser: Int?, revision: Int64?)
    case putControls(app: String, installation: String, [Control], revision: Int64?)
    case putWidgets(app: String, installation: String, WidgetRegistration)
    case putFileProvider(app: String, installation: String, FileProviderRegistration)
    case deleteFileProvider(app: String, installation: String)
    case putEnumerator(app: String, installation: String, Enumerator, maxLive: Int?)
    case deleteInstallation(app: String, installation: String)
    case createEvent(EventRecord)
    case fanOut(event: String, batch: Int, handOff: Int)
    case claim(limit: Int, paused: Set<String>)
    /// Results for pushes in flight, named by what identifies them on every backend.
    case complete([(PushIdentity, DeliveryResult)])
    /// The active process stops; after `advance` seconds (beyond every lease) the other one starts and takes its
    /// claims back; with `lateAnswers`, the stopped one's answers arrive afterwards and must be fenced out.
    case restart(advance: TimeInterval, lateAnswers: Bool)
    case advance(TimeInterval)
    case setIntervals(app: String, [PushKind: Int])
    case deleteExpiredEnumerators
    case failEvent(String)
    case purge(olderThan: TimeInterval)

    /// The installations whose snapshots the step can change: its app's for a registration write (tokens move between
    /// installations), every app's for results that can prune tokens and for expiring enumerators, none otherwise.
    var changedApps: ChangedApps {
        switch self {
        case .putInstallation(let app, _, _, _), .putControls(let app, _, _, _), .putWidgets(let app, _, _), .putFileProvider(let app, _, _),
             .deleteFileProvider(let app, _), .putEnumerator(let app, _, _, _), .deleteInstallation(let app, _):
            .one(app)
        case .complete(let results):
            results.contains { if case .prune = $0.1 { true } else if case .suspect = $0.1 { true } else { false } } ? .all : .none
        case .deleteExpiredEnumerators: .all
        case .createEvent, .fanOut, .claim, .restart, .advance, .setIntervals, .failEvent, .purge: .none
        }
    }

    enum ChangedApps: Equatable { case none, one(String), all }
}

/// Draws operations over small pools (two apps, six installation ids, a few tokens per kind) so that tokens move,
/// collide and coalesce often.
struct CrossCheckDraw {
    var random: SeededGenerator
    let apps: [String]
    let installationIds = (0..<6).map { "i\($0)" }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    mutating func subset<T>(_ values: [T]) -> [T] { values.filter { _ in chance(50) } }
    mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func installation() -> Installation {
        Installation(id: pick(installationIds), userId: pick([nil, "u1", "u2"]), channels: subset(["x", "y"]), environment: pick([.sandbox, .production]))
    }

    mutating func controls() -> [Control] {
        (0..<pick([0, 1, 1, 2, 2])).map { _ in
            Control(kind: pick(["door", "lamp"]), configuration: .object(["room": .string(pick(["a", "b"]))]), pushToken: pick(["c0", "c1", "c2", "c3"]))
        }
    }

    mutating func widgets() -> WidgetRegistration {
        let widgets = (0..<pick([0, 1, 2, 2])).map { _ in
            Widget(kind: pick(["clock", "news"]), family: "small", configuration: .object(["team": .string(pick(["a", "b"]))]))
        }
        return WidgetRegistration(pushToken: pick(["w0", "w1", "w2"]), widgets: widgets)
    }

    mutating func fileProvider() -> FileProviderRegistration {
        var domains: [FileProviderDomain] = []
        let replicated = chance(30)
        if chance(80) { domains.append(FileProviderDomain(id: "d1", replicated: replicated)) }
        if chance(60) { domains.append(FileProviderDomain(id: "d2", replicated: false)) }
        if chance(30) { domains.reverse() }
        return FileProviderRegistration(pushToken: pick(["f0", "f1"]), domains: domains)
    }

    mutating func target() -> EventTarget {
        switch number(0...9) {
        case 0..<5: .controls(kinds: chance(50) ? [] : subset(["door", "lamp"]), configuration: chance(20) ? ["room": .string("a")] : nil)
        case 5..<8: .widgets(kinds: chance(50) ? [] : subset(["clock", "news"]), configuration: chance(20) ? ["team": .string("a")] : nil)
        default: .fileProvider(domain: pick(["d1", "d2"]), container: pick(["c1", Payload.workingSetContainer]))
        }
    }

    mutating func audience() -> Audience {
        switch number(0...7) {
        case 0: .users([pick(["u1", "u2"])])
        case 1: .channels([pick(["x", "y"])])
        case 2: .installations([pick(installationIds), pick(installationIds)])
        default: .all
        }
    }

    /// A result for a push in flight, of every kind the dispatcher records.
    mutating func result(now: Date, index: Int) -> DeliveryResult {
        // Retry times differ by push, so no claim meets a tie between them.
        let later = now + Double(number(1...40)) + Double(index) / 1000
        switch number(0...99) {
        case 0..<35: return .delivered
        case 35..<55: return .retry(at: later)
        case 55..<63: return .postpone(at: later)
        case 63..<72: return .failed(reason: "BadTopic")
        case 72..<86: return .prune(since: pick([nil, now - 3_600, now]), reason: "Unregistered")
        default: return .suspect(reason: "BadDeviceToken")
        }
    }
}
