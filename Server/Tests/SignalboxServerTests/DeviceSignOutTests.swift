import Foundation
import HTTPTypes
import SignalboxStoreTestSupport
import Testing

/// What SignalboxClient's sign-out and token invalidation ask of the server with a device JWT: a device deletes
/// its own installation and its File Provider registration; another user's device cannot, and is told so with a
/// code it recovers from (a new installation id).
struct DeviceSignOutTests {
    @Test(arguments: Backend.available)
    func aDeviceRemovesItsFileProviderRegistrationAndDeletesItsOwnInstallation(_ backend: Backend) async throws {
        let harness = try await Harness.make(store: try await backend.open())
        try await harness.run { api in
            let app = try await api.createApp()
            let u1 = try await app.sign(app.claims(now: harness.clock.now))
            let u2 = try await app.sign(app.claims(userId: "u2", now: harness.clock.now))
            let base = "/v1/apps/\(app.id)/installations/i1"
            #expect(try await api.call(.put, base, key: u1, json: #"{"revision":1}"#).status == 204)
            let fileProvider = #"{"pushToken":"f0","domains":[{"id":"acct"}],"revision":2}"#
            #expect(try await api.call(.put, base + "/file-provider", key: u1, json: fileProvider).status == 204)
            #expect(try await api.call(.put, base + "/file-provider/domains/acct/enumerators/folder-1", key: u1, json: "{}").status == 200)

            // Another user's device: refused with the code the SDK answers with a new installation id.
            for (method, path, json) in [(.delete, base + "/file-provider?revision=9", nil), (.delete, base, nil), (.put, base, "{}")] as [(HTTPRequest.Method, String, String?)] {
                let refused = try await api.call(method, path, key: u2, json: json)
                #expect(refused.status == 403)
                #expect(refused.errorCode == "installation_of_another_user")
            }

            // The File Provider removal shares the registration's revision: an older one changes nothing.
            #expect(try await api.call(.delete, base + "/file-provider?revision=1", key: u1).errorCode == "stale_revision")
            #expect(try await api.call(.delete, base + "/file-provider?revision=3", key: u1).status == 204)
            let read = try await api.call(.get, base, key: app.serverKey)
            #expect(read.json?["fileProvider"] == nil || read.json?["fileProvider"] is NSNull)
            #expect(try await api.call(.put, base + "/file-provider", key: u1, json: fileProvider).errorCode == "stale_revision", "a late PUT does not revive it")
            #expect(try await api.call(.delete, base + "/file-provider?revision=4", key: u1).status == 204, "removing nothing is done")

            // Sign-out: the installation goes with every token; a second delete finds nothing.
            #expect(try await api.call(.delete, base, key: u1).status == 204)
            #expect(try await api.call(.get, base, key: app.serverKey).status == 404)
            #expect(try await api.call(.delete, base, key: u1).status == 404)
            #expect(try await api.call(.delete, base + "/file-provider", key: u1).status == 404)
        }
    }
}
