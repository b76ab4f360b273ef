import Crypto
import ArgumentParser
import Foundation
import Logging
import SignalboxAPNs
import SignalboxAPI
import SignalboxModel
import SignalboxStore
import Synchronization

/// Hands out indexes 0, 1, 2… to concurrent workers.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func take(below limit: Int) -> Int? {
        let index = value.add(1, ordering: .relaxed).oldValue
        return index < limit ? index : nil
    }
}

/// Prints figures as `name=value unit` lines and writes them as a JSON object.
struct BenchReport {
    var figures: [(name: String, value: Double, unit: String)]

    func write(jsonPath: String) throws {
        var object: [String: [String: Any]] = [:]
        for figure in figures {
            let shown = figure.value.rounded() == figure.value ? String(Int(figure.value)) : String(format: "%.2f", figure.value)
            print("\(figure.name)=\(shown) \(figure.unit)")
            object[figure.name] = ["value": figure.value, "unit": figure.unit]
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: jsonPath))
    }
}

/// The `signalbox` executable the benches start as server and simulator: `SIGNALBOX_BIN`, or the one built beside
/// this binary.
enum SignalboxBinary {
    static var path: String {
        if let configured = ProcessInfo.processInfo.environment["SIGNALBOX_BIN"] { return configured }
        let own = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return own.deletingLastPathComponent().appendingPathComponent("signalbox").standardizedFileURL.path
    }

    /// `path`, once it is known to exist. - Throws: naming the build command when it does not.
    static func checked() throws -> URL {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("\(path) not found: build it beside signalbox-bench (swift build -c release --package-path Server builds both), or set SIGNALBOX_BIN")
        }
        return URL(fileURLWithPath: path)
    }
}

/// Starts `signalbox simulate-apns` as a child process trusting `key`.
enum BenchSimulator {
    /// - Parameter eventLoops: the simulator's loop threads (`simulate-apns --event-loops`); nil: one per core.
    static func start(port: Int, key: SigningKey, eventLoops: Int? = nil) throws -> (process: Process, caPath: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = directory.appendingPathComponent("key.pem").path
        let caPath = directory.appendingPathComponent("ca.pem").path
        try key.publicKey.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = try SignalboxBinary.checked()
        process.arguments = [
            "simulate-apns", "--port", String(port), "--admin-port", String(port + 1), "--write-ca", caPath,
            "--trust-key", "\(key.keyId):\(key.teamId):\(keyPath)",
        ] + (eventLoops.map { ["--event-loops", String($0)] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The simulator prints one line once it listens.
        _ = output.fileHandleForReading.availableData
        return (process, caPath)
    }

    /// When the simulator received a push its admin API lists, by its clock.
    static func receivedAt(_ push: [String: Any]) -> Date? {
        (push["receivedAt"] as? String).flatMap { try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0) }
    }
}

/// Figures of a process from `/proc` (Linux).
enum ProcFS {
    /// A `/proc/<pid>/status` figure (`VmRSS:`, `VmHWM:`), in kB.
    static func memoryKilobytes(pid: Int32, field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// CPU time (user + system) the process has used, in seconds: steadier than wall time on a shared machine.
    static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        // After "pid (name)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The benches' registrations: installation `i<index>` with one `door` control whose token encodes the index.
enum BenchRegistrations {
    static func installationId(_ index: Int) -> String { "i" + String(format: "%08d", index) }
    static func token(_ index: Int) -> String { String(format: "%064x", index + 1) }

    /// PUT installation (channel `all`) + PUT controls per index, `concurrency` requests at a time.
    static func register(api: BenchHTTP, appId: String, serverKey: String, indices: Range<Int>, concurrency: Int) async throws {
        let next = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while let offset = next.take(below: indices.count) {
                        let index = indices.lowerBound + offset
                        let base = "/v1/apps/\(appId)/installations/\(installationId(index))"
                        try await api.call("PUT", base, key: serverKey, json: #"{"channels":["all"]}"#)
                        try await api.call(
                            "PUT", base + "/controls", key: serverKey,
                            json: #"{"controls":[{"kind":"door","configuration":{},"pushToken":"\#(token(index))"}]}"#
                        )
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Where `preload` writes: the server's SQLite file or its PostgreSQL database.
    enum Database {
        case sqlite(path: String)
        case postgres(url: String)
    }

    /// What each preloaded installation registers: a `door` control, a widget token with one `clock` widget, or a
    /// File Provider token with one replicated domain, `files`.
    enum Target {
        case controls, widgets, fileProvider
    }

    /// The registrations of `register`, written with the server's store (its group commits) while it is stopped.
    static func preload(appId: String, into database: Database, indices: Range<Int>, target: Target = .controls) async throws {
        let logger = Logger(label: "signalbox.bench")
        let stores = switch database {
        case .sqlite(let path): try await SQLStores.sqlite(path: path, logger: logger)
        case .postgres(let url): try await SQLStores.postgres(url: url, logger: logger, claimLease: .seconds(120))
        }
        let registry = stores.ports.registry
        let next = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    while let offset = next.take(below: indices.count) {
                        let index = indices.lowerBound + offset
                        let id = installationId(index)
                        try await registry.putInstallation(appId: appId, Installation(id: id, userId: nil, channels: ["all"], environment: .sandbox), now: Date())
                        switch target {
                        case .controls:
                            let control = Control(kind: "door", configuration: .object([:]), pushToken: token(index))
                            try await registry.putControls(appId: appId, installationId: id, [control], now: Date())
                        case .widgets:
                            let registration = WidgetRegistration(pushToken: token(index), widgets: [Widget(kind: "clock", family: "systemSmall")])
                            try await registry.putWidgets(appId: appId, installationId: id, registration, now: Date(), revision: nil)
                        case .fileProvider:
                            let registration = FileProviderRegistration(pushToken: token(index), domains: [FileProviderDomain(id: "files", replicated: true)])
                            try await registry.putFileProvider(appId: appId, installationId: id, registration, now: Date())
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await stores.close()
    }
}

/// Starts `signalbox serve` (the one beside this executable unless `executable` names another build) as a child process and
/// waits until it answers. SERVER_LOG_LEVEL sets its log level (default warning).
enum BenchServer {
    static func start(
        executable: String? = nil, port: Int, directory: String, adminKey: String, apnsHost: String, apnsPort: Int, ca: String,
        api: BenchHTTP, database: String? = nil
    ) async throws -> Process {
        let server = Process()
        server.executableURL = try executable.map { URL(fileURLWithPath: $0) } ?? SignalboxBinary.checked()
        server.arguments = [
            "serve", "--port", String(port), "--data-dir", directory, "--apns-host", apnsHost, "--apns-port", String(apnsPort),
            "--apns-ca", ca,
        ]
        var environment = ProcessInfo.processInfo.environment
        // Through the environment, not the command line, where a password would show in `ps`.
        if let database { environment["SIGNALBOX_DATABASE_URL"] = database }
        environment["SIGNALBOX_ADMIN_KEY"] = adminKey
        // Instances sharing a database unseal its secrets with one master key.
        environment["SIGNALBOX_MASTER_KEY"] = environment["SIGNALBOX_MASTER_KEY"] ?? Data(SHA256.hash(data: Data(adminKey.utf8))).base64EncodedString()
        environment["LOG_LEVEL"] = environment["SERVER_LOG_LEVEL"] ?? "warning"
        // `fan-out --webhook-url` points at a listener on 127.0.0.1, a private target.
        environment["SIGNALBOX_WEBHOOKS_ALLOW_PRIVATE_TARGETS"] = "true"
        server.environment = environment
        try server.run()
        while (try? await api.call("GET", "/healthz")) == nil {
            guard server.isRunning else { throw ArgumentParser.ValidationError("signalbox serve exited (status \(server.terminationStatus))") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return server
    }
}
