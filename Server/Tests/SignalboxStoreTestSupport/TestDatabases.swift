import Foundation
import Logging
import SignalboxModel
import SignalboxStore
import Testing

/// The storage backends every store test runs on. Suites run in parallel, so each PostgreSQL store keeps a pool of
/// 4, well within the test server's connections. PostgreSQL comes from `SIGNALBOX_TEST_POSTGRES_URL`, which
/// `scripts/test` sets after starting a throw-away server; in CI a missing URL fails those tests instead of
/// leaving them out.
package enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    package var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL when a test server is configured, or in CI (where its absence is a failure).
    package static var available: [Backend] {
        let env = ProcessInfo.processInfo.environment
        return env["SIGNALBOX_TEST_POSTGRES_URL"] != nil || env["CI"] != nil ? [.sqlite, .postgres] : [.sqlite]
    }

    /// The backends several instances share at once.
    package static var shared: [Backend] { available.filter { $0 == .postgres } }

    /// Fresh, empty, migrated stores: in memory for SQLite, a new database for PostgreSQL.
    package func open(claimLease: Duration = .seconds(60)) async throws -> SQLStores {
        switch self {
        case .sqlite: return try await SQLStores.sqlite(path: nil, logger: Logger(label: "test"))
        case .postgres: return try await open(url: try await TestDatabases.fresh(), claimLease: claimLease)
        }
    }

    /// Stores on the PostgreSQL database at `url` (from `TestDatabases.fresh`, whose `connect_timeout` also bounds
    /// the start), with the tests' pool size.
    package func open(url: String, claimLease: Duration = .seconds(60), maxConnections: Int = 4) async throws -> SQLStores {
        try await SQLStores.postgres(url: url, logger: Logger(label: "test"), claimLease: claimLease, maxConnections: maxConnections)
    }

    /// Runs `body` with `count` processes' stores on one fresh database (SQLite: a temporary file), and closes them.
    package func withStores(_ count: Int, claimLease: Duration = .seconds(60), _ body: ([Stores]) async throws -> Void) async throws {
        let location: String
        switch self {
        case .sqlite: location = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-test-\(UUID()).sqlite").path
        case .postgres: location = try await TestDatabases.fresh()
        }
        defer { if self == .sqlite { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location + suffix) } } }
        var stores: [SQLStores] = []
        do {
            for _ in 0..<count {
                switch self {
                case .sqlite: stores.append(try await SQLStores.sqlite(path: location, logger: Logger(label: "test")))
                case .postgres: stores.append(try await open(url: location, claimLease: claimLease))
                }
            }
            try await body(stores.map(\.ports))
        } catch {
            for store in stores { try? await store.close() }
            throw error
        }
        for store in stores { try await store.close() }
    }

    /// Runs `body` with fresh stores and closes them.
    package func withStore(claimLease: Duration = .seconds(60), _ body: (Stores) async throws -> Void) async throws {
        try await closing(try await open(claimLease: claimLease), body)
    }
}

/// Runs `body` with the ports of `store` and closes the store, also when `body` throws: an open SQLite connection's
/// deinit stops the whole test process, so a failed `#require` must not leave one behind. Closing twice is harmless.
package func closing<T>(_ store: SQLStores, _ body: (Stores) async throws -> T) async throws -> T {
    let result: T
    do { result = try await body(store.ports) } catch {
        try? await store.close()
        throw error
    }
    try await store.close()
    return result
}

package enum TestDatabases {
    /// How long one pooled connection may take to open, and so a store's start (which waits at least that long): a
    /// bound for a hang, since the parallel suite on a loaded machine can take far longer than the product's 10 s.
    package static let connectTimeoutSeconds = 120

    /// Creates an empty database on the test server. - Returns: its URL, with the tests' `connect_timeout`.
    /// - Parameter icuLocale: the database's collation (ICU) instead of the cluster's bytewise `C.UTF-8`.
    package static func fresh(icuLocale: String? = nil) async throws -> String {
        guard let base = ProcessInfo.processInfo.environment["SIGNALBOX_TEST_POSTGRES_URL"],
              var parts = URLComponents(string: base)
        else {
            throw TestDatabaseError(message: "SIGNALBOX_TEST_POSTGRES_URL is not set: run the tests with scripts/test, which starts PostgreSQL")
        }
        let name = "sb_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let collation = icuLocale.map { " TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '\($0)'" } ?? ""
        try await psql(base, "CREATE DATABASE \(name)\(collation)")
        parts.path = "/" + name
        parts.queryItems = (parts.queryItems ?? []) + [URLQueryItem(name: "connect_timeout", value: "\(connectTimeoutSeconds)")]
        return parts.string!
    }

    /// Runs one SQL command with `psql`. - Returns: what it printed (unaligned, tuples only).
    /// The process is launched here and polled, not waited for: a blocked cooperative thread stalls every test in the
    /// process, and launching from threads of their own once crashed libdispatch (docs/reliability.md). What the
    /// tests print stays far below a pipe's 64 KB, so `psql` never waits for a reader.
    @discardableResult
    package static func psql(_ url: String, _ command: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-q", "-At", "-v", "ON_ERROR_STOP=1", url, "-c", command]
        let errors = Pipe()
        let output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw TestDatabaseError(message: "psql failed: \(message)")
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

package struct TestDatabaseError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

/// A `psql` session fed one line at a time, to hold a lock while the test goes on, as another instance would.
package final class PsqlSession {
    private let process = Process()
    private let input = Pipe()

    package init(_ url: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-q", "-At", "-v", "ON_ERROR_STOP=1", url]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    package func send(_ sql: String) throws { try input.fileHandleForWriting.write(contentsOf: Data((sql + "\n").utf8)) }

    /// Ends the input and waits for `psql` to exit (an open transaction is then rolled back).
    package func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
