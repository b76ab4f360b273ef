import SignalboxAPI

/// One line of `signalbox tokens export` / `import`: an installation and every registration it holds.
/// Enumerator leases are left out: they are short-lived and renewed by the devices.
struct TokenRecord: Codable, Hashable {
    var installationId: String
    var userId: String?
    var channels: [String]
    var environment: String
    var widgets: WidgetsRequest?
    var controls: [Control]?
    var fileProvider: FileProviderRequest?

    init(_ installation: InstallationResponse) {
        installationId = installation.installationId
        userId = installation.userId
        channels = installation.channels
        environment = installation.environment
        widgets = installation.widgets
        controls = installation.controls.isEmpty ? nil : installation.controls
        fileProvider = installation.fileProvider.map { FileProviderRequest(pushToken: $0.pushToken, domains: $0.domains) }
    }

    /// Why the record cannot be imported, checked before anything is written; nil when it can.
    var problem: String? {
        if installationId.isEmpty || installationId.count > 128 || installationId.contains("/") {
            return "installationId must be 1 to 128 characters without /"
        }
        if !["sandbox", "production"].contains(environment) { return "environment must be sandbox or production" }
        if let userId, userId.isEmpty || userId.count > 128 { return "userId must be 1 to 128 characters" }
        let tokens = [widgets?.pushToken].compactMap { $0 } + (controls ?? []).map(\.pushToken) + [fileProvider?.pushToken].compactMap { $0 }
        if let token = tokens.first(where: { !Self.isHexToken($0) }) {
            return "push token \(token.prefix(16))… is not an even number of hex digits (8 to 200)"
        }
        return nil
    }

    private static func isHexToken(_ token: String) -> Bool {
        (8...200).contains(token.count) && token.count.isMultiple(of: 2) && token.allSatisfy(\.isHexDigit)
    }
}
