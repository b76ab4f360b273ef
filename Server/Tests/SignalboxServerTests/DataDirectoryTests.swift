import Foundation
import SignalboxTestSupport
import Testing

/// Security, "Data directory": modes of the directory and its files, and starts refused for leaky keys.
@Suite struct DataDirectoryTests {
    @Test func directoryIs0700AndEveryFile0600IncludingWALAndSHM() async throws {
        let root = try makeTemporaryDirectory("data-modes")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        // An older data directory: world-readable, with a world-readable database.
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = FileManager.default.createFile(atPath: data + "/signalbox.sqlite", contents: nil, attributes: [.posixPermissions: 0o644])
        #expect(try Self.mode(data) == 0o755)
        // No admin key configured: the server generates admin.key and master.key.
        let server = try ChildProcess(["serve", "--port", "0", "--data-dir", data])
        defer { server.kill(SIGTERM) }
        _ = try await server.waitFor(#"Server started and listening"#)
        #expect(try Self.mode(data) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: data).sorted()
        for name in ["admin.key", "master.key", "signalbox.sqlite", "signalbox.sqlite-shm", "signalbox.sqlite-wal"] {
            #expect(files.contains(name), "\(files)")
        }
        for name in files { #expect(try Self.mode(data + "/" + name) == 0o600, "\(name)") }
    }

    @Test func keyFileReadableByOthersStopsTheStart() async throws {
        let root = try makeTemporaryDirectory("data-leaky-key")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = root + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let secret = "sba_leaked-secret-0123456789abcdef0123456789"
        _ = FileManager.default.createFile(atPath: data + "/admin.key", contents: Data(secret.utf8), attributes: [.posixPermissions: 0o644])
        let server = try ChildProcess(["serve", "--port", "0", "--data-dir", data])
        defer { server.kill() }
        let status = try await server.waitForExit()
        #expect(status != nil && status != 0)
        #expect(server.printed.contains(data + "/admin.key"), "\(server.printed)")
        #expect(server.printed.contains("readable by group or others"))
        #expect(!server.printed.contains(secret))
        #expect(!server.printed.contains("Server started"))
    }

    @Test func shortAdminKeyStopsTheStart() async throws {
        let root = try makeTemporaryDirectory("data-short-key")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let secret = "sba_short-key"
        let server = try ChildProcess(["serve", "--port", "0", "--data-dir", root + "/data"], environment: ["SIGNALBOX_ADMIN_KEY": secret])
        defer { server.kill() }
        let status = try await server.waitForExit()
        #expect(status != nil && status != 0)
        #expect(server.printed.contains("SIGNALBOX_ADMIN_KEY") && server.printed.contains("32 characters"), "\(server.printed)")
        #expect(!server.printed.contains(secret))
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1) & 0o777
    }
}
