import SignalboxWebhooks

extension WebhookConfiguration {
    /// Reads the `webhooks.*` keys (in the README's "Configuration" table): `webhooks.maxConcurrent`,
    /// `webhooks.timeoutSeconds`, `webhooks.retryBaseMs`, `webhooks.retryCapMs`, `webhooks.claimLeaseSeconds`,
    /// `webhooks.secretOverlapSeconds`, `webhooks.retentionDays`, `webhooks.allowPrivateTargets`, `webhooks.caFile`.
    mutating func read(_ read: SettingsReader) throws(ConfigurationError) {
        maxConcurrent = try read.int("webhooks.maxConcurrent", default: maxConcurrent, in: 1...1_000)
        requestTimeout = try read.seconds("webhooks.timeoutSeconds", default: requestTimeout)
        retryBase = try read.milliseconds("webhooks.retryBaseMs", default: retryBase)
        retryCap = try read.milliseconds("webhooks.retryCapMs", default: retryCap)
        claimLease = try read.seconds("webhooks.claimLeaseSeconds", default: claimLease)
        secretOverlap = try read.seconds("webhooks.secretOverlapSeconds", default: secretOverlap)
        eventRetention = try read.seconds("webhooks.retentionDays", default: eventRetention, unit: 86_400)
        allowPrivateTargets = read.reader.bool(forKey: "webhooks.allowPrivateTargets", default: allowPrivateTargets)
        caFile = read.string("webhooks.caFile") ?? caFile
        guard claimLease > requestTimeout else {
            throw ConfigurationError("bad configuration value: webhooks.claimLeaseSeconds must be longer than webhooks.timeoutSeconds")
        }
    }
}
