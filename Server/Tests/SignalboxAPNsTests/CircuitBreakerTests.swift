import SignalboxAPNs
import Synchronization
import Testing

@Suite struct CircuitBreakerTests {
    let start = ContinuousClock.now

    func breaker() -> CircuitBreaker {
        var configuration = CircuitBreaker.Configuration()
        configuration.window = 20
        configuration.minimumAnswers = 10
        configuration.failureRatio = 0.5
        configuration.openFor = .seconds(1)
        configuration.maxOpenFor = .seconds(4)
        configuration.probes = 2
        return CircuitBreaker(configuration: configuration)
    }

    @Test func sporadicServerErrorsLeaveItClosed() {
        var breaker = breaker()
        for index in 0..<200 { breaker.record(serverError: index % 20 == 0, now: start) }
        #expect(!breaker.isOpen)
        #expect(breaker.admit(now: start) == .allow)
    }

    @Test func aBurstOpensItAndProbesCloseIt() {
        var breaker = breaker()
        for _ in 0..<9 { breaker.record(serverError: true, now: start) }
        #expect(!breaker.isOpen, "fewer than minimumAnswers")
        breaker.record(serverError: true, now: start)
        #expect(breaker.admit(now: start) == .wait(.seconds(1)))
        #expect(breaker.admit(now: start + .milliseconds(400)) == .wait(.milliseconds(600)))
        // After the pause, `probes` requests go; the others wait.
        let later = start + .seconds(1)
        #expect(breaker.admit(now: later) == .probe)
        #expect(breaker.admit(now: later) == .probe)
        #expect(breaker.admit(now: later) == .wait(.seconds(1)))
        breaker.record(serverError: false, now: later)
        #expect(!breaker.isOpen)
        #expect(breaker.admit(now: later) == .allow)
        // Its memory starts afresh: one more 5xx does not reopen it.
        breaker.record(serverError: true, now: later)
        #expect(!breaker.isOpen)
    }

    @Test func failedProbesDoubleThePauseUpToTheCap() {
        var breaker = breaker()
        for _ in 0..<10 { breaker.record(serverError: true, now: start) }
        var now = start
        for expected in [2, 4, 4] {
            now = now + .seconds(10)
            #expect(breaker.admit(now: now) == .probe)
            breaker.record(serverError: true, now: now)
            #expect(breaker.admit(now: now) == .wait(.seconds(expected)))
        }
    }

    @Test func theClientFailsFastWhileTheHostIsSpared() async throws {
        let clock = Mutex(ContinuousClock.now)
        let calls = Atomic<Int>(0)
        let status = Atomic<Int>(500)
        let transport = InMemoryTransport { _ in
            calls.add(1, ordering: .relaxed)
            return APNsResponse(status: status.load(ordering: .relaxed), reason: .internalServerError)
        }
        var configuration = CircuitBreaker.Configuration()
        configuration.minimumAnswers = 10
        let client = APNsClient(transport: transport, circuitBreaker: configuration, now: { clock.withLock { $0 } })
        let key = SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM123456")
        let tokens = ProviderTokenManager(key: key)
        let push = try Push(deviceToken: DeviceToken(hex: "aabb"), pushType: .controls, bundleId: "com.example")
        for _ in 0..<10 { _ = try await client.send(push, environment: .sandbox, tokens: tokens) }
        #expect(client.isSparing(.sandbox))
        #expect(!client.isSparing(.production), "one breaker per host")
        await #expect(throws: APNsTransportError.self) { try await client.send(push, environment: .sandbox, tokens: tokens) }
        #expect(calls.load(ordering: .relaxed) == 10, "nothing sent while open")
        status.store(200, ordering: .relaxed)
        clock.withLock { $0 = $0 + .seconds(2) }
        #expect(try await client.send(push, environment: .sandbox, tokens: tokens).outcome == .delivered)
        #expect(!client.isSparing(.sandbox))
    }
}
