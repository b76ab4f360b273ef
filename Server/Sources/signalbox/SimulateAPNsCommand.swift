import APNsSimulator
import ArgumentParser
import Crypto
import Foundation
import Logging
import NIOCore

/// `signalbox simulate-apns`: runs the APNs simulator until interrupted.
struct SimulateAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-apns",
        abstract: "Run an APNs double (HTTP/2 over TLS) that validates like APNs and can inject faults.",
        discussion: """
            Example:
              signalbox simulate-apns --write-ca simulator-ca.pem --trust-key KEY1234567:TEAM123456:AuthKey.p8
            Admin endpoint (HTTP/1.1): GET /pushes, GET /pushes/count, DELETE /pushes, GET /stats,
            POST /tokens/{hex}/unregister, POST /tokens/{hex}/bind, POST /keys.
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"
    @Option(help: "HTTP/2 port (0 picks a free one).")
    var port = 2197
    @Option(help: "HTTP/1.1 admin port (0 picks a free one, -1 runs none).")
    var adminPort = 2198
    @Option(help: "Server certificate chain (PEM); default: a generated self-signed certificate.")
    var certificate: String?
    @Option(help: "Private key of --certificate (PEM).")
    var privateKey: String?
    @Option(help: "Write the server certificate here, for clients to trust.")
    var writeCa: String?
    @Option(help: "Trust a signing key: KEYID:TEAMID:PATH, PATH a .p8 private key or a public key PEM. Repeatable.")
    var trustKey: [String] = []
    @Option(help: "Inject a fault at a rate: KIND=PROBABILITY, KIND one of 429, 500, 503, shutdown, goaway (close once the processed streams are answered), goaway-graceful (keep reading for a second first), close-without-goaway (alias reset), latency-MS. Repeatable.")
    var faultRate: [String] = []
    @Option(help: "Seed for --fault-rate.")
    var seed: UInt64 = 1
    @Option(help: "Event loop threads (default: one per core). A loop serves its connections in turn, so a client's push can wait behind another client's on the same loop; APNs has no such queue, and more loops than connections avoid it.")
    var eventLoops: Int?

    func run() async throws {
        if let eventLoops {
            guard (1...256).contains(eventLoops) else { throw ValidationError("--event-loops must be 1 to 256") }
            // Before anything uses the shared loops: the simulator's servers run on them.
            NIOSingletons.groupLoopCountSuggestion = eventLoops
        }
        var configuration = APNsSimulator.Configuration()
        configuration.host = host
        configuration.port = port
        configuration.adminPort = adminPort < 0 ? nil : adminPort
        if let certificate {
            guard let privateKey else { throw ValidationError("--certificate needs --private-key") }
            configuration.tls = .pem(
                certificateChain: try String(contentsOfFile: certificate, encoding: .utf8),
                privateKey: try String(contentsOfFile: privateKey, encoding: .utf8)
            )
        }
        configuration.faults = APNsSimulator.FaultPlan(rates: try faultRate.map(Self.parseFaultRate), seed: seed)
        let keys = try trustKey.map(Self.parseTrustedKey)
        let simulator = try await APNsSimulator.start(configuration: configuration, logger: Logger(label: "signalbox.apns-simulator"))
        for key in keys { simulator.register(publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId) }
        if let writeCa { try simulator.certificatePEM.write(toFile: writeCa, atomically: true, encoding: .utf8) }
        let admin = simulator.adminPort.map { ", admin http://\(host):\($0)" } ?? ""
        let line = "APNs simulator listening on \(host):\(simulator.port)\(admin), \(keys.count) trusted key(s)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        try await simulator.run()
    }

    static func parseTrustedKey(_ text: String) throws -> (keyId: String, teamId: String, publicKey: P256.Signing.PublicKey) {
        let parts = text.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3 else { throw ValidationError("--trust-key must be KEYID:TEAMID:PATH") }
        let pem = try String(contentsOfFile: parts[2], encoding: .utf8)
        if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            return (parts[0], parts[1], privateKey.publicKey)
        }
        guard let publicKey = try? P256.Signing.PublicKey(pemRepresentation: pem) else {
            throw ValidationError("\(parts[2]) holds no P-256 private or public key")
        }
        return (parts[0], parts[1], publicKey)
    }

    static func parseFaultRate(_ text: String) throws -> (fault: APNsSimulator.Fault, probability: Double) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let probability = Double(parts[1]), (0...1).contains(probability) else {
            throw ValidationError("--fault-rate must be KIND=PROBABILITY with PROBABILITY in 0…1")
        }
        let fault: APNsSimulator.Fault
        switch parts[0] {
        case "429": fault = .status(429, reason: "TooManyRequests")
        case "500": fault = .status(500, reason: "InternalServerError")
        case "503": fault = .status(503, reason: "ServiceUnavailable")
        case "shutdown": fault = .shutdown
        case "goaway": fault = .goAway(graceful: false)
        case "goaway-graceful": fault = .goAway(graceful: true)
        case "close-without-goaway", "reset": fault = .reset
        case let kind where kind.hasPrefix("latency-"):
            guard let milliseconds = Int(kind.dropFirst("latency-".count)) else {
                throw ValidationError("latency fault must be latency-MILLISECONDS")
            }
            fault = .latency(.milliseconds(milliseconds))
        default:
            throw ValidationError("unknown fault kind \(parts[0])")
        }
        return (fault, probability)
    }
}
