import Foundation

/// How `signalbox serve` runs. Secrets (`adminKey`, `masterKey`) are never logged.
public struct ServerConfiguration: Sendable {
    /// Address and port of the HTTP API; loopback by default.
    public var host = "127.0.0.1"
    public var port = 8080
    /// Holds the SQLite database and generated keys.
    public var dataDirectory = "./signalbox-data"
    /// The admin key; generated into the data directory when absent.
    public var adminKey: String?
    /// Base64 of 32 bytes sealing stored secrets; generated into the data directory when absent.
    public var masterKey: String?
    /// Enumerator lease when a PUT names none.
    public var defaultLeaseSeconds = 600
    /// Largest request body accepted.
    public var bodyLimit = 64 * 1024
    /// How often expired enumerator leases are removed.
    public var leaseCleanupInterval: Duration = .seconds(60)
    /// Fan-out and delivery tuning.
    public var delivery = DeliveryConfiguration()
    /// How much of the delivery log is kept.
    public var deliveryLog = DeliveryLogConfiguration()
    /// Limits on what devices may register.
    public var quotas = DeviceQuotas()
    /// Request timeouts and the connection cap.
    public var connections = ConnectionConfiguration()
    /// PEM files of the certificate chain and private key; when set the API is served over HTTPS only.
    public var tls: TLSFiles?

    public init() {}
}

extension ServerConfiguration {
    /// Reads `SIGNALBOX_*` environment variables over the defaults: `HOST`, `PORT`, `DATA_DIR`, `ADMIN_KEY`,
    /// `MASTER_KEY`, `LEASE_SECONDS`, `MAX_IN_FLIGHT` (pushes sent at once), `RETRY_BASE_MS` and `RETRY_CAP_MS`
    /// (retry back-off), `APNS_PAUSE_MS` (first pause of a host answering mostly 5xx), `MAX_INSTALLATIONS_PER_USER`,
    /// `MAX_ENUMERATORS_PER_INSTALLATION` (device quotas), `HEADER_TIMEOUT`, `BODY_TIMEOUT`, `IDLE_TIMEOUT` (seconds),
    /// `MAX_CONNECTIONS`, `TLS_CERTIFICATE` and `TLS_KEY` (PEM file paths), `EVENT_RETENTION_DAYS` (how long done
    /// and failed events are kept, default 7), `FAN_OUT_ATTEMPTS` (failed fan-out steps in a row before an event
    /// is given up, default 5), `DELIVERY_LOG_DAYS` and `DELIVERY_LOG_MAX_LINES` (delivery log kept per app, default 7
    /// days and 100,000 lines).
    public mutating func apply(environment: [String: String]) {
        if let value = environment["SIGNALBOX_HOST"] { host = value }
        if let value = environment["SIGNALBOX_PORT"].flatMap(Int.init) { port = value }
        if let value = environment["SIGNALBOX_DATA_DIR"] { dataDirectory = value }
        if let value = environment["SIGNALBOX_ADMIN_KEY"], !value.isEmpty { adminKey = value }
        if let value = environment["SIGNALBOX_MASTER_KEY"], !value.isEmpty { masterKey = value }
        if let value = environment["SIGNALBOX_LEASE_SECONDS"].flatMap(Int.init) { defaultLeaseSeconds = value }
        if let value = environment["SIGNALBOX_MAX_IN_FLIGHT"].flatMap(Int.init), value > 0 { delivery.maxInFlight = value }
        if let value = environment["SIGNALBOX_RETRY_BASE_MS"].flatMap(Int.init), value > 0 { delivery.retryBase = .milliseconds(value) }
        if let value = environment["SIGNALBOX_RETRY_CAP_MS"].flatMap(Int.init), value > 0 { delivery.retryCap = .milliseconds(value) }
        if let value = environment["SIGNALBOX_APNS_PAUSE_MS"].flatMap(Int.init), value > 0 {
            delivery.circuitBreaker.openFor = .milliseconds(value)
        }
        /// A positive, finite number of seconds up to ten years (larger values would overflow timers); else nil.
        func seconds(_ key: String, unit: Double = 1) -> Duration? {
            environment[key].flatMap(Double.init).map { $0 * unit }.flatMap { $0 > 0 && $0 <= 315_360_000 ? .seconds($0) : nil }
        }
        if let value = seconds("SIGNALBOX_EVENT_RETENTION_DAYS", unit: 86_400) { delivery.eventRetention = value }
        if let value = environment["SIGNALBOX_FAN_OUT_ATTEMPTS"].flatMap(Int.init), value > 0 { delivery.fanOutAttempts = value }
        quotas.apply(environment: environment)
        deliveryLog.apply(environment: environment)
        if let value = seconds("SIGNALBOX_HEADER_TIMEOUT") { connections.headerTimeout = value }
        if let value = seconds("SIGNALBOX_BODY_TIMEOUT") { connections.bodyTimeout = value }
        if let value = seconds("SIGNALBOX_IDLE_TIMEOUT") { connections.idleTimeout = value }
        if let value = environment["SIGNALBOX_MAX_CONNECTIONS"].flatMap(Int.init), value > 0 { connections.maxConnections = value }
        let certificate = environment["SIGNALBOX_TLS_CERTIFICATE"] ?? "", key = environment["SIGNALBOX_TLS_KEY"] ?? ""
        // One without the other is kept, so the start fails and says which is missing.
        if !certificate.isEmpty || !key.isEmpty { tls = TLSFiles(certificate: certificate, key: key) }
    }
}

/// Where the HTTPS certificate chain and its private key are (PEM).
public struct TLSFiles: Sendable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}
