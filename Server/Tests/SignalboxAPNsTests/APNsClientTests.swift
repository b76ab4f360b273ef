import Crypto
import Foundation
import SignalboxAPNs
import SignalboxTestSupport
import Synchronization
import Testing

@Suite struct APNsClientTests {
    let clock = TestClock()
    let key = SigningKey(privateKey: P256.Signing.PrivateKey(), keyId: "KEY1234567", teamId: "TEAM123456")

    func push() throws -> Push {
        try Push(deviceToken: DeviceToken(hex: "aabb"), pushType: .controls, bundleId: "com.example")
    }

    @Test func expiredProviderTokenIsRefreshedAndRetriedOnce() async throws {
        let manager = ProviderTokenManager(key: key, now: { clock.now })
        let stale = manager.current()
        clock.advance(minutes: 30)
        let seen = Mutex<[String]>([])
        let transport = InMemoryTransport { request in
            seen.withLock { $0.append(request.token.jwt) }
            return request.token == stale
                ? APNsResponse(status: 403, reason: .expiredProviderToken) : APNsResponse(status: 200)
        }
        let result = try await APNsClient(transport: transport).send(push(), environment: .sandbox, tokens: manager)
        #expect(result.outcome == .delivered)
        let jwts = seen.withLock { $0 }
        #expect(jwts.count == 2 && jwts[0] == stale.jwt && jwts[1] != stale.jwt)
    }

    @Test func expiredTokenThatCannotBeReplacedIsACredentialsProblem() async throws {
        let manager = ProviderTokenManager(key: key, now: { clock.now })
        let calls = Atomic<Int>(0)
        let transport = InMemoryTransport { _ in
            calls.add(1, ordering: .relaxed)
            return APNsResponse(status: 403, reason: .expiredProviderToken)
        }
        let result = try await APNsClient(transport: transport).send(push(), environment: .sandbox, tokens: manager)
        #expect(result.outcome == .credentialsInvalid(reason: .expiredProviderToken))
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test func tooManyProviderTokenUpdatesWaitsOutTheTwentyMinuteFloor() async throws {
        let manager = ProviderTokenManager(key: key, now: { clock.now })
        let first = manager.current()
        clock.advance(minutes: 10)
        let transport = InMemoryTransport { _ in APNsResponse(status: 429, reason: .tooManyProviderTokenUpdates) }
        let result = try await APNsClient(transport: transport).send(push(), environment: .sandbox, tokens: manager)
        #expect(result.outcome == .retry(after: .seconds(600), reason: .tooManyProviderTokenUpdates))
        #expect(manager.current() == first)
    }
}
