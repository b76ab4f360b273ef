import Crypto
import Foundation
import SignalboxTestSupport

/// A temporary directory holding a new signing key (`AuthKey.p8`), and `signalbox simulate-apns` as a child
/// process that trusts it as KEY1234567 of TEAM123456 and answers each push after `latencyMs`.
struct SimulatorProcess {
    let directory: String
    /// The key's PEM, as an app is created with.
    let pem: String
    let process: ChildProcess
    let apnsPort: String
    /// The simulator's admin API (what it accepted).
    let admin: HTTPJSON

    /// Its certificate, for `serve --apns-ca`.
    var caPath: String { directory + "/ca.pem" }

    static func start(name: String, latencyMs: Int) async throws -> SimulatorProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyPath = directory + "/AuthKey.p8"
        let pem = P256.Signing.PrivateKey().pemRepresentation
        try pem.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let process = try ChildProcess([
            "simulate-apns", "--port", "0", "--admin-port", "0", "--write-ca", directory + "/ca.pem",
            "--trust-key", "KEY1234567:TEAM123456:\(keyPath)", "--fault-rate", "latency-\(latencyMs)=1",
        ])
        do {
            let apnsPort = try await process.waitFor(#"listening on 127\.0\.0\.1:(\d+)"#)
            let admin = HTTPJSON(base: "http://127.0.0.1:" + (try await process.waitFor(#"admin http://127\.0\.0\.1:(\d+)"#)))
            return SimulatorProcess(directory: directory, pem: pem, process: process, apnsPort: apnsPort, admin: admin)
        } catch {
            process.kill()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Stops the simulator and removes the directory.
    func stop() {
        process.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
