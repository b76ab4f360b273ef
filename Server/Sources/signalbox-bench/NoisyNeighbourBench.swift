import ArgumentParser
import Crypto
import Foundation
import SignalboxAPNs

/// App X's large event and, just after, app Y's one-token event: how long Y's push waits (`design.md`, "Tenants
/// share fairly"). Server and simulator are separate processes, as in `bench fan-out`.
struct NoisyNeighbourBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noisy-neighbour",
        abstract: "Time app Y's one-token push posted while app X's large event fans out.",
        discussion: """
            Writes X's registrations (one control token per installation) and Y's one with the server's store while
            the server is stopped, restarts it, posts X's event, waits --delay, posts Y's event, asks the simulator
            every 5 ms until it accepted Y's push (quiet_push_at_apns_ms; quiet_push_received_ms is the simulator's own
            arrival time, without the poll's delay), then reads Y's status every 2 ms
            until it is recorded delivered (quiet_push_latency_ms). --quiet-events N > 1 then posts N - 1 more of Y's
            events, one every --quiet-every seconds, each to another of Y's installations, and reports the spread of
            their arrivals by the simulator's clock (quiet_received_*), counting those posted while X still fanned out.
            --server runs another signalbox binary as the
            server (to measure a build before a change). --database keeps the server's data in that PostgreSQL
            database (emptied by the caller) instead of SQLite. SERVER_LOG_LEVEL sets the server's log level (default warning).
            """
    )

    @Option(help: "App X's control installations (one token each).") var count = 30_000
    @Option(help: "Seconds between X's event and Y's.") var delay = 0.3
    @Option(help: "App Y's events (one installation each); more than one gives a spread of Y's arrivals.") var quietEvents = 1
    @Option(help: "Seconds between Y's events after its first is delivered.") var quietEvery = 0.2
    @Option(help: "Port of the server; the simulator takes the next two.") var port = 28180
    @Option(help: "signalbox binary to run as the server (default: the one beside this binary).") var server: String?
    @Option(help: "PostgreSQL URL for the server's data (default: SQLite in a temporary directory).") var database: String?
    @Option(help: "The APNs simulator's event loops (default: one per core); see simulate-apns --event-loops.") var simulatorEventLoops: Int?
    @Option(help: "Write the figures as JSON here.") var json = "bench-noisy-neighbour.json"

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-noisy-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let privateKey = P256.Signing.PrivateKey()
        let key = SigningKey(privateKey: privateKey, keyId: "BENCHKEY01", teamId: "BENCHTEAM1")
        let simulator = try BenchSimulator.start(port: port + 1, key: key, eventLoops: simulatorEventLoops)
        defer { simulator.process.terminate() }
        let adminKey = "sba_bench-admin-0123456789abcdef0123"
        let api = BenchHTTP(base: "http://127.0.0.1:\(port)")
        var process = try await BenchServer.start(
            executable: server, port: port, directory: directory, adminKey: adminKey, apnsHost: "127.0.0.1", apnsPort: port + 1,
            ca: simulator.caPath, api: api, database: database
        )
        defer { process.terminate() }

        let pem = String(decoding: try JSONEncoder().encode(privateKey.pemRepresentation), as: UTF8.self)
        var apps: [(id: String, serverKey: String)] = []
        for bundle in ["com.example.noisy", "com.example.quiet"] {
            let app = try await api.call("POST", "/v1/apps", key: adminKey, json: """
                {"bundleId":"\(bundle)","teamId":"BENCHTEAM1","keyId":"BENCHKEY01","environment":"sandbox","privateKey":\(pem)}
                """)
            guard let id = app["appId"] as? String, let serverKey = app["serverKey"] as? String else { throw ValidationError("app not created: \(app)") }
            apps.append((id, serverKey))
        }
        let (noisy, quiet) = (apps[0], apps[1])
        process.terminate()
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        let storage: BenchRegistrations.Database = database.map { .postgres(url: $0) } ?? .sqlite(path: directory + "/signalbox.sqlite")
        try await BenchRegistrations.preload(appId: noisy.id, into: storage, indices: 0..<count)
        try await BenchRegistrations.preload(appId: quiet.id, into: storage, indices: count..<(count + max(1, quietEvents)))
        process = try await BenchServer.start(
            executable: server, port: port, directory: directory, adminKey: adminKey, apnsHost: "127.0.0.1", apnsPort: port + 1,
            ca: simulator.caPath, api: api, database: database
        )
        try await Task.sleep(for: .seconds(2))

        let body = #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#
        let simulatorAdmin = BenchHTTP(base: "http://127.0.0.1:\(port + 2)")
        let acceptedBefore = try await simulatorAdmin.call("GET", "/pushes/count")["count"] as? Int ?? 0
        let postedX = ContinuousClock.now
        let large = try await api.call("POST", "/v1/apps/\(noisy.id)/events", key: noisy.serverKey, json: body)
        try await Task.sleep(for: .seconds(delay))
        let postedY = ContinuousClock.now
        let postedYAt = Date()
        // With more of Y's events each reaches one installation, the first too; alone it reaches Y's only one.
        let small = try await api.call("POST", "/v1/apps/\(quiet.id)/events", key: quiet.serverKey, json: quietEvents > 1 ? Self.quietBody(count) : body)
        let postTook = ContinuousClock.now - postedY
        guard let largeId = large["eventId"] as? String, let smallId = small["eventId"] as? String else { throw ValidationError("events not accepted") }
        let giveUp = ContinuousClock.now + .seconds(300)
        // First when the simulator (APNs) accepted Y's push, then when the server recorded it as delivered.
        var atAPNs: [[String: Any]] = []
        while atAPNs.isEmpty, ContinuousClock.now < giveUp {
            atAPNs = try await simulatorAdmin.list("/pushes?token=\(BenchRegistrations.token(count))&after=\(acceptedBefore)")
            if atAPNs.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        }
        let apnsLatency = ContinuousClock.now - postedY
        // When the simulator received it, on the same clock: the poll's own delay (a busy simulator answers it late)
        // is not in this figure.
        let receivedAt = atAPNs.first.flatMap(BenchSimulator.receivedAt)
        let aheadAtAPNs = (atAPNs.first?["sequence"] as? Int).map { $0 - 1 - acceptedBefore } ?? -1
        while true {
            let quietStatus = try await api.call("GET", "/v1/apps/\(quiet.id)/events/\(smallId)", key: quiet.serverKey)
            if quietStatus["delivered"] as? Int ?? 0 > 0 { break }
            if ["done", "failed"].contains(quietStatus["state"] as? String) || ContinuousClock.now > giveUp {
                throw ValidationError("app Y's push was not delivered: \(quietStatus)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        let latency = ContinuousClock.now - postedY
        let noisyThen = try await api.call("GET", "/v1/apps/\(noisy.id)/events/\(largeId)", key: noisy.serverKey)
        // Y's further events, each to its own installation so no push absorbs another; X's state is read before each.
        var posts: [(index: Int, at: Date, duringNoisy: Bool)] = [(count, postedYAt, true)]
        for index in (count + 1)..<(count + max(1, quietEvents)) {
            try await Task.sleep(for: .seconds(quietEvery))
            let noisyState = try await api.call("GET", "/v1/apps/\(noisy.id)/events/\(largeId)", key: noisy.serverKey)["state"] as? String
            let at = Date()
            try await api.call("POST", "/v1/apps/\(quiet.id)/events", key: quiet.serverKey, json: Self.quietBody(index))
            posts.append((index, at, !["done", "failed"].contains(noisyState)))
        }
        var status = noisyThen
        while !["done", "failed"].contains(status["state"] as? String), ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(50))
            status = try await api.call("GET", "/v1/apps/\(noisy.id)/events/\(largeId)", key: noisy.serverKey)
        }
        let noisySeconds = (ContinuousClock.now - postedX).seconds
        let delivered = status["delivered"] as? Int ?? 0
        let arrivals = try await Self.arrivals(of: posts.filter(\.duringNoisy), simulator: simulatorAdmin, after: acceptedBefore, giveUp: giveUp)
        let spread = arrivals.count > 1 ? Self.spread(arrivals) : []
        try BenchReport(figures: [
            ("noisy_neighbour.tokens", Double(count), database == nil ? "tokens, SQLite" : "tokens, PostgreSQL"),
            ("noisy_neighbour.quiet_event_post_ms", postTook.seconds * 1000, "ms"),
            ("noisy_neighbour.quiet_push_at_apns_ms", apnsLatency.seconds * 1000, "ms"),
            ("noisy_neighbour.quiet_push_received_ms", receivedAt.map { $0.timeIntervalSince(postedYAt) * 1000 } ?? -1, "ms"),
            ("noisy_neighbour.noisy_pushes_at_apns_before_it", Double(aheadAtAPNs), "pushes"),
            ("noisy_neighbour.quiet_push_latency_ms", latency.seconds * 1000, "ms"),
            ("noisy_neighbour.noisy_delivered_when_quiet_delivered", Double(noisyThen["delivered"] as? Int ?? 0), "pushes"),
            ("noisy_neighbour.noisy_delivered", Double(delivered), "pushes"),
            ("noisy_neighbour.noisy_seconds", noisySeconds, "s"),
            ("noisy_neighbour.noisy_pushes_per_second", Double(delivered) / noisySeconds, "pushes/s"),
        ] + spread).write(jsonPath: json)
    }

    /// An event to Y's installation `index` alone.
    private static func quietBody(_ index: Int) -> String {
        #"{"target":{"controls":{"kinds":["door"]}},"audience":{"installations":["\#(BenchRegistrations.installationId(index))"]}}"#
    }

    /// Each post's arrival at the simulator, by its clock, in ms after the post (-1: never arrived).
    private static func arrivals(
        of posts: [(index: Int, at: Date, duringNoisy: Bool)], simulator: BenchHTTP, after: Int, giveUp: ContinuousClock.Instant
    ) async throws -> [Double] {
        let query = posts.map { "token=\(BenchRegistrations.token($0.index))" }.joined(separator: "&")
        var received: [String: Date] = [:]
        while received.count < posts.count, ContinuousClock.now < giveUp {
            for push in try await simulator.list("/pushes?\(query)&after=\(after)") {
                guard let token = push["token"] as? String, received[token] == nil else { continue }
                received[token] = BenchSimulator.receivedAt(push)
            }
            if received.count < posts.count { try await Task.sleep(for: .milliseconds(50)) }
        }
        return posts.map { post in received[BenchRegistrations.token(post.index)].map { $0.timeIntervalSince(post.at) * 1000 } ?? -1 }
    }

    /// The figures of Y's arrivals posted while X fanned out; `missing`: never arrived.
    private static func spread(_ arrivals: [Double]) -> [(name: String, value: Double, unit: String)] {
        let arrived = arrivals.filter { $0 >= 0 }.sorted()
        guard !arrived.isEmpty else { return [("noisy_neighbour.quiet_received_missing", Double(arrivals.count), "pushes")] }
        let at = { (fraction: Double) in arrived[min(arrived.count - 1, Int((Double(arrived.count - 1) * fraction).rounded()))] }
        return [
            ("noisy_neighbour.quiet_received_count", Double(arrivals.count), "of Y's events posted while X fanned out"),
            ("noisy_neighbour.quiet_received_within_100ms", Double(arrived.filter { $0 <= 100 }.count), "of them"),
            ("noisy_neighbour.quiet_received_missing", Double(arrivals.count - arrived.count), "of them"),
            ("noisy_neighbour.quiet_received_median_ms", at(0.5), "ms, of those that arrived"),
            ("noisy_neighbour.quiet_received_p90_ms", at(0.9), "ms"),
            ("noisy_neighbour.quiet_received_max_ms", arrived[arrived.count - 1], "ms"),
        ]
    }
}
