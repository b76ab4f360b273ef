import Foundation

/// The APNs environment a build's push tokens belong to: a development-signed build gets sandbox tokens, an App
/// Store, TestFlight or ad-hoc build production ones. Sending a token to the other environment fails with
/// `BadDeviceToken`, so the installation must say which.
public enum APNsEnvironment: String, Sendable, Hashable {
    case sandbox, production

    /// Read from the provisioning profile embedded in this build: `aps-environment` (iOS, watchOS, visionOS; macOS:
    /// `com.apple.developer.aps-environment`) `development` means sandbox. An extension without the key in its own
    /// profile is read from its containing app's. No profile (the App Store strips it): production; the Simulator:
    /// sandbox.
    public static func ofThisBuild(bundle: Bundle = .main) -> APNsEnvironment {
        #if targetEnvironment(simulator)
        return .sandbox
        #else
        var bundles = [bundle.bundleURL]
        if bundle.bundleURL.pathExtension == "appex" {
            // App.app/PlugIns/Widget.appex (iOS) or App.app/Contents/PlugIns/Widget.appex (macOS).
            let plugIns = bundle.bundleURL.deletingLastPathComponent()
            let parent = plugIns.deletingLastPathComponent()
            bundles.append(parent.lastPathComponent == "Contents" ? parent.deletingLastPathComponent() : parent)
        }
        for url in bundles {
            for name in ["embedded.mobileprovision", "Contents/embedded.provisionprofile"] {
                guard let data = try? Data(contentsOf: url.appendingPathComponent(name)) else { continue }
                if let environment = fromProvisioningProfile(data) { return environment }
            }
        }
        return .production
        #endif
    }

    /// The environment a provisioning profile's entitlements name, or `nil` when it names none. The profile is a
    /// CMS envelope around an XML property list; the plist is found as text, without checking the signature
    /// (the system checked it at install).
    public static func fromProvisioningProfile(_ data: Data) -> APNsEnvironment? {
        let text = String(decoding: data, as: UTF8.self)
        for key in ["<key>aps-environment</key>", "<key>com.apple.developer.aps-environment</key>"] {
            guard let range = text.range(of: key) else { continue }
            let rest = text[range.upperBound...]
            guard let open = rest.range(of: "<string>"), let close = rest.range(of: "</string>"), open.upperBound <= close.lowerBound else { continue }
            switch rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines) {
            case "development": return .sandbox
            case "production": return .production
            default: continue
            }
        }
        return nil
    }
}
