import Foundation
import SignalboxWebhooks
import SignalboxDelivery

/// How `signalbox serve` runs; read from flags, environment and file by `init(reader:problems:)`.
/// Secrets (`adminKey`, `masterKey`, `metricsKey`, `database`) are never logged.
public struct ServerConfiguration: Sendable {
    /// Address and port of the HTTP API; loopback by default.
    public var host = "127.0.0.1"
    public var port = 8080
    /// Holds the SQLite database and generated keys.
    public var dataDirectory = "./signalbox-data"
    /// A `postgres://` URL of the database; `nil` uses the embedded SQLite in `dataDirectory`.
    public var database: String?
    /// The admin key; generated into the data directory when absent.
    public var adminKey: String?
    /// Base64 of 32 bytes sealing stored secrets; generated into the data directory when absent.
    public var masterKey: String?
    /// The bearer key `/metrics` asks for; absent: `/metrics` is open to anyone who reaches the port.
    public var metricsKey: String?
    /// Enumerator lease when a PUT names none.
    public var defaultLeaseSeconds = 600
    /// Largest request body accepted.
    public var bodyLimit = 64 * 1024
    /// How often expired enumerator leases are removed.
    public var leaseCleanupInterval: Duration = .seconds(60)
    /// Fan-out and delivery tuning.
    public var delivery = DeliveryConfiguration()
    /// Webhook sending: concurrency, deadline, back-off, secret overlap, retention.
    public var webhooks = WebhookConfiguration()
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

/// Where the HTTPS certificate chain and its private key are (PEM).
public struct TLSFiles: Sendable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}
