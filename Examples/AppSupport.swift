#if os(Linux)
import AppleFrameworkStubs
import Foundation
import SignalboxClient

// Stand-ins for the app's own code that the README's snippets call. The snippets themselves are in the other files
// of this folder, between `// snippet:` and `// end snippet` lines; ReadmeSnippetsTests checks the README quotes them.

/// The app's backend client.
enum MyBackend {
    /// `{token, expiresAt}` minted by the backend for the signed-in user (see README, "Device credentials").
    static func signalboxDeviceToken() async throws -> DeviceCredential { DeviceCredential(token: "header.claims.signature") }
}

/// The signed-in user, as the app knows it.
struct Session: Sendable {
    var userId: String
    var channels: [String]
}

/// The door control's intent (an `AppIntents.ControlConfigurationIntent` in the app).
struct DoorIntent: ControlConfigurationIntent {
    struct Door: Sendable { var id: String }
    var door: Door
}

/// The app group container (`FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)` in the app).
enum AppGroup {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("group.com.example.garage")
}
#endif
