import Foundation
import Testing

/// Who may do what: admin key / server key / device JWT × own app / other app × own user / other user.
struct AuthMatrixTests {
    enum Caller: String, CaseIterable, Sendable {
        case none, garbage, admin, ownServerKey, otherServerKey, ownDeviceOwnUser, ownDeviceOtherUser, otherAppDevice,
            expiredDevice, forgedDevice, deviceForOtherAudience
    }

    /// Expected status for writing controls on an installation owned by user "u1" of app A.
    static let expectations: [(Caller, Int)] = [
        (.none, 401), (.garbage, 401), (.admin, 403), (.ownServerKey, 204), (.otherServerKey, 403),
        (.ownDeviceOwnUser, 204), (.ownDeviceOtherUser, 403), (.otherAppDevice, 401), (.expiredDevice, 401),
        (.forgedDevice, 401), (.deviceForOtherAudience, 403),
    ]

    /// The credential `caller` presents; device tokens are dated by `now`, the clock the server reads (frozen at the
    /// harness's creation), so an expired one stays expired however late in a loaded run it is made.
    func credential(_ caller: Caller, own: TestApp, other: TestApp, now: Date) -> String? {
        switch caller {
        case .none: nil
        case .garbage: "sbk_not-a-key"
        case .admin: Harness.adminKey
        case .ownServerKey: own.serverKey
        case .otherServerKey: other.serverKey
        case .ownDeviceOwnUser: own.deviceToken(userId: "u1", now: now)
        case .ownDeviceOtherUser: own.deviceToken(userId: "u2", now: now)
        // Signed with the other app's secret but claiming app A: the signature does not verify.
        case .otherAppDevice: other.deviceToken(userId: "u1", audience: own.id, now: now)
        // Expired beyond the 60 s leeway.
        case .expiredDevice: own.deviceToken(userId: "u1", expiresIn: -120, now: now)
        case .forgedDevice: own.deviceToken(userId: "u1", secret: "guessed", now: now)
        case .deviceForOtherAudience: other.deviceToken(userId: "u1", now: now)
        }
    }

    @Test(arguments: expectations.indices)
    func controlsWrite(_ index: Int) async throws {
        let (caller, status) = Self.expectations[index]
        let harness = try await Harness.make()
        let clock = harness.clock
        try await harness.run { api in
            let own = try await api.createApp()
            let other = try await api.createApp(bundleId: "com.example.other")
            let base = "/v1/apps/\(own.id)/installations/i1"
            try await api.call(.put, base, key: own.serverKey, json: #"{"userId":"u1"}"#)
            let key = credential(caller, own: own, other: other, now: clock.now)
            let reply = try await api.call(.put, base + "/controls", key: key, json: #"{"controls":[{"kind":"k","pushToken":"aa"}]}"#)
            #expect(reply.status == status, "\(caller): \(reply.body)")
            if status >= 400 {
                #expect(reply.errorCode != nil)
                #expect(!reply.body.contains(own.serverKey) && !reply.body.contains(own.deviceSecret))
            }
        }
    }

    @Test func deviceMayOnlyRegisterItsOwnUser() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let device = app.deviceToken(userId: "u1")
            let base = "/v1/apps/\(app.id)/installations/"
            #expect(try await api.call(.put, base + "a", key: device, json: #"{"userId":"u1"}"#).status == 204)
            #expect(try await api.call(.put, base + "b", key: device, json: "{}").status == 204)  // userId filled from sub
            #expect(try await api.call(.put, base + "c", key: device, json: #"{"userId":"u2"}"#).status == 403)
            try await api.call(.put, base + "d", key: app.serverKey, json: #"{"userId":"u2"}"#)
            #expect(try await api.call(.put, base + "d", key: device, json: #"{"userId":"u1"}"#).status == 403)  // no take-over
            #expect(try await api.call(.delete, base + "d", key: device).status == 403)
            #expect(try await api.call(.delete, base + "a", key: device).status == 204)
            // Reading is for the app's backend.
            #expect(try await api.call(.get, base + "b", key: device).status == 403)
            let read = try await api.call(.get, base + "b", key: app.serverKey)
            #expect(read.json?["userId"] as? String == "u1")
        }
    }

    @Test func appEndpointsNeedTheAdminKey() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            #expect(try await api.call(.get, "/v1/apps", key: app.serverKey).status == 403)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)", key: nil).status == 401)
            #expect(try await api.call(.delete, "/v1/apps/\(app.id)", key: app.deviceToken(userId: "u")).status == 403)
            #expect(try await api.call(.post, "/v1/apps/\(app.id)/server-key", key: "wrong").status == 403)
        }
    }
}
