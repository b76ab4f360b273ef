import Configuration
import Foundation

extension ServerConfiguration {
    /// Reads the server's settings from `reader` over the defaults; every key is in the README's
    /// "Configuration" table. A value of the wrong type is left to `problems` (the reader's access reporter);
    /// a value out of range throws here, naming its key.
    ///
    /// Keys: `host`, `port`, `dataDir`, `database`, `adminKey`, `masterKey`, `metricsKey`, `leaseSeconds`;
    /// `delivery.maxInFlight`, `delivery.retryBaseMs`, `delivery.retryCapMs`, `delivery.apnsPauseMs`,
    /// `delivery.eventRetentionDays`, `delivery.fanOutAttempts`, `delivery.claimLeaseSeconds`, `delivery.fanOutBatch`, `delivery.handOffAhead`; `deliveryLog.days`, `deliveryLog.maxLines`; `quotas.maxInstallationsPerUser`,
    /// `quotas.maxEnumeratorsPerInstallation`; `connections.headerTimeout`, `connections.bodyTimeout`,
    /// `connections.idleTimeout` (seconds), `connections.maxConnections`; `tls.certificate`, `tls.key`; `webhooks.*`
    /// (`WebhookConfiguration.read`).
    /// `adminKey`, `masterKey`, `metricsKey` and `database` (its URL may hold a password) are read as secrets.
    public init(reader: ConfigReader, problems: ConfigProblems) throws(ConfigurationError) {
        self.init()
        let read = SettingsReader(reader: reader, problems: problems)
        host = read.string("host") ?? host
        port = try read.int("port", default: port, in: 0...65_535)
        dataDirectory = read.string("dataDir") ?? dataDirectory
        database = read.string("database", isSecret: true)
        if let database, !(database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")) {
            throw ConfigurationError(
                "bad configuration value: \(problems.describe("database")): must be a postgres:// URL, or absent for the embedded SQLite"
            )
        }
        adminKey = read.string("adminKey", isSecret: true)
        masterKey = read.string("masterKey", isSecret: true)
        metricsKey = read.string("metricsKey", isSecret: true)
        if let metricsKey, metricsKey.utf8.count < 16 || metricsKey.utf8.count > 4096 || metricsKey.contains(where: { $0.isWhitespace }) {
            throw ConfigurationError(
                "bad configuration value: \(problems.describe("metricsKey")): must be 16 to 4096 characters without spaces"
            )
        }
        defaultLeaseSeconds = try read.int("leaseSeconds", default: defaultLeaseSeconds, in: 1...315_360_000)

        delivery.maxInFlight = try read.int("delivery.maxInFlight", default: delivery.maxInFlight, in: 1...1_000_000)
        delivery.retryBase = try read.milliseconds("delivery.retryBaseMs", default: delivery.retryBase)
        delivery.retryCap = try read.milliseconds("delivery.retryCapMs", default: delivery.retryCap)
        delivery.circuitBreaker.openFor = try read.milliseconds("delivery.apnsPauseMs", default: delivery.circuitBreaker.openFor)
        delivery.eventRetention = try read.seconds("delivery.eventRetentionDays", default: delivery.eventRetention, unit: 86_400)
        delivery.fanOutAttempts = try read.int("delivery.fanOutAttempts", default: delivery.fanOutAttempts, in: 1...1_000)
        delivery.claimLease = try read.seconds("delivery.claimLeaseSeconds", default: delivery.claimLease)
        // A lease that ends while its push is in flight lets another instance send that push again.
        guard delivery.claimLease > delivery.requestTimeout else {
            throw ConfigurationError(
                "bad configuration value: \(problems.describe("delivery.claimLeaseSeconds")): must be longer than the \(Int(delivery.requestTimeout.seconds)) s an APNs request may take"
            )
        }
        delivery.fanOutBatch = try read.int("delivery.fanOutBatch", default: delivery.fanOutBatch, in: 1...10_000)
        delivery.handOffAhead = try read.int("delivery.handOffAhead", default: delivery.handOffAhead, in: 0...1_000_000)

        deliveryLog.retention = try read.seconds("deliveryLog.days", default: deliveryLog.retention, unit: 86_400)
        deliveryLog.maxLinesPerApp = try read.int("deliveryLog.maxLines", default: deliveryLog.maxLinesPerApp, in: 0...100_000_000)

        quotas.installationsPerUser = try read.int(
            "quotas.maxInstallationsPerUser", default: quotas.installationsPerUser, in: 1...1_000_000
        )
        quotas.enumeratorsPerInstallation = try read.int(
            "quotas.maxEnumeratorsPerInstallation", default: quotas.enumeratorsPerInstallation, in: 1...1_000_000
        )

        connections.headerTimeout = try read.seconds("connections.headerTimeout", default: connections.headerTimeout)
        connections.bodyTimeout = try read.seconds("connections.bodyTimeout", default: connections.bodyTimeout)
        connections.idleTimeout = try read.seconds("connections.idleTimeout", default: connections.idleTimeout)
        connections.maxConnections = try read.optionalInt("connections.maxConnections", in: 1...10_000_000)

        try webhooks.read(read)

        let certificate = read.string("tls.certificate") ?? "", key = read.string("tls.key") ?? ""
        // One without the other is kept, so the start fails and says which is missing.
        if !certificate.isEmpty || !key.isEmpty { tls = TLSFiles(certificate: certificate, key: key) }
    }
}

/// Reads one setting at a time with its range checked; an empty string counts as absent (an exported but
/// empty environment variable).
struct SettingsReader {
    let reader: ConfigReader
    let problems: ConfigProblems

    func string(_ key: String, isSecret: Bool = false) -> String? {
        reader.string(forKey: ConfigKey(key), isSecret: isSecret).flatMap { $0.isEmpty ? nil : $0 }
    }

    func int(_ key: String, default value: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        try optionalInt(key, in: range) ?? value
    }

    func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let read = reader.int(forKey: ConfigKey(key)) else { return nil }
        guard range.contains(read) else {
            throw ConfigurationError("bad configuration value: \(problems.describe(key)): must be from \(range.lowerBound) to \(range.upperBound)")
        }
        return read
    }

    /// A positive, finite duration of at most ten years (a larger one overflows timers).
    func seconds(_ key: String, default value: Duration, unit: Double = 1) throws(ConfigurationError) -> Duration {
        guard let read = reader.double(forKey: ConfigKey(key)) else { return value }
        let seconds = read * unit
        guard seconds > 0, seconds <= 315_360_000 else {
            throw ConfigurationError("bad configuration value: \(problems.describe(key)): must be positive and at most ten years")
        }
        return .seconds(seconds)
    }

    func milliseconds(_ key: String, default value: Duration) throws(ConfigurationError) -> Duration {
        try optionalInt(key, in: 1...315_360_000_000).map { .milliseconds($0) } ?? value
    }
}
