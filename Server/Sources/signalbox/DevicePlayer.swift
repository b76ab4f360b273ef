#if os(Linux)
import AppleFrameworkStubs
import ArgumentParser
import Foundation
import SignalboxAPI
import SignalboxClient
import SignalboxClientApple
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `simulate-device` steps: each phone acts through SignalboxClientApple (its handlers, delegates, reconcile
/// and enumerators, called as the system would through the stubs' runtime), syncs with the server, and shows the
/// pushes the APNs simulator accepted for its tokens; `event` steps post as the app's backend.
struct DevicePlayer {
    let base: URL
    let appId: String
    let deviceSecret: String
    let serverKey: String?
    let simulatorAdmin: String
    let storeRoot: URL
    let leaseSeconds: Int
    private var installations: [String: SimulatedInstallation] = [:]
    private var order: [String] = []
    /// The simulator's last push sequence already read.
    private var seen = 0
    private var warned = false

    init(base: URL, appId: String, deviceSecret: String, serverKey: String?, simulatorAdmin: String, storeRoot: URL, leaseSeconds: Int) {
        self.base = base
        self.appId = appId
        self.deviceSecret = deviceSecret
        self.serverKey = serverKey
        self.simulatorAdmin = simulatorAdmin
        self.storeRoot = storeRoot
        self.leaseSeconds = leaseSeconds
    }

    /// Skips pushes accepted before this run.
    mutating func start() async throws {
        seen = (try? await pushes(after: 0, tokens: []).map(\.sequence).max()) ?? 0
    }

    mutating func perform(_ step: DeviceStep) async throws {
        let device = installation(step.installation)
        device.activate()
        switch step.action {
        case .installation(let request):
            device.user.value = (request.userId ?? "device", request.channels)
            try device.app.setInstallation(userId: request.userId, channels: request.channels)
            print("[\(device.name)] installation \(try device.app.queue.installationId()) user \(request.userId ?? "-") channels \(request.channels)")
        case .widgets(let request):
            let kinds = request.widgets.map { "\($0.kind) (\($0.family))" }.joined(separator: ", ")
            device.registrations.value[request.pushToken.lowercased()] = "widgets \(kinds)"
            let widgets = try request.widgets.map { widget in
                guard let family = Self.families[widget.family] else { throw ValidationError("unknown widget family \(widget.family)") }
                return (kind: widget.kind, family: family, configuration: widget.configuration)
            }
            device.widgetsChanged(token: try Self.data(hex: request.pushToken), widgets)
            print("[\(device.name)] WidgetKit → push handler: token \(request.pushToken), widgets \(kinds)")
        case .controls(let request):
            for control in request.controls {
                device.registrations.value[control.pushToken.lowercased()] = "control \(control.kind) \(Self.describe(control.configuration))"
            }
            device.controlsChanged(try request.controls.map { ($0.kind, $0.configuration, try Self.data(hex: $0.pushToken)) })
            print("[\(device.name)] ControlCenter → push handler: \(request.controls.map { "\($0.kind) \(Self.describe($0.configuration))" }.joined(separator: ", "))")
        case .fileProvider(let request):
            device.registrations.value[request.pushToken.lowercased()] = "File Provider"
            device.fileProviderToken(try Self.data(hex: request.pushToken), domains: request.domains)
            print("[\(device.name)] PushKit → delegate: File Provider token \(request.pushToken), domains \(request.domains.map { $0.replicated ? "\($0.id) (replicated)" : $0.id })")
        case .open(let domain, let container):
            let leased = await device.open(domain: domain, container: container)
            let kind = device.domains.first { $0.id == domain }?.replicated == true ? "replicated domain: " : ""
            print("[\(device.name)] enumerator opened for \(domain)/\(Self.name(container))" + (leased ? ", leased for \(leaseSeconds) s" : ", no lease (\(kind)always pushed)"))
        case .close(let domain, let container):
            await device.close(domain: domain, container: container)
            print("[\(device.name)] enumerator invalidated for \(domain)/\(Self.name(container))")
        case .extensionExits:
            device.extensionExits()
            print("[\(device.name)] the File Provider extension exits: its leases are no longer renewed")
        case .tokenInvalidated:
            device.fileProviderTokenInvalidated()
            print("[\(device.name)] PushKit → delegate: the File Provider token was invalidated")
        case .reconcile:
            try await device.app.reconcile()
            print("[\(device.name)] reconcile: WidgetCenter and ControlCenter read again")
        case .signOut:
            let old = try device.app.queue.installationId()
            try await device.app.signOut()
            print("[\(device.name)] signed out: installation \(old) deleted, now \(try device.app.queue.installationId()) (no user)")
        case .offline:
            device.network.online.value = false
            print("[\(device.name)] offline")
        case .online:
            device.network.online.value = true
            print("[\(device.name)] online")
        case .sync:
            try await syncUntilSent(device)
        case .wait(let seconds):
            try await run(for: seconds)
        case .say(let text):
            print("\n== \(text)")
        case .event(let json):
            try await post(event: json)
        }
    }

    /// WidgetKit's families by case name, as the glue sends them.
    static let families: [String: WidgetFamily] = [
        "systemSmall": .systemSmall, "systemMedium": .systemMedium, "systemLarge": .systemLarge, "systemExtraLarge": .systemExtraLarge,
        "systemExtraLargePortrait": .systemExtraLargePortrait, "accessoryCorner": .accessoryCorner,
        "accessoryCircular": .accessoryCircular, "accessoryRectangular": .accessoryRectangular, "accessoryInline": .accessoryInline,
    ]

    static func data(hex: String) throws -> Data {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw ValidationError("a token is an even number of hex digits: \(hex)") }
        return Data(try stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                throw ValidationError("not a hex token: \(hex)")
            }
            return byte
        })
    }

    /// Syncs every online installation until nothing is left to send (another process sharing a store may
    /// hold a key for a while; 30 s at most), then prints the pushes that are still arriving.
    mutating func settle() async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            var pending = false
            for name in order where installations[name]!.network.online.value {
                let device = installations[name]!
                try await sync(device)
                pending = try pending || Self.hasPending(device)
            }
            guard pending else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await run(for: 1)
    }

    /// Syncs until nothing of the device is left to send (a handler's own sync may be holding a key; 10 s at most).
    private func syncUntilSent(_ device: SimulatedInstallation) async throws {
        let deadline = Date().addingTimeInterval(10)
        repeat {
            try await sync(device)
            guard try Self.hasPending(device), device.network.online.value else { return }
            try await Task.sleep(for: .milliseconds(50))
        } while Date() < deadline
    }

    /// Whether the device has something it can send: nothing goes before an installation is set.
    private static func hasPending(_ device: SimulatedInstallation) throws -> Bool {
        let entries = try device.app.queue.state().entries
        guard entries["installation"] != nil else { return false }
        return entries.values.contains { $0.acknowledgedRevision != $0.revision && $0.refusedRevision != $0.revision }
    }

    private mutating func installation(_ name: String) -> SimulatedInstallation {
        if let existing = installations[name] { return existing }
        let created = SimulatedInstallation(
            name: name, store: storeRoot.appendingPathComponent(name), url: base, appId: appId, deviceSecret: deviceSecret, leaseSeconds: leaseSeconds
        )
        installations[name] = created
        order.append(name)
        return created
    }

    private func sync(_ device: SimulatedInstallation) async throws {
        let report = try await device.app.queue.sync()
        if !report.acknowledged.isEmpty { print("[\(device.name)] synced: \(report.acknowledged.joined(separator: ", "))") }
        for error in report.errors { print("[\(device.name)] not synced: \(error)") }
    }

    /// For `seconds`: syncs what is due, prints pushes for online installations (a File Provider extension that
    /// is awake renews its leases itself, in the glue).
    private mutating func run(for seconds: Double) async throws {
        let end = Date().addingTimeInterval(seconds)
        repeat {
            for name in order {
                let device = installations[name]!
                if try Self.hasPending(device), device.network.online.value, try device.app.queue.state().retryAt.map({ $0 <= Date() }) ?? true { try await sync(device) }
            }
            try await readPushes()
            try await Task.sleep(for: .milliseconds(200))
        } while Date() < end
    }

    /// Prints the new pushes addressed to online installations' tokens.
    private mutating func readPushes() async throws {
        let online = order.compactMap { installations[$0] }.filter { $0.network.online.value }
        let tokens = online.flatMap { Array($0.registrations.value.keys) }
        guard !tokens.isEmpty else { return }
        let arrived: [SimulatorPush]
        do {
            arrived = try await pushes(after: seen, tokens: tokens)
        } catch {
            if !warned { print("(no APNs simulator at \(simulatorAdmin): pushes are not shown)") }
            warned = true
            return
        }
        for push in arrived {
            seen = max(seen, push.sequence)
            guard let device = online.last(where: { $0.registrations.value[push.token] != nil }) else { continue }
            print("[\(device.name)] push → \(device.describe(token: push.token, pushType: push.pushType, payload: push.payload))")
        }
    }

    struct SimulatorPush: Decodable {
        var token: String
        var pushType: String
        var payload: String
        var sequence: Int
    }

    private func pushes(after: Int, tokens: [String]) async throws -> [SimulatorPush] {
        var components = URLComponents(string: simulatorAdmin + "/pushes")
        components?.queryItems = [URLQueryItem(name: "after", value: String(after))] + tokens.map { URLQueryItem(name: "token", value: $0) }
        guard let url = components?.url else { throw ValidationError("bad --simulator-admin") }
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode([SimulatorPush].self, from: data).sorted { $0.sequence < $1.sequence }
    }

    /// Posts an event as the app's backend and waits until it is done, printing its counters.
    private mutating func post(event json: String) async throws {
        guard let serverKey else { throw ValidationError("an event step needs --server-key") }
        var request = URLRequest(url: base.appendingPathComponent("v1/apps/\(appId)/events"))
        request.httpMethod = "POST"
        request.setValue("Bearer " + serverKey, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        guard let id = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["eventId"] as? String else {
            throw ValidationError("event refused: \(String(decoding: data, as: UTF8.self))")
        }
        print("[backend] event \(json)")
        for _ in 0..<150 {
            var status = URLRequest(url: base.appendingPathComponent("v1/apps/\(appId)/events/\(id)"))
            status.setValue("Bearer " + serverKey, forHTTPHeaderField: "Authorization")
            let (body, _) = try await URLSession.shared.data(for: status)
            let json = (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
            if json["state"] as? String == "done" {
                print("[backend] event done: matched \(json["matched"] ?? 0), delivered \(json["delivered"] ?? 0)")
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await run(for: 0.5)
    }

    static func describe(_ configuration: JSONValue) -> String {
        guard case .object(let object) = configuration, !object.isEmpty else { return "{}" }
        let pairs = object.keys.sorted().map { key -> String in
            switch object[key]! {
            case .string(let value): "\(key): \(value)"
            case .number(let value): "\(key): \(value.rounded() == value ? String(Int(value)) : String(value))"
            default: "\(key): …"
            }
        }
        return "{" + pairs.joined(separator: ", ") + "}"
    }

    static func name(_ container: String) -> String { container == EnumeratorLeases.workingSet ? "working set" : container }
}
#endif
