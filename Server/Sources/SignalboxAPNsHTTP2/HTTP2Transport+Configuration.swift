import SignalboxAPNs

extension HTTP2Transport {
    /// A host and port to reach APNs (or a double) at.
    public struct Endpoint: Sendable, Hashable {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 443) {
            self.host = host
            self.port = port
        }
    }

    /// Which certificates the transport trusts for the APNs server.
    public enum TrustRoots: Sendable, Hashable {
        /// The system's trust store (must hold USERTrust RSA for Apple's servers).
        case system
        /// PEM certificates in a file (e.g. the simulator's generated certificate).
        case pemFile(String)
        /// PEM certificates as text.
        case pem(String)
    }

    /// Settings of the HTTP/2 transport, each with a documented default.
    public struct Configuration: Sendable {
        /// Where each environment is reached; defaults to Apple's hosts on port 443.
        public var endpoints: [APNsEnvironment: Endpoint] = [
            .sandbox: Endpoint(host: APNsEnvironment.sandbox.defaultHost),
            .production: Endpoint(host: APNsEnvironment.production.defaultHost),
        ]
        /// The server certificate trust; default the system store.
        public var trustRoots: TrustRoots = .system
        /// An HTTP proxy every connection goes through with `CONNECT`; default none (direct connections). Its
        /// answer counts toward `connectTimeout`.
        public var proxy: Proxy?
        /// Connections opened per lane (an app's environment, team, key and bundle id) when existing ones are
        /// saturated; default 4.
        public var maxConnectionsPerLane = 4
        /// Our own cap on concurrent streams per connection (the server's SETTINGS may lower it); default 1000.
        public var maxConcurrentStreamsPerConnection = 1000
        /// Time to connect, including TLS; default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// A PING is sent after this long without traffic; default 60 s.
        public var pingInterval: Duration = .seconds(60)
        /// A connection that stopped taking streams (GOAWAY, error) is closed after this even if answers are still
        /// missing; those pushes are sent again once, elsewhere; default 5 s.
        public var drainTimeout: Duration = .seconds(5)
        /// A connection whose PING is not acknowledged within this is closed; default 10 s.
        public var pingTimeout: Duration = .seconds(10)
        /// First reconnect delay after a failed connect; doubles per failure, with jitter; default 100 ms.
        public var reconnectBackoff: Duration = .milliseconds(100)
        /// Longest reconnect delay; default 30 s.
        public var maxReconnectBackoff: Duration = .seconds(30)
        /// Times a push whose answer was lost (reset, connection closed after it was written) is sent again by the
        /// transport: APNs may have processed it, so each re-send risks a duplicate; default 1.
        public var resendsAfterLostAnswer = 1
        /// Times a push the server did not process (above a GOAWAY's last-stream-id, `REFUSED_STREAM`, never
        /// written) is moved to another connection; such moves are no attempts and risk no duplicate; default 16.
        public var maxRefusedResends = 16

        public init() {}

        /// All environments sent to one endpoint (the simulator, a test double).
        public static func singleEndpoint(host: String, port: Int, trustRoots: TrustRoots) -> Configuration {
            var configuration = Configuration()
            configuration.endpoints = [.sandbox: Endpoint(host: host, port: port), .production: Endpoint(host: host, port: port)]
            configuration.trustRoots = trustRoots
            return configuration
        }
    }
}
