import SignalboxDelivery

extension APIDependencies {
    /// Apps whose APNs connections are opened ahead of their first push; past that many, an app's first push waits
    /// for a TLS handshake.
    static let preparedApps = 100

    /// Opens each app's connection to its environment if it has none (`APNsLane`): at start, and again later
    /// for new apps and for connections APNs closed. - Returns: 0 (nothing removed).
    func prepareConnections() async throws -> Int {
        guard let sender else { return 0 }
        for app in try await stores.registry.apps().prefix(Self.preparedApps) {
            // An app whose key cannot be read is reported when it sends; here it only goes without.
            try? await sender.prepare(appId: app.id, environment: app.environment.apns)
        }
        return 0
    }
}
