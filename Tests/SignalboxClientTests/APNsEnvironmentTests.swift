import Foundation
import Testing
@testable import SignalboxClient

/// The APNs environment follows the build's provisioning profile.
@Suite struct APNsEnvironmentTests {
    @Test func theProvisioningProfileNamesTheEnvironment() {
        func profile(_ key: String, _ value: String) -> Data {
            Data("0\u{80}junk<plist><dict><key>Entitlements</key><dict><key>\(key)</key>\n\t<string>\(value)</string></dict></dict></plist>junk".utf8)
        }
        #expect(APNsEnvironment.fromProvisioningProfile(profile("aps-environment", "development")) == .sandbox)
        #expect(APNsEnvironment.fromProvisioningProfile(profile("aps-environment", "production")) == .production)
        #expect(APNsEnvironment.fromProvisioningProfile(profile("com.apple.developer.aps-environment", "development")) == .sandbox)
        #expect(APNsEnvironment.fromProvisioningProfile(profile("get-task-allow", "true")) == nil)
        // No profile in the bundle (App Store builds): production.
        #expect(APNsEnvironment.ofThisBuild(bundle: Bundle(path: FileManager.default.temporaryDirectory.path)!) == .production)
    }
}
