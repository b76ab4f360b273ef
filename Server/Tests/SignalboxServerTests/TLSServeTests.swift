import Foundation
@testable import SignalboxServer
import SignalboxTestSupport
import Testing

/// Security, "TLS": `serve --tls-certificate --tls-key` answers HTTPS, and nothing in clear.
@Suite struct TLSServeTests {
    @Test func servesHTTPSOnlyWithTheGivenCertificate() async throws {
        let root = try makeTemporaryDirectory("tls")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (certificate, key) = (root + "/cert.pem", root + "/key.pem")
        try Self.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", certificate,
        ])
        let server = try await ServerProcess.start(
            dataDirectory: root + "/data", arguments: ["--tls-certificate", certificate, "--tls-key", key],
            // Long enough for curl's handshake and request head on a loaded machine, short enough to see a stalled
            // handshake cut below.
            environment: ["SIGNALBOX_HEADER_TIMEOUT": "10"]
        )
        defer { server.process.kill(SIGTERM) }
        let https = try Self.run("/usr/bin/curl", ["-sS", "--max-time", "30", "--cacert", certificate, "https://127.0.0.1:\(server.port)/healthz"])
        #expect(https.status == 0 && https.output.contains(#""status":"ok""#), "\(https.output)")
        let plain = try Self.run("/usr/bin/curl", ["-sS", "--max-time", "30", "http://127.0.0.1:\(server.port)/healthz"], check: false)
        #expect(plain.status != 0 && !plain.output.contains(#""status":"ok""#), "plain HTTP gets no answer: \(plain.output)")
        // A TLS handshake that never comes is cut by the header timeout too (10 s; the read's limit is for a hang).
        let stalled = try RawConnection(port: server.port)
        #expect(await stalled.read(timeout: .seconds(120)).closed)
    }

    @Test func missingKeyFileStopsTheStartNamingIt() async throws {
        let root = try makeTemporaryDirectory("tls-missing")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try ChildProcess(
            ["serve", "--port", "0", "--data-dir", root + "/data", "--tls-certificate", root + "/none.pem", "--tls-key", root + "/none.key"],
            environment: ["SIGNALBOX_ADMIN_KEY": ServerProcess.adminKey]
        )
        defer { server.kill() }
        let status = try await server.waitForExit()
        #expect(status != nil && status != 0, "the start must fail, not keep running")
        #expect(server.printed.contains(root + "/none.pem"), "\(server.printed)")
    }

    /// The warning for plain HTTP off loopback (not started here: tests bind loopback only).
    @Test func loopbackAddresses() {
        for host in ["127.0.0.1", "127.0.0.2", "localhost", "::1"] { #expect(isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "192.168.1.10", "signalbox.example.com"] { #expect(!isLoopback(host), "\(host)") }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], check: Bool = true) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if check, process.terminationStatus != 0 { throw ChildProcessError(message: "\(executable) failed: \(output)") }
        return (process.terminationStatus, output)
    }
}
