import Foundation
import SignalboxAPNs

extension APNsSimulator {
    /// How a simulator listens, identifies itself and misbehaves.
    public struct Configuration: Sendable {
        /// The address to listen on; loopback by default.
        public var host = "127.0.0.1"
        /// The HTTP/2 port; 0 picks a free one (read it back from `APNsSimulator.port`).
        public var port = 0
        /// The HTTP/1.1 admin port; `nil` runs no admin endpoint, 0 picks a free one.
        public var adminPort: Int? = nil
        /// The server certificate: generated (self-signed, `localhost` and `127.0.0.1`) or given.
        public var tls = TLS.generated
        /// SETTINGS_MAX_CONCURRENT_STREAMS a new connection starts with, as APNs does.
        public var initialMaxConcurrentStreams = 1
        /// SETTINGS_MAX_CONCURRENT_STREAMS after the connection's first valid request.
        public var maxConcurrentStreams = 1000
        /// Accepted pushes kept for inspection; older ones are dropped (counts stay exact).
        public var recordLimit = 1_000_000
        /// Faults injected at random rates.
        public var faults = FaultPlan()
        /// How long a connection keeps reading after a graceful GOAWAY before it closes.
        public var drainTime: Duration = .seconds(1)
        /// The APNs environment this simulator plays (nil: either); a key registered for the other one is refused
        /// with `BadEnvironmentKeyIdInToken`.
        public var environment: APNsEnvironment? = nil
        /// The simulator's clock, used for JWT age and 410 timestamps.
        public var now: @Sendable () -> Date = { Date() }

        public init() {}
    }

    /// The server's TLS identity.
    public enum TLS: Sendable {
        /// A fresh self-signed P-256 certificate for `localhost` and `127.0.0.1`.
        case generated
        /// A certificate chain and private key, both PEM.
        case pem(certificateChain: String, privateKey: String)

        /// A fresh self-signed identity as PEM, so several simulators (one per APNs environment) can share one
        /// certificate that a client trusts once.
        public static func selfSigned() throws -> TLS {
            let identity = try SelfSignedIdentity()
            return .pem(certificateChain: identity.certificatePEM, privateKey: identity.privateKeyPEM)
        }
    }

    /// A misbehaviour applied to one request.
    public enum Fault: Sendable, Hashable {
        /// Answer with this status and reason instead of validating.
        case status(Int, reason: String)
        /// Answer `503 Shutdown` and send GOAWAY: the connection takes no new streams.
        case shutdown
        /// Leave this request unanswered and send GOAWAY naming the previous stream as the last one processed (this
        /// one and later ones are not processed: the client must send them elsewhere). The connection closes as
        /// soon as the streams at or below it are answered, or, `graceful`, keeps reading for `drainTime` first.
        case goAway(graceful: Bool)
        /// Close the TCP connection without answering this request and without GOAWAY (answers already given go first).
        case reset
        /// Validate and answer normally after this delay.
        case latency(Duration)
    }

    /// Faults drawn at random for each request that no script covers.
    public struct FaultPlan: Sendable {
        /// Each fault with the probability (0…1) that it hits a request; checked in order.
        public var rates: [(fault: Fault, probability: Double)]
        /// Seed of the random generator, so a run can be repeated.
        public var seed: UInt64

        public init(rates: [(fault: Fault, probability: Double)] = [], seed: UInt64 = 1) {
            self.rates = rates
            self.seed = seed
        }
    }
}

/// A small seeded generator (SplitMix64), so fault runs and randomized tests that print their seed repeat.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
