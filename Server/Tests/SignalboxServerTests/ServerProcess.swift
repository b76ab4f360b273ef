import Foundation
import SignalboxTestSupport
import Testing

/// A `signalbox serve` child process on a free loopback port.
struct ServerProcess {
    static let adminKey = "sba_server-process-admin-key-0123456789"
    let process: ChildProcess
    let port: Int

    /// Starts `serve` with `directory` as its data directory and returns once it listens.
    static func start(
        dataDirectory directory: String, arguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> ServerProcess {
        let process = try ChildProcess(
            ["serve", "--port", "0", "--data-dir", directory] + arguments,
            environment: ["SIGNALBOX_ADMIN_KEY": adminKey].merging(environment) { $1 }
        )
        do {
            let port = try await process.waitFor(#"Server started and listening on 127\.0\.0\.1:(\d+)"#)
            return ServerProcess(process: process, port: Int(port)!)
        } catch {
            process.kill()
            throw error
        }
    }

    /// A JSON client of the server's API.
    var api: HTTPJSON { HTTPJSON(base: "http://127.0.0.1:\(port)") }

    /// Stops the server (SIGTERM) and waits for the end of its output, so that `loggedErrors` sees all of it,
    /// errors logged while it stopped included.
    func stop() async throws {
        let status = try await process.stop()
        #expect(status == 0, "serve ended with \(status.map(String.init) ?? "no exit"): \(process.printed)")
    }

    /// Whether the server logged anything at error level or above.
    var loggedErrors: Bool { process.printed.contains(" error ") || process.printed.contains(" critical ") }
}

/// A new empty directory under the temporary directory.
func makeTemporaryDirectory(_ name: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-\(name)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
