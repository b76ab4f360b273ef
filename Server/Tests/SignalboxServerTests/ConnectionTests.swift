import Foundation
@testable import SignalboxServer
import SignalboxTestSupport
import Testing

/// Security, "Connections": timeouts, the connection cap, requests cut short, ids, the descriptor limit.
/// Each test runs a real `signalbox serve` and talks to it over plain sockets.
@Suite struct ConnectionTests {
    /// One-second timeouts, so the tests take seconds.
    static let quick = ["SIGNALBOX_HEADER_TIMEOUT": "1", "SIGNALBOX_BODY_TIMEOUT": "1", "SIGNALBOX_IDLE_TIMEOUT": "1"]

    static func withServer(environment: [String: String] = quick, _ body: (ServerProcess) async throws -> Void) async throws {
        let directory = try makeTemporaryDirectory("connections")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await ServerProcess.start(dataDirectory: directory + "/data", environment: environment)
        defer { server.process.kill(SIGTERM) }
        try await body(server)
    }

    @Test func stalledRequestHeadIsClosedAfterTheHeaderTimeout() async throws {
        try await Self.withServer { server in
            // Taken before the connection opens, so the server's timer starts after it whatever the load.
            let start = ContinuousClock.now
            let half = try RawConnection(port: server.port)
            half.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let silent = try RawConnection(port: server.port)
            let halfRead = await half.read(timeout: .seconds(120))
            #expect(halfRead.closed && halfRead.text.isEmpty)
            #expect(ContinuousClock.now - start > .milliseconds(800))
            #expect(await silent.read(timeout: .seconds(120)).closed, "a connection that sends nothing is closed too")
        }
    }

    @Test func slowBodyIsClosedAfterTheBodyTimeoutWithoutA500() async throws {
        try await Self.withServer { server in
            let slow = try RawConnection(port: server.port)
            slow.send(Self.post(contentLength: 1000) + "{\"bundleId\":")
            let reply = await slow.read(timeout: .seconds(120))
            #expect(reply.closed)
            #expect(!reply.text.contains(" 500 "))
            try await server.stop()
            #expect(!server.loggedErrors, "\(server.process.printed)")
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        try await Self.withServer { server in
            let connection = try RawConnection(port: server.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let reply = await connection.read(timeout: .seconds(120))
            #expect(reply.text.hasPrefix("HTTP/1.1 200"))
            #expect(reply.closed, "closed after the idle timeout (1 s)")
        }
    }

    @Test func requestCutShortOrUnparsableIsA400AndNoErrorLog() async throws {
        try await Self.withServer(environment: [:]) { server in
            // The client half-closes in the middle of the body.
            let aborted = try RawConnection(port: server.port)
            aborted.send(Self.post(contentLength: 1000) + "{\"bundleId\":")
            aborted.shutdownWrite()
            let reply = await aborted.read(timeout: .seconds(120))
            #expect(reply.text.hasPrefix("HTTP/1.1 400"), "\(reply.text)")
            #expect(reply.text.contains("incomplete_body"))
            // The client vanishes in the middle of the body.
            let vanished = try RawConnection(port: server.port)
            vanished.send(Self.post(contentLength: 1000) + "{\"bundle")
            try await Task.sleep(for: .milliseconds(100))
            vanished.close()
            // Not HTTP at all.
            let garbage = try RawConnection(port: server.port)
            garbage.send("HELLO THERE\r\n\r\n")
            #expect(await garbage.read(timeout: .seconds(120)).text.hasPrefix("HTTP/1.1 400"))
            try await server.stop()
            #expect(!server.loggedErrors, "\(server.process.printed)")
        }
    }

    @Test func connectionsOverTheCapAreClosedAndServiceResumes() async throws {
        // The held connections' half request heads must outlast the test however slowly it runs: an hour.
        try await Self.withServer(environment: ["SIGNALBOX_MAX_CONNECTIONS": "4", "SIGNALBOX_HEADER_TIMEOUT": "3600"]) { server in
            let held = try (0..<4).map { _ in try RawConnection(port: server.port) }
            for connection in held { connection.send("GET /healthz HTTP/1.1\r\n") }
            // The held connections count once the server has accepted them (not when connect returns): until then
            // an excess connection may still be served, so it is tried again (closed) until it is refused. Each
            // asks for `Connection: close`, so a read ends at the close either way; its limit is for a hang.
            var refused = (text: "", closed: false)
            let refusalDeadline = ContinuousClock.now + .seconds(120)
            repeat {
                let excess = try RawConnection(port: server.port)
                excess.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                refused = await excess.read(timeout: .seconds(120))
                excess.close()
            } while !refused.text.isEmpty && ContinuousClock.now < refusalDeadline
            #expect(refused.closed && refused.text.isEmpty, "over the cap: closed at once, no answer")
            for connection in held { connection.close() }
            var answer = ""
            let deadline = ContinuousClock.now + .seconds(120)
            while !answer.hasPrefix("HTTP/1.1 200"), ContinuousClock.now < deadline {
                let client = try RawConnection(port: server.port)
                client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                answer = await client.read(timeout: .seconds(120)).text
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"), "served again once the held connections closed")
        }
    }

    /// The hard descriptor limit when it is a number above the soft limit the test sets (512), else nil.
    static let testableHardLimit: Int? = (try? shell("ulimit -Hn")).flatMap { Int($0) }.flatMap { $0 > 512 ? $0 : nil }

    @Test(.enabled(if: testableHardLimit != nil, "needs a hard descriptor limit above 512"))
    func softDescriptorLimitIsRaisedToTheHardLimit() async throws {
        let directory = try makeTemporaryDirectory("rlimit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hard = try #require(Self.testableHardLimit)
        let process = try ChildProcess(
            ["-c", "ulimit -Sn 512 && exec \"$0\" serve --port 0 --data-dir \"$1\"", ChildProcess.signalbox, directory + "/data"],
            environment: ["SIGNALBOX_ADMIN_KEY": ServerProcess.adminKey], executable: "/bin/sh"
        )
        defer { process.kill(SIGTERM) }
        _ = try await process.waitFor(#"Server started and listening"#)
        let limits = try String(contentsOfFile: "/proc/\(process.pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers.first == hard, "\(line)")
        // The cap leaves the reserve free: hard limit less max(256, limit / 8).
        #expect(process.printed.contains("connections.max=\(hard - max(256, hard / 8))"), "\(process.printed)")
    }

    @Test func idsAreRandomVersion4UUIDs() {
        let ids = (0..<10_000).map { _ in RandomID.make() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            #expect(id.range(of: #"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#, options: .regularExpression) != nil, "\(id)")
        }
    }

    @Test func connectionCapKeepsAReserveBelowTheDescriptorLimit() {
        var configuration = ConnectionConfiguration()
        #expect(configuration.connectionCap(descriptorLimit: 1024) == 768)
        #expect(configuration.connectionCap(descriptorLimit: 65536) == 57344)
        configuration.maxConnections = 100_000
        #expect(configuration.connectionCap(descriptorLimit: 1024) == 768, "a configured cap never exceeds the limit")
        configuration.maxConnections = 10
        #expect(configuration.connectionCap(descriptorLimit: 1024) == 10)
    }

    static func post(contentLength: Int) -> String {
        "POST /v1/apps HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServerProcess.adminKey)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(contentLength)\r\n\r\n"
    }

    static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
