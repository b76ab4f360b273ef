#if os(Linux)
import AppleFrameworkStubs
import Foundation
import SignalboxAPI
import SignalboxClient
import SignalboxClientApple

// snippet: configuration
extension SignalboxApple.Configuration {
    /// The same in the app, the widget extension and the File Provider extension.
    static var myApp: Self {
        var configuration = Self(
            appGroupDirectory: AppGroup.directory,           // the app group's container
            baseURL: URL(string: "https://push.example.com")!, appId: "app_…",
            credentials: { try await MyBackend.signalboxDeviceToken() }   // {token, expiresAt} from your server
        )
        // One closure per kind: the user's intent values, as events' `configuration` filters see them.
        configuration.configureControls(ofKind: "com.example.garage.door") { control in
            .object(["door": .string(control.configurationIntent(of: DoorIntent.self)?.door.id ?? "")])
        }
        configuration.configureWidgets(ofKind: "Caffeine") { _ in .object([:]) }
        // Which kind of File Provider extension serves each domain: NSFileProviderReplicatedExtension or not.
        configuration.fileProviderDomains = [
            FileProviderDomain(id: "photos", replicated: true), FileProviderDomain(id: "acct-7", replicated: false),
        ]
        return configuration
    }
}
// end snippet
#endif
