import ArgumentParser
import Crypto
import Foundation
import Logging
import SignalboxAPI
import SignalboxAPNs
import SignalboxModel
import SignalboxServer
import SignalboxStore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Registers N control installations on a fresh server, restarts it and reads its idle memory, posts one event
/// matching all of them, and times the fan-out until every push is answered by the simulator (a separate process).
struct FanOutBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fan-out",
        abstract: "Time one event fanned out to N control (or widget) tokens: serve + simulate-apns as separate processes.",
        discussion: """
            Registers through the API (PUT installation + PUT controls per token) unless --preload, which writes the
            same registrations with the server's store while the servers are stopped (for 1,000,000 tokens), into
            the data directory or the --database. SERVER_LOG_LEVEL sets the server's log level (default warning). With --database the
            servers keep their data in that PostgreSQL database and --instances of them share the fan-out and
            delivery (registrations and the event go to the first; CPU is the sum, peak memory the largest).
            """
    )

    @Option(help: "Installations (one control token each, or one widget or File Provider token with --widgets or --file-provider).")
    var count = 10_000
    @Flag(help: "Write the registrations with the store directly instead of through the API.") var preload = false
    @Flag(help: "Register a widget token and a clock widget per installation instead of a control (needs --preload).") var widgets = false
    @Flag(help: "Register a File Provider token and a replicated domain per installation instead of a control (needs --preload).")
    var fileProvider = false
    @Option(help: "Registration requests in flight at once.") var concurrency = 32
    @Option(help: "Port of the server; the simulator takes the next two.") var port = 28080
    @Option(help: "Write the figures as JSON here.") var json = "bench-fan-out.json"
    @Option(help: "Send to this APNs double (e.g. the nginx one) instead of starting the simulator.") var apnsHost: String?
    @Option(help: "Port of --apns-host.") var apnsPort = 22443
    @Option(help: "PEM certificate of --apns-host.") var apnsCa: String?
    @Option(help: "PostgreSQL URL for the servers' data (default: SQLite in a temporary directory).") var database: String?
    @Option(help: "Servers sharing --database (ports --port, then --port+3, +4, ...).") var instances = 1
    @Option(help: "Events fanned out to everyone before the timed one, so the delivery log already holds their lines.")
    var earlierEvents = 0
    @Option(help: "Give the app a webhook endpoint at this URL (e.g. a port that accepts and never answers).") var webhookUrl: String?

    func validate() throws {
        guard instances >= 1, instances == 1 || database != nil else { throw ValidationError("--instances above 1 needs --database") }
        guard !widgets || preload else { throw ValidationError("--widgets needs --preload") }
        guard !fileProvider || preload else { throw ValidationError("--file-provider needs --preload") }
        guard !(widgets && fileProvider) else { throw ValidationError("--widgets and --file-provider exclude each other") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-fan-out-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let privateKey = P256.Signing.PrivateKey()
        let key = SigningKey(privateKey: privateKey, keyId: "BENCHKEY01", teamId: "BENCHTEAM1")
        let simulator = apnsHost == nil ? try BenchSimulator.start(port: port + 1, key: key) : nil
        defer { simulator?.process.terminate() }
        guard let ca = simulator?.caPath ?? apnsCa else { throw ValidationError("--apns-ca is required with --apns-host") }
        let adminKey = "sba_bench-admin-0123456789abcdef0123"
        let api = BenchHTTP(base: "http://127.0.0.1:\(port)")
        let simulatorAdmin = BenchHTTP(base: "http://127.0.0.1:\(port + 2)")
        let ports = [port] + (0..<(instances - 1)).map { port + 3 + $0 }
        let serve = {
            var servers: [Process] = []
            for (index, port) in ports.enumerated() {
                servers.append(try await BenchServer.start(
                    port: port, directory: directory + "/\(index)", adminKey: adminKey, apnsHost: apnsHost ?? "127.0.0.1",
                    apnsPort: simulator == nil ? apnsPort : self.port + 1, ca: ca, api: BenchHTTP(base: "http://127.0.0.1:\(port)"),
                    database: database
                ))
            }
            return servers
        }
        var servers = try await serve()
        defer { servers.forEach { $0.terminate() } }

        let pem = String(decoding: try JSONEncoder().encode(privateKey.pemRepresentation), as: UTF8.self)
        let app = try await api.call("POST", "/v1/apps", key: adminKey, json: """
            {"bundleId":"com.example.bench","teamId":"BENCHTEAM1","keyId":"BENCHKEY01","environment":"sandbox","privateKey":\(pem)}
            """)
        guard let appId = app["appId"] as? String, let serverKey = app["serverKey"] as? String else { throw ValidationError("app not created: \(app)") }
        if let webhookUrl {
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["url": webhookUrl]), as: UTF8.self)
            guard try await api.call("POST", "/v1/apps/\(appId)/webhooks", key: serverKey, json: body)["id"] != nil else {
                throw ValidationError("webhook endpoint not created")
            }
        }

        let registrationStart = ContinuousClock.now
        if preload {
            for server in servers { try await stop(server) }
            try await BenchRegistrations.preload(
                appId: appId, into: database.map { .postgres(url: $0) } ?? .sqlite(path: directory + "/0/signalbox.sqlite"), indices: 0..<count,
                target: widgets ? .widgets : fileProvider ? .fileProvider : .controls
            )
        } else {
            try await register(appId: appId, serverKey: serverKey, api: api)
            for server in servers { try await stop(server) }
        }
        let registrationSeconds = (ContinuousClock.now - registrationStart).seconds
        // A fresh process on the loaded data: its memory is what N registered tokens cost at rest.
        servers = try await serve()
        try await Task.sleep(for: .seconds(3))
        let idleRSS = servers.map { ProcFS.memoryKilobytes(pid: $0.processIdentifier, field: "VmRSS:") }.max() ?? 0
        let cpu = { servers.map { ProcFS.cpuSeconds(pid: $0.processIdentifier) }.reduce(0, +) }
        let target = widgets ? #"{"widgets":{"kinds":["clock"]}}"#
            : fileProvider ? #"{"fileProvider":{"domain":"files","container":"NSFileProviderWorkingSetContainerItemIdentifier"}}"#
            : #"{"controls":{"kinds":["door"]}}"#
        let toEveryone = #"{"target":"# + target + #","audience":{"all":true}}"#
        for _ in 0..<earlierEvents {
            let earlier = try await api.call("POST", "/v1/apps/\(appId)/events", key: serverKey, json: toEveryone)
            guard let id = earlier["eventId"] as? String else { throw ValidationError("event not accepted: \(earlier)") }
            while try await api.call("GET", "/v1/apps/\(appId)/events/\(id)", key: serverKey)["state"] as? String != "done" {
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        // Pushes of the earlier events are already counted: the first push is the first one after them.
        let acceptedBefore = simulator == nil ? 0 : try await simulatorAdmin.call("GET", "/pushes/count")["count"] as? Int ?? 0
        let cpuBefore = cpu()
        let posted = ContinuousClock.now
        let postedAt = Date()
        let event = try await api.call("POST", "/v1/apps/\(appId)/events", key: serverKey, json: toEveryone)
        let accepted = ContinuousClock.now
        let acceptedAt = Date()
        guard let eventId = event["eventId"] as? String else { throw ValidationError("event not accepted: \(event)") }
        // Only the simulator is asked until the first push arrives, so the server's queue does not delay the reading;
        // another double cannot be asked, so the event's delivered count tells.
        while simulator != nil
            ? (try await simulatorAdmin.call("GET", "/pushes/count")["count"] as? Int ?? 0) <= acceptedBefore
            : (try await api.call("GET", "/v1/apps/\(appId)/events/\(eventId)", key: serverKey)["delivered"] as? Int ?? 0) == 0 {
            try await Task.sleep(for: .milliseconds(1))
        }
        let firstSeen = ContinuousClock.now
        let firstPush = firstSeen - posted
        // When the simulator received the first push, by its clock: the poll's own delay (a busy simulator answers it
        // late) is not in this figure.
        let firstAtAPNs = simulator == nil ? nil
            : try await simulatorAdmin.list("/pushes?after=\(acceptedBefore)&limit=1").first.flatMap(BenchSimulator.receivedAt)
        var status: [String: Any] = [:]
        while status["state"] as? String != "done" {
            try await Task.sleep(for: .milliseconds(50))
            status = try await api.call("GET", "/v1/apps/\(appId)/events/\(eventId)", key: serverKey)
        }
        let seconds = (ContinuousClock.now - posted).seconds
        let cpuSeconds = cpu() - cpuBefore
        let delivered = status["delivered"] as? Int ?? 0
        let peakRSS = servers.map { ProcFS.memoryKilobytes(pid: $0.processIdentifier, field: "VmHWM:") }.max() ?? 0
        // The token inspector once the log holds the events' lines: each lookup reads the app's log runs.
        var lookups: [Double] = []
        var linesFound = 0
        for index in stride(from: 0, to: count, by: max(1, count / 21)) {
            let started = ContinuousClock.now
            let answer = try await api.call("GET", "/v1/apps/\(appId)/tokens/\(Self.token(index))", key: serverKey)
            lookups.append((ContinuousClock.now - started).seconds * 1000)
            linesFound += (answer["deliveries"] as? [Any])?.count ?? 0
        }
        try BenchReport(figures: [
            ("fan_out.tokens", Double(count), "tokens"),
            ("fan_out.instances", Double(instances), database == nil ? "SQLite" : "PostgreSQL"),
            (preload ? "fan_out.preload_tokens_per_second" : "fan_out.registration_requests_per_second",
             Double(preload ? count : 2 * count) / registrationSeconds, preload ? "tokens/s" : "requests/s"),
            ("fan_out.idle_rss_mb", Double(idleRSS) / 1024, "MB"),
            ("fan_out.delivered", Double(delivered), "pushes"),
            ("fan_out.seconds", seconds, "s"),
            ("fan_out.pushes_per_second", Double(delivered) / seconds, "pushes/s"),
            ("fan_out.event_to_first_push_ms", firstPush.seconds * 1000, "ms"),
            // From the 202 (the event accepted and stored) instead of from before the POST; 0 if the push came first.
            ("fan_out.accepted_to_first_push_ms", max(0, (firstSeen - accepted).seconds * 1000), "ms"),
            // The two above by the simulator's clock: when APNs had the first push (-1 against another double).
            ("fan_out.event_to_first_push_at_apns_ms", firstAtAPNs.map { $0.timeIntervalSince(postedAt) * 1000 } ?? -1, "ms"),
            ("fan_out.accepted_to_first_push_at_apns_ms", firstAtAPNs.map { $0.timeIntervalSince(acceptedAt) * 1000 } ?? -1, "ms"),
            ("fan_out.server_cpu_us_per_push", cpuSeconds * 1e6 / Double(max(delivered, 1)), "µs"),
            ("fan_out.server_peak_rss_mb", Double(peakRSS) / 1024, "MB"),
            ("fan_out.token_lookup_median_ms", lookups.sorted()[lookups.count / 2], "ms"),
            ("fan_out.token_lookup_lines", Double(linesFound) / Double(lookups.count), "lines per token"),
        ]).write(jsonPath: json)
    }

    /// Stops the server gracefully (SIGTERM) and waits for it to exit.
    private func stop(_ server: Process) async throws {
        server.terminate()
        while server.isRunning { try await Task.sleep(for: .milliseconds(20)) }
    }

    private func register(appId: String, serverKey: String, api: BenchHTTP) async throws {
        try await BenchRegistrations.register(api: api, appId: appId, serverKey: serverKey, indices: 0..<count, concurrency: concurrency)
    }

    private static func installationId(_ index: Int) -> String { BenchRegistrations.installationId(index) }
    private static func token(_ index: Int) -> String { BenchRegistrations.token(index) }
}

/// JSON over HTTP/1.1 to the server or the simulator's admin endpoint.
struct BenchHTTP: Sendable {
    let base: String

    @discardableResult
    func call(_ method: String, _ path: String, key: String? = nil, json: String? = nil) async throws -> [String: Any] {
        let answer = try await data(method, path, key: key, json: json)
        return (try? JSONSerialization.jsonObject(with: answer)) as? [String: Any] ?? [:]
    }

    /// A GET whose answer is a JSON array (the simulator's `/pushes`).
    func list(_ path: String) async throws -> [[String: Any]] {
        let answer = try await data("GET", path)
        return (try? JSONSerialization.jsonObject(with: answer)) as? [[String: Any]] ?? []
    }

    private func data(_ method: String, _ path: String, key: String? = nil, json: String? = nil) async throws -> Data {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let key { request.setValue("Bearer " + key, forHTTPHeaderField: "Authorization") }
        if let json { request.httpBody = Data(json.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, status < 300 else {
            throw ValidationError("\(method) \(path): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }
}
